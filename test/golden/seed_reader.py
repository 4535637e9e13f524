#!/usr/bin/env python3
"""Independent reader of the seed tool's trace directories.

Written from the seed's format as /work/shared/BRIEF.md states it and from
what its fixture directories show (docs/TRACE_FORMAT.md 7.1 and 7.2 say the
same in our words); it shares no code with tracefmt/ (LZ4 and LEB128 come
from golden_read.py and golden_format.py, the other independent decoder).
It reads what the seed tool's own reader reads, so a directory our writers
produced with --seed-format / --seed-layout is checked against the seed's
rules, not ours.

  seed_reader.py records DIR   every record, one line each in tfdump's
                               format, after the mapping of seed markers
                               to ours (TRACE_FORMAT 7.1), sorted
  seed_reader.py table DIR     JSON: record counts, side-file counts and the
                               seed's "Top Events" table (waits and total
                               ms per event, samples counted as one wait of
                               one period each, io workers left out, as the
                               seed's dump counts them, samples an
                               escalation window covers left out)

The layout: file header 28 B {u32 magic "PGWT", u16 version (2 or 3), u16
flags (bit0 LZ4), u32 pg major, u64 realtime ns, u64 monotonic ns}; blocks
of a 40 B header {u64 first_ts, u64 last_ts, u32 n, u32 compressed, u32
uncompressed, u16 type, u16 reserved, u64 sample period} and a columnar
payload whose first ts delta counts from 0 and whose later deltas are
differences modulo 2^64; archives end in N x {u64 first_ts, u64 offset}
and u32 N; the live current.trace is read to the count in
current.trace.meta (a bare decimal), or, with no .meta, to its last
complete block.
"""
import glob
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_format import M64, MAGIC, leb_column, read_leb, u32_column, u64_column  # noqa: E402
from golden_read import lz4_decompress  # noqa: E402

MARK_FIRST, MARK_LAST = 0xFFFFFFF0, 0xFFFFFFF7
ESC_START, ESC_END = 0xFFFFFFF4, 0xFFFFFFF5
CLASSES = {"LWLock": 1, "Lock": 3, "BufferPin": 4, "Activity": 5, "Client": 6,
           "Extension": 7, "IPC": 8, "Timeout": 9, "IO": 10, "InjectionPoint": 11}


class Damaged(Exception):
    pass


def block(data, off, version, flags):
    """(records, next offset) of the block at off; Damaged when it is not whole."""
    if off + 40 > len(data):
        raise Damaged("header cut at %d" % off)
    ft, lt, n, comp, unc, btype, _res, period = struct.unpack_from("<QQIIIHHQ", data, off)
    end = off + 40 + comp
    if n < 1 or n > 4096 or btype not in (0, 1) or end > len(data):
        raise Damaged("block at %d" % off)
    stored = data[off + 40:end]
    raw = lz4_decompress(stored, unc) if flags & 1 else stored
    pos = 0
    ts, t = [], 0
    for _ in range(n):
        d, pos = read_leb(raw, pos)
        t = (t + d) & M64
        ts.append(t)
    if ts[0] != ft or ts[-1] != lt:
        raise Damaged("block at %d: deltas do not reach its header's range" % off)

    pid, pos = u32_column(raw, pos, n)
    if btype == 0:
        old, pos = u32_column(raw, pos, n)
        new, pos = u32_column(raw, pos, n)
        dur, pos = leb_column(raw, pos, n)
        qid, pos = u64_column(raw, pos, n)
        cpu, pos = leb_column(raw, pos, n) if version >= 3 else ([M64] * n, pos)
        recs = [dict(kind="T", ts=ts[k], pid=pid[k], old=old[k], new=new[k], dur=dur[k],
                     qid=qid[k], cpu=cpu[k]) for k in range(n)]
    else:
        ev, pos = u32_column(raw, pos, n)
        qid, pos = u64_column(raw, pos, n)
        recs = [dict(kind="S", ts=ts[k], pid=pid[k], ev=ev[k], qid=qid[k], w=period)
                for k in range(n)]
    if pos != unc:
        raise Damaged("block at %d: columns do not fill the payload" % off)
    return recs, end


