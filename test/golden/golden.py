#!/usr/bin/env python3
"""Independent encoder/decoder of the published trace layout (v2..v4, v6
and v7 TRANSITIONS; v5 and v8 TRANSITIONS are decoded only).

It shares no code with tracefmt/: it is written from docs/TRACE_FORMAT.md
so the golden files test the C reader against the spec, not against the C
writer. This file is the encoder and the command line; the decoder is
golden_read.py, what both use golden_format.py.

  golden.py make DIR      write the hand-built golden files and their
                          expected dumps into DIR
  golden.py dump FILE     decode FILE (own LZ4 decoder) and print the dump
                          in tfdump's format (records and block lines only)
  golden.py truth FILE TRUTH.json
                          check pgwt-synth's truth against FILE's records
"""
import heapq
import math
import struct
import sys

from golden_format import *  # noqa: F401,F403
from golden_read import dump, truth  # noqa: F401


def lz4_literals_only(data):
    """A valid LZ4 block holding data as one run of literals (no matches)."""
    n = len(data)
    if n < 15:
        return bytes([n << 4]) + data
    out = bytearray([0xF0])
    rest = n - 15
    while rest >= 255:
        out.append(255)
        rest -= 255
    out.append(rest)
    return bytes(out) + data


def v6_columns(recs):
    """TRACE_FORMAT.md 3.1.2, encoder side. Tables list values in order of
    first appearance (the spec allows any order; our C writer sorts pids by
    frequency), so the C reader is tested on an order its writer never uses."""
    pids, events, queries = [], [], []
    last, last_any = {}, {}
    codes = bytearray()
    cols = [bytearray() for _ in range(7)]
    for r in recs:
        if r["pid"] not in pids:
            pids.append(r["pid"])
    for r in recs:
        idx = pids.index(r["pid"])
        L = last.get(idx)
        A = last_any.get(idx)
        code = idx if idx < 15 else 15
        if idx >= 15:
            cols[0] += leb(idx)
        extra = 0
        if r["old"] != (L["new"] if L else 0):
            extra |= 1
            if r["old"] not in events:
                events.append(r["old"])
            cols[2] += leb(events.index(r["old"]))
        if r["new"] != (L["old"] if L else 0):
            code |= 0x10
            if r["new"] not in events:
                events.append(r["new"])
            cols[3] += leb(events.index(r["new"]))
        dpred = r["ts"] - L["ts"] if L else 0
        if r["dur"] != dpred:
            extra |= 2
            cols[4] += leb(zigzag64(r["dur"] - dpred))
        if r["qid"] != (A["qid"] if A else 0):
            code |= 0x20
            if r["qid"] not in queries:
                queries.append(r["qid"])
            cols[5] += leb(queries.index(r["qid"]))
        if r["cpu"] != CPU_UNKNOWN:
            code |= 0x40
            cols[6] += leb(zigzag64(r["cpu"] - (r["dur"] if r["old"] == 0 else 0)))
        if extra:
            code |= 0x80
            cols[1].append(extra)
        codes.append(code)
        last_any[idx] = r
        if not (0xFFFFFFF0 <= r["new"] <= 0xFFFFFFFE):
            last[idx] = r
    out = bytearray(codes)
    out += leb(len(pids)) + b"".join(struct.pack("<I", v) for v in pids)
    out += leb(len(events)) + b"".join(struct.pack("<I", v) for v in events)
    out += leb(len(queries)) + b"".join(struct.pack("<Q", v) for v in queries)
    out += b"".join(leb(len(c)) for c in cols) + b"".join(bytes(c) for c in cols)
    return bytes(out)


def v7_ts_symbol(d):
    """TRACE_FORMAT.md 3.1.3: (symbol, number of raw bits) of a ts delta."""
    if d < 8:
        return d, 0
    b = d.bit_length()
    return 8 + 4 * (b - 4) + ((d >> (b - 3)) & 3), b - 3