def read_file(path, live):
    data = open(path, "rb").read()
    magic, version, flags, pg, rt, mono = struct.unpack_from("<IHHIQQ", data, 0)
    if magic != MAGIC or version not in (2, 3):
        raise Damaged("%s: not a v2/v3 trace" % path)
    offsets = []
    if not live:
        n = struct.unpack_from("<I", data, len(data) - 4)[0]
        foot = len(data) - 4 - 16 * n
        offsets = [struct.unpack_from("<QQ", data, foot + 16 * i)[1] for i in range(n)]
        limit = None
    else:
        meta = path + ".meta"
        limit = int(open(meta).read().strip()) if os.path.exists(meta) else None
    recs, off, k = [], 28, 0
    while True:
        if not live:
            if k >= len(offsets):
                break
            off = offsets[k]
        elif (limit is not None and k >= limit) or off >= len(data):
            break
        try:
            got, off = block(data, off, version, flags)
        except Damaged:
            if live and limit is None:
                break           # no .meta: the torn tail is not committed yet
            raise
        recs += got
        k += 1
    return dict(pg=pg, version=version, records=recs)


def read_dir(d):
    files = sorted(glob.glob(os.path.join(d, "*.trace.lz4")))
    out = [read_file(f, False) for f in files]
    cur = os.path.join(d, "current.trace")
    if os.path.exists(cur):
        out.append(read_file(cur, True))
    return out


def jsonl(d, name):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        return []
    return [json.loads(x) for x in open(p, encoding="utf-8") if x.strip()]


def as_ours(r):
    """TRACE_FORMAT 7.1: a seed marker read as ours."""
    r = dict(r)
    if r["kind"] != "T":
        return r
    m = r["new"] if MARK_FIRST <= r["new"] <= MARK_LAST else \
        r["old"] if MARK_FIRST <= r["old"] <= MARK_LAST else None
    if m is None:
        return r
    r["new"] = m
    if m in (ESC_START, ESC_END):
        secs, reason = r["qid"] >> 8, r["qid"] & 0xFF
        r["old"] = 0 if m == ESC_END else {0: 1, 1: 2, 6: 5}.get(reason, 0)
        r["dur"] = secs * 1_000_000_000
        r["qid"] = 0
    else:
        r["old"] = 0
        r["dur"] = 0
    return r


def line(r):
    if r["kind"] == "T":
        return "T ts=%d pid=%d old=0x%08x new=0x%08x dur=%d qid=%d cpu=%d" % (
            r["ts"], r["pid"], r["old"], r["new"], r["dur"], r["qid"], r["cpu"])
    return "S ts=%d pid=%d ev=0x%08x qid=%d w=%d" % (r["ts"], r["pid"], r["ev"], r["qid"], r["w"])


def event_name(names, ev):
    cls, num = ev >> 24, ev & 0xFFFFFF
    for k, v in names.items():
        if CLASSES.get(k) == cls and isinstance(v, list) and num < len(v) and v[num]:
            return "%s:%s" % (k, v[num])
    return "0x%08x" % ev


def table(d):
    files = read_dir(d)
    names = {}
    p = os.path.join(d, "wait_event_names.json")
    if os.path.exists(p):
        names = json.load(open(p, encoding="utf-8"))
    backends = jsonl(d, "backends.jsonl")
    io = {b["pid"] for b in backends if b.get("type") == "io_worker"}
    recs = sorted((as_ours(r) for f in files for r in f["records"]), key=lambda r: r["ts"])
    # samples inside an escalation window give way to its exact records
    wins, start = [], None
    for r in recs:
        if r["kind"] == "T" and r["new"] == ESC_START:
            start = (r["ts"], r["ts"] + r["dur"])
        elif r["kind"] == "T" and r["new"] == ESC_END and start:
            wins.append((start[0], r["ts"]))
            start = None
    if start:
        wins.append(start)
    recs = [r for r in recs if r["kind"] == "T" or
            not any(a <= r["ts"] <= b for a, b in wins)]
    ev = {}

    def add(name, dur):
        w, t = ev.get(name, (0, 0))
        ev[name] = (w + 1, t + dur)

    for r in recs:
        if r["pid"] in io:
            continue
        if r["kind"] == "S":
            add("CPU*" if r["ev"] == 0 else event_name(names, r["ev"]), r["w"])
        elif MARK_FIRST <= r["new"] <= MARK_LAST:
            continue
        elif r["old"] == 0:
            add("CPU*", r["dur"])
        elif r["old"] != 0xFFFFFFFF:
            add(event_name(names, r["old"]), r["dur"])
    return dict(transitions=sum(r["kind"] == "T" for r in recs),
                samples=sum(r["kind"] == "S" for r in recs),
                backends=len(backends), queries=len(jsonl(d, "query_texts.jsonl")),
                pg=[f["pg"] for f in files],
                events={k: [w, round(t / 1e6, 1)] for k, (w, t) in ev.items()})


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "records":
        for s in sorted(line(as_ours(r)) for f in read_dir(sys.argv[2]) for r in f["records"]):
            print(s)
    elif len(sys.argv) == 3 and sys.argv[1] == "table":
        print(json.dumps(table(sys.argv[2]), sort_keys=True))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