def huffman_lengths(freq):
    """Code lengths of a Huffman code (a heap of subtrees; ties broken by
    insertion order, not as the C writer does)."""
    used = [s for s in range(len(freq)) if freq[s]]
    if len(used) == 1:
        return {used[0]: 1}
    heap = [(freq[s], i, [s]) for i, s in enumerate(used)]
    heapq.heapify(heap)
    depth = dict((s, 0) for s in used)
    n = len(heap)
    while len(heap) > 1:
        f1, _, a = heapq.heappop(heap)
        f2, _, b = heapq.heappop(heap)
        for s in a + b:
            depth[s] += 1
        heapq.heappush(heap, (f1 + f2, n, a + b))
        n += 1
    assert max(depth.values()) <= 11, "golden input too skewed for this encoder"
    return depth


def v7_table(lengths):
    a = max(lengths) + 1
    nib = [lengths.get(s, 0) for s in range(a)] + [0]
    return leb(a) + bytes(nib[i] | nib[i + 1] << 4 for i in range(0, a, 2))


def v7_transitions_payload(recs):
    cnt = len(recs)
    rest = v6_columns(recs)
    codes, rest = rest[:cnt], rest[cnt:]
    deltas = [0] + [recs[i]["ts"] - recs[i - 1]["ts"] for i in range(1, cnt)]
    unit = 0
    for d in deltas:
        unit = math.gcd(unit, d)
    unit = unit or 1
    syms = [v7_ts_symbol(d // unit) for d in deltas]
    tfreq = [0] * 252
    cfreq = [0] * 256
    for (s, _), c in zip(syms, codes):
        tfreq[s] += 1
        cfreq[c] += 1
    tl, cl = huffman_lengths(tfreq), huffman_lengths(cfreq)
    tc, cc = canonical(tl), canonical(cl)
    bits = []                   # in stream order
    for (s, nraw), d, c in zip(syms, deltas, codes):
        code, ln = tc[s]
        bits += [(code >> (ln - 1 - i)) & 1 for i in range(ln)]
        bits += [((d // unit) >> i) & 1 for i in range(nraw)]
        code, ln = cc[c]
        bits += [(code >> (ln - 1 - i)) & 1 for i in range(ln)]
    bits += [0] * (-len(bits) % 8)
    stream = bytes(sum(bits[i + j] << j for j in range(8)) for i in range(0, len(bits), 8))
    return leb(unit) + v7_table(tl) + v7_table(cl) + leb(len(stream)) + stream + rest


def v7_samples_columns(period, recs):
    """TRACE_FORMAT.md 3.2.1, encoder side (after the ts column)."""
    pids, events, queries = [], [], []
    for r in recs:
        if r["pid"] not in pids:
            pids.append(r["pid"])
    out = bytearray(leb(len(pids)))
    prevpid = 0
    for pid in pids:
        out += leb(zigzag64(pid - prevpid))
        prevpid = pid
    steps, changes, evcol, qcol = bytearray(), [], bytearray(), bytearray()
    last, prev, nxt = {}, None, 0
    for i, r in enumerate(recs):
        k = pids.index(r["pid"])
        expect = 0 if prev is None else (prev + 1) % len(pids)
        steps += leb((k - expect) % len(pids))
        L = last.get(k)
        f = 0
        evpred = L["ev"] if L else (recs[i - 1]["ev"] if i else 0)
        if r["ev"] != evpred:
            f |= 1
            if r["ev"] in events:
                evcol += leb(len(events) - events.index(r["ev"]))
            else:
                events.append(r["ev"])
                evcol += leb(0)
        if r["qid"] != (L["qid"] if L else 0):
            f |= 2
            if r["qid"] in queries:
                qcol += leb(len(queries) - queries.index(r["qid"]))
            else:
                queries.append(r["qid"])
                qcol += leb(0)
        if f:
            changes.append((i - nxt) << 2 | f)
            nxt = i + 1
        last[k] = r
        prev = k
    out += steps + leb(len(changes)) + b"".join(leb(c) for c in changes)
    out += leb(len(events)) + b"".join(struct.pack("<I", v) for v in events) + evcol
    out += leb(len(queries)) + b"".join(struct.pack("<Q", v) for v in queries) + qcol
    out += b"".join(leb(zigzag64((r["w"] if r["w"] is not None else period) - period)) for r in recs)
    return bytes(out)


def payload(version, btype, period, recs):
    if btype == 0 and version >= 7:
        return v7_transitions_payload(recs)
    first = recs[0]["ts"]
    p = bytearray()
    prev = first
    for r in recs:
        p += leb(r["ts"] - prev)
        prev = r["ts"]
    if btype == 1 and version >= 7:
        return bytes(p) + v7_samples_columns(period, recs)
    if btype == 0 and version >= 6:
        return bytes(p) + v6_columns(recs)
    p += b"".join(struct.pack("<I", r["pid"]) for r in recs)
    if btype == 0:
        p += b"".join(struct.pack("<I", r["old"]) for r in recs)
        p += b"".join(struct.pack("<I", r["new"]) for r in recs)
        p += b"".join(leb(r["dur"]) for r in recs)
        p += b"".join(struct.pack("<Q", r["qid"]) for r in recs)
        if version >= 3:
            p += b"".join(leb(r["cpu"]) for r in recs)
    else:
        p += b"".join(struct.pack("<I", r["ev"]) for r in recs)
        p += b"".join(struct.pack("<Q", r["qid"]) for r in recs)
        if version >= 4:
            for r in recs:
                d = r["w"] - period
                p += leb((d << 1) ^ (d >> 63) if d >= 0 else ((-d) << 1) - 1)
    return bytes(p)


def block(version, flags, btype, period, recs, damage=False):
    raw = payload(version, btype, period, recs)
    stored = lz4_literals_only(raw) if flags & 1 else raw
    if damage:
        # a literal run longer than the block: LZ4 must refuse it
        stored = bytes([0xF0, 0xFF, 0xFF]) + stored[3:]
    crc = checksum16(stored) if version >= 4 else 0
    hdr = struct.pack("<QQIIIHHQ", recs[0]["ts"], recs[-1]["ts"], len(recs),
                      len(stored), len(raw), btype, crc, period)
    return hdr + stored


def trace_file(version, flags, pg, rt, mono, blocks, footer=True):
    out = bytearray(struct.pack("<IHHIQQ", MAGIC, version, flags, pg, rt, mono))
    index = []
    for b, first_ts in blocks:
        index.append((first_ts, len(out)))
        out += b
    if footer:
        for ts, off in index:
            out += struct.pack("<QQ", ts, off)
        out += struct.pack("<I", len(index))
    return bytes(out)


def transitions_a():
    base = 5_000_000_000
    return [
        T(base, 101, 0x00000000, 0x0A000001, 1500, 0, 700),
        T(base + 1500, 101, 0x0A000001, 0x00000000, 1500, 0x1122334455667788, CPU_UNKNOWN),
        T(base + 1500, 102, 0x00000000, 0xFFFFFFF0, 0, 42, 0),        # exec start
        T(base + 90_000, 102, 0x03000000, 0x00000000, 88_500, 42, 88_000),
        T(base + 90_001, 0, 0x00000001, 0xFFFFFFF4, 30_000_000_000, 0, CPU_UNKNOWN),  # esc start
        T(base + 2_000_000, 103, 0x06000000, EXIT, (1 << 63), (1 << 64) - 1, 5),
        T(base + 2_000_000, 0xFFFFFFFF, 0xFFFFFFF7, 0x09000002, 127, 1, 128),
    ]


def samples_a(period):
    base = 5_000_000_000
    return [
        S(base + 10_000_000 * i, 200 + i % 3, [0, 0x06000000, 0x0A000001][i % 3], i, period)
        for i in range(6)
    ]


def make(outdir):
    files = {}
    rt, mono, pg = 1_700_000_000_123_456_789, 4_999_000_000, 150004
    period = 10_000_000

    # v2: transitions (no cpu column) and samples, LZ4, two transition blocks
    ta = transitions_a()
    sa = samples_a(period)
    blocks = [(block(2, 1, 0, 0, ta[:4]), ta[0]["ts"]),
              (block(2, 1, 1, period, sa), sa[0]["ts"]),
              (block(2, 1, 0, 0, ta[4:]), ta[4]["ts"])]
    exp = dump_lines(2, 0, 0, ta[:4]) + dump_lines(2, 1, period, sa) + dump_lines(2, 0, 0, ta[4:])
    files["v2_mixed"] = (trace_file(2, 1, pg, rt, mono, blocks), 2, 1, exp, dict(blocks=3, bad=0))

    # v3: cpu column, a block of 4096 transitions (ts deltas, big values)
    big = [T(6_000_000_000 + i * 977, 1000 + i % 37, i % 5, (i + 1) % 5,
             (i * 2654435761) % (1 << 40), i // 100, CPU_UNKNOWN if i % 11 == 0 else i * 13)
           for i in range(1000)]
    blocks = [(block(3, 1, 0, 0, ta), ta[0]["ts"]),
              (block(3, 1, 0, 0, big), big[0]["ts"]),
              (block(3, 1, 1, period, sa), sa[0]["ts"])]
    exp = dump_lines(3, 0, 0, ta) + dump_lines(3, 0, 0, big) + dump_lines(3, 1, period, sa)
    files["v3_mixed"] = (trace_file(3, 1, pg, rt, mono, blocks), 3, 1, exp, dict(blocks=3, bad=0))

    # v3 without LZ4 (flags bit0 clear): payloads stored raw
    blocks = [(block(3, 0, 0, 0, ta), ta[0]["ts"]), (block(3, 0, 1, period, sa), sa[0]["ts"])]
    exp = dump_lines(3, 0, 0, ta) + dump_lines(3, 1, period, sa)
    files["v3_raw"] = (trace_file(3, 0, pg, rt, mono, blocks), 3, 0, exp, dict(blocks=2, bad=0))

    # v3 with a damaged middle block: skipped and counted, the others read
    blocks = [(block(3, 1, 0, 0, ta[:3]), ta[0]["ts"]),
              (block(3, 1, 0, 0, ta[3:5], damage=True), ta[3]["ts"]),
              (block(3, 1, 1, period, sa), sa[0]["ts"])]
    exp = dump_lines(3, 0, 0, ta[:3]) + dump_lines(3, 1, period, sa)
    files["v3_damaged"] = (trace_file(3, 1, pg, rt, mono, blocks), 3, 1, exp, dict(blocks=2, bad=1))

    # v3 without a footer (as a crashed writer leaves it): read by scanning
    blocks = [(block(3, 1, 0, 0, ta), ta[0]["ts"])]
    exp = dump_lines(3, 0, 0, ta)
    files["v3_nofooter"] = (trace_file(3, 1, pg, rt, mono, blocks, footer=False), 3, 1, exp,
                            dict(blocks=1, bad=0, footers_bad=1))

    # v4 from this encoder: per-sample weights and the CRC in the header
    sw = [dict(r, w=period + (i * 7919) % 3_000_000 - 1_000_000) for i, r in enumerate(sa)]
    blocks = [(block(4, 1, 0, 0, ta), ta[0]["ts"]), (block(4, 1, 1, period, sw), sw[0]["ts"])]
    exp = dump_lines(4, 0, 0, ta) + dump_lines(4, 1, period, sw)
    files["v4_handmade"] = (trace_file(4, 1, pg, rt, mono, blocks), 4, 1, exp, dict(blocks=2, bad=0))

    # v6 from this encoder: predicted transitions (markers, an exit, pid
    # table escapes past 15 pids, cpu known and unknown, explicit old
    # events and duration residuals)
    chain = []
    t = 7_000_000_000
    state = {}
    for i in range(600):
        pid = 2000 + (i * 7) % 20
        old_ev, last_t = state.get(pid, (0, t - 1000))
        new_ev = 0 if old_ev else (0x0A000001, 0x01000000, 0x06000000)[i % 3]
        cpu = CPU_UNKNOWN if i % 4 else (t - last_t if old_ev == 0 else 3)
        chain.append(T(t, pid, old_ev, new_ev, t - last_t, 11 + (i // 50) % 3, cpu))
        state[pid] = (new_ev, t)
        t += 500 + (i * 7919) % 40_000
    blocks = [(block(6, 1, 0, 0, ta), ta[0]["ts"]), (block(6, 1, 1, period, sw), sw[0]["ts"]),
              (block(6, 1, 0, 0, big), big[0]["ts"]), (block(6, 1, 0, 0, chain), chain[0]["ts"])]
    exp = (dump_lines(6, 0, 0, ta) + dump_lines(6, 1, period, sw) + dump_lines(6, 0, 0, big) +
           dump_lines(6, 0, 0, chain))
    files["v6_handmade"] = (trace_file(6, 1, pg, rt, mono, blocks), 6, 1, exp, dict(blocks=4, bad=0))

    # v7 from this encoder: the same blocks, transitions as entropy-coded
    # streams (3.1.3), plus a microsecond chain stored in a unit of 1000
    t = 8_000_000_000
    us_chain = []
    for i, r in enumerate(chain):
        us_chain.append(dict(r, ts=t, dur=r["dur"] // 1000 * 1000 + 1000,
                             cpu=CPU_UNKNOWN if i % 3 else 1000 * i))
        t += 1000 * (1 + (i * 7919) % 37)
    # sampler ticks of 5 backends (one joins late, one changes event, one
    # its query id; order changes once) for the v7 SAMPLES columns
    ticks = []
    for k in range(8):
        order = [300, 301, 302, 303] + ([304] if k >= 3 else [])
        if k == 6:
            order = order[::-1]
        for pid in order:
            ev = 0x0A000001 if (pid == 301 and k in (2, 3)) else (0 if pid == 302 else 0x06000000)
            q = 77 if pid == 303 and k >= 5 else 1000 + pid
            ticks.append(S(9_000_000_000 + k * period, pid, ev, q, period + 1000 * (k % 3) - 1000))
    blocks = [(block(7, 1, 1, period, ticks), ticks[0]["ts"]),
              (block(7, 1, 0, 0, ta), ta[0]["ts"]), (block(7, 1, 1, period, sw), sw[0]["ts"]),
              (block(7, 1, 0, 0, big), big[0]["ts"]), (block(7, 1, 0, 0, chain), chain[0]["ts"]),
              (block(7, 1, 0, 0, us_chain), us_chain[0]["ts"])]
    exp = (dump_lines(7, 1, period, ticks) + dump_lines(7, 0, 0, ta) + dump_lines(7, 1, period, sw) +
           dump_lines(7, 0, 0, big) + dump_lines(7, 0, 0, chain) + dump_lines(7, 0, 0, us_chain))
    files["v7_handmade"] = (trace_file(7, 1, pg, rt, mono, blocks), 7, 1, exp, dict(blocks=6, bad=0))

    for name, (data, version, flags, exp, st) in files.items():
        exp = order_blocks(exp)
        with open("%s/%s.trace.lz4" % (outdir, name), "wb") as f:
            f.write(data)
        nrec = sum(1 for l in exp if l[0] in "TS")
        head = ["file v%d flags=%d pg=%d rt=%d mono=%d" % (version, flags, pg, rt, mono)]
        tail = ["stats files=1 files_bad=0 footers_bad=%d blocks=%d blocks_bad=%d records=%d truncated=%d" %
                (st.get("footers_bad", 0), st["blocks"], st["bad"], nrec, 0)]
        with open("%s/%s.expected" % (outdir, name), "w") as f:
            f.write("\n".join(head + exp + tail) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "truth":
        truth(sys.argv[2], sys.argv[3])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
