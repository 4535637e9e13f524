"""The golden decoder of the published trace layout: every TRANSITIONS
version (v2..v8) and SAMPLES, with its own LZ4 decoder, written from
docs/TRACE_FORMAT.md with no code shared with tracefmt/ (golden.py's
"dump" and "truth" commands).
"""
import struct
import sys
import json

from golden_format import *  # noqa: F401,F403


def lz4_decompress(src, size):
    out = bytearray()
    i = 0
    while i < len(src):
        token = src[i]
        i += 1
        lit = token >> 4
        if lit == 15:
            while True:
                b = src[i]
                i += 1
                lit += b
                if b != 255:
                    break
        out += src[i:i + lit]
        i += lit
        if i >= len(src):
            break
        off = src[i] | (src[i + 1] << 8)
        i += 2
        ml = token & 15
        if ml == 15:
            while True:
                b = src[i]
                i += 1
                ml += b
                if b != 255:
                    break
        ml += 4
        for _ in range(ml):
            out.append(out[-off])
    if len(out) != size:
        raise ValueError("lz4 size mismatch")
    return bytes(out)


def v5_transitions(raw, pos, cnt, ts):
    """TRACE_FORMAT.md 3.1.1: columns predicted through a 1024-slot table."""
    def is_marker(ev):
        return 0xFFFFFFF0 <= ev <= 0xFFFFFFF7

    pid = list(struct.unpack_from("<%dI" % cnt, raw, pos))
    new = list(struct.unpack_from("<%dI" % cnt, raw, pos + 4 * cnt))
    pos += 8 * cnt

    def column(step, is_query=False):
        """Runs the slot table over the records; step(k, slot) -> value."""
        table = {}
        vals = []
        for k in range(cnt):
            e = table.get(pid[k] & 1023)
            if e is None or e["pid"] != pid[k]:
                e = {"pid": pid[k], "state": 0}
                table[pid[k] & 1023] = e
            vals.append(step(k, e))
            if is_query:
                e["q"] = vals[-1]
            if not is_marker(new[k]):
                e["new"] = new[k]
                e["ts"] = ts[k]
                e["state"] = 2
            elif e["state"] == 0:
                e["state"] = 1
        return vals

    cur = [pos]

    def leb_next():
        v, cur[0] = read_leb(raw, cur[0])
        return v

    def oldstep(k, e):
        v = leb_next()
        if v == 0:
            assert e["state"] == 2, "old code 0 without a previous record"
            return e["new"]
        assert v <= 1 << 32
        return v - 1

    def durstep(k, e):
        expect = ts[k] - e["ts"] if e["state"] == 2 else 0
        return (expect + unzigzag(leb_next())) & M64

    old = column(oldstep)
    dur = column(durstep)
    qcode = raw[cur[0]: cur[0] + cnt]
    qx = [cur[0] + cnt]

    def qstep(k, e):
        if qcode[k] == 0:
            assert e["state"] != 0, "query code 0 for an unseen pid"
            return e["q"]
        assert qcode[k] == 1
        v = struct.unpack_from("<Q", raw, qx[0])[0]
        qx[0] += 8
        return v

    qid = column(qstep, True)
    cur[0] = qx[0]
    cpu = [(leb_next() - 1) & M64 for _ in range(cnt)]
    recs = [T(ts[k], pid[k], old[k], new[k], dur[k], qid[k], cpu[k]) for k in range(cnt)]
    return recs, cur[0]


def tables_and_columns(raw, pos, cnt):
    """TRACE_FORMAT.md 3.1.2, as v6 and v8 share it: the pid, event and
    query tables, then seven column lengths and the columns: (pids, events,
    queries, [[start, end] per column], pos after the last column)."""
    np_, pos = read_leb(raw, pos)
    assert 1 <= np_ <= cnt
    pids, pos = u32_column(raw, pos, np_)
    ne, pos = read_leb(raw, pos)
    assert ne <= 2 * cnt
    events, pos = u32_column(raw, pos, ne)
    nq, pos = read_leb(raw, pos)
    assert nq <= cnt
    queries, pos = u64_column(raw, pos, nq)
    lens, pos = leb_column(raw, pos, 7)
    cols = []
    for ln in lens:
        cols.append([pos, pos + ln])
        pos += ln
    return pids, events, queries, cols, pos


def v6_transitions(raw, pos, cnt, ts, codes=None):
    """TRACE_FORMAT.md 3.1.2: per-pid predictions, tables, exception columns."""
    if codes is None:
        codes = raw[pos: pos + cnt]
        pos += cnt
    pids, events, queries, cols, pos = tables_and_columns(raw, pos, cnt)
    np_, ne, nq = len(pids), len(events), len(queries)
    assert pos == len(raw), "column lengths do not fill the payload"
    PID, EXTRA, OLD, NEW, DUR, QUERY, CPU = range(7)

    def take(c):
        v, cols[c][0] = read_leb(raw, cols[c][0])
        assert cols[c][0] <= cols[c][1], "column overrun"
        return v

    last = {}      # pid index -> last non-marker record (L)
    last_any = {}  # pid index -> last record (A)
    recs = []
    for k in range(cnt):
        c = codes[k]
        idx = c & 15
        if idx == 15:
            idx = take(PID)
            assert idx >= 15
        assert idx < np_
        L = last.get(idx)
        A = last_any.get(idx)
        extra = 0
        if c & 0x80:
            extra = raw[cols[EXTRA][0]]
            cols[EXTRA][0] += 1
            assert cols[EXTRA][0] <= cols[EXTRA][1] and extra in (1, 2, 3)
        if extra & 1:
            i = take(OLD)
            assert i < ne
            old = events[i]
        else:
            old = L["new"] if L else 0
        if c & 0x10:
            i = take(NEW)
            assert i < ne
            new = events[i]
        else:
            new = L["old"] if L else 0
        dur = ts[k] - L["ts"] if L else 0
        if extra & 2:
            dur = (dur + unzigzag(take(DUR))) & M64
        if c & 0x20:
            i = take(QUERY)
            assert i < nq
            q = queries[i]
        else:
            q = A["qid"] if A else 0
        if c & 0x40:
            cpu = ((dur if old == 0 else 0) + unzigzag(take(CPU))) & M64
        else:
            cpu = CPU_UNKNOWN
        r = T(ts[k], pids[idx], old, new, dur, q, cpu)
        recs.append(r)
        last_any[idx] = r
        if not (0xFFFFFFF0 <= new <= 0xFFFFFFFE):
            last[idx] = r
    for c in cols:
        assert c[0] == c[1], "exception column not used up"
    return recs, pos


def v7_read_table(raw, pos, nsym):
    a, pos = read_leb(raw, pos)
    assert 1 <= a <= nsym
    lens = {}
    for s in range(a):
        ln = (raw[pos + s // 2] >> (4 * (s & 1))) & 15
        assert ln <= 11
        if ln:
            lens[s] = ln
    assert not (a & 1) or raw[pos + a // 2] >> 4 == 0
    assert sum(2.0 ** -ln for ln in lens.values()) <= 1
    return dict(((c, ln), s) for s, (c, ln) in canonical(lens).items()), pos + (a + 1) // 2


def v7_transitions(raw, pos, cnt, first_ts, last_ts):
    """TRACE_FORMAT.md 3.1.3: unit, two code tables, the bit stream, then v6's rest."""
    unit, pos = read_leb(raw, pos)
    assert unit >= 1
    ttab, pos = v7_read_table(raw, pos, 252)
    ctab, pos = v7_read_table(raw, pos, 256)
    blen, pos = read_leb(raw, pos)
    stream = raw[pos: pos + blen]
    assert len(stream) == blen
    bitpos = [0]

    def bit():
        i = bitpos[0]
        bitpos[0] += 1
        return (stream[i // 8] >> (i % 8)) & 1

    def symbol(tab):
        code = ln = 0
        while (code, ln) not in tab:
            code = code << 1 | bit()
            ln += 1
            assert ln <= 11
        return tab[(code, ln)]

    ts, codes, t = [], bytearray(), first_ts
    for _ in range(cnt):
        s = symbol(ttab)
        if s < 8:
            d = s
        else:
            nraw = (s - 8) // 4 + 1
            d = (4 | (s & 3)) << nraw
            d |= sum(bit() << i for i in range(nraw))
        t += d * unit
        assert t <= last_ts
        ts.append(t)
        codes.append(symbol(ctab))
    assert blen * 8 - bitpos[0] < 8
    while bitpos[0] < blen * 8:
        assert bit() == 0, "padding"
    return v6_transitions(raw, pos + blen, cnt, ts, bytes(codes))


def v8_transitions(raw, pos, cnt, first_ts, last_ts):
    """TRACE_FORMAT.md 3.1.4: units, tables, columns, code tables, then the
    bit stream, each record read in one pass (code, pid, new, ts, rest)."""
    units = []
    for _ in range(2):
        u, pos = read_leb(raw, pos)
        assert u >= 1
        units.append(u)
    pids, events, queries, cols, pos = tables_and_columns(raw, pos, cnt)
    np_, ne, nq = len(pids), len(events), len(queries)
    PID, EXTRA, OLD, NEW, DUR, QUERY, CPU = range(7)
    ctab, pos = v7_read_table(raw, pos, 256)
    ttabs = []
    for _ in range(17):
        t, pos = v7_read_table(raw, pos, 252)
        ttabs.append(t)
    stream = raw[pos:]
    bitpos = [0]

    def bit():
        i = bitpos[0]
        bitpos[0] += 1
        assert i < 8 * len(stream), "stream overrun"
        return (stream[i // 8] >> (i % 8)) & 1

    def symbol(tab):
        code = ln = 0
        while (code, ln) not in tab:
            code = code << 1 | bit()
            ln += 1
            assert ln <= 11
        return tab[(code, ln)]

    def take(c):
        v, cols[c][0] = read_leb(raw, cols[c][0])
        assert cols[c][0] <= cols[c][1], "column overrun"
        return v

    def is_marker(ev):
        return 0xFFFFFFF0 <= ev <= 0xFFFFFFFE

    succ = {}      # entry number -> [tag, c_old, c_new, s0, s1]
    last, last_any, recs, prev = {}, {}, [], first_ts
    for _ in range(cnt):
        c = symbol(ctab)
        idx = c & 15
        if idx == 15:
            idx = take(PID)
            assert idx >= 15
        assert idx < np_
        L, A = last.get(idx), last_any.get(idx)
        entry = None
        s0 = s1 = 0
        if A:
            h = ((idx * 2654435761) ^ (A["new"] * 2246822519) ^ (A["old"] * 3266489917)) & 0xFFFFFFFF
            entry = h >> 22
            e = succ.get(entry)
            if e and e[0] == idx + 1 and e[1] == A["old"] and e[2] == A["new"]:
                s0, s1 = e[3], e[4]
        mode = (c >> 4) & 3
        if mode == 0:
            new = s0
        elif mode == 1:
            new = L["old"] if L else 0
        elif mode == 2:
            new = s1
        else:
            i = take(NEW)
            assert i < ne
            new = events[i]
        if A and is_marker(new):
            tab, base, unit = 2 + new - 0xFFFFFFF0, A["ts"], units[1]
        else:
            tab, base, unit = (1 if new == 0 else 0), prev, units[0]
        s = symbol(ttabs[tab])
        if s < 8:
            v = s
        else:
            nraw = (s - 8) // 4 + 1
            v = (4 | (s & 3)) << nraw
            v |= sum(bit() << i for i in range(nraw))
        ts = base + v * unit
        assert prev <= ts <= last_ts, "ts out of order or range"
        extra = 0
        if c & 0x80:
            extra = raw[cols[EXTRA][0]]
            cols[EXTRA][0] += 1
            assert cols[EXTRA][0] <= cols[EXTRA][1] and extra and not extra & ~7
        if extra & 1:
            i = take(OLD)
            assert i < ne
            old = events[i]
        else:
            old = L["new"] if L else 0
        dur = ts - L["ts"] if L else 0
        if extra & 2:
            dur = (dur + unzigzag(take(DUR))) & M64
        if c & 0x40:
            i = take(QUERY)
            assert i < nq
            q = queries[i]
        else:
            q = A["qid"] if A else 0
        if extra & 4:
            cpu = ((dur if old == 0 else 0) + unzigzag(take(CPU))) & M64
        else:
            cpu = CPU_UNKNOWN
        r = T(ts, pids[idx], old, new, dur, q, cpu)
        recs.append(r)
        if A:
            e = succ.get(entry)
            if not (e and e[0] == idx + 1 and e[1] == A["old"] and e[2] == A["new"]):
                succ[entry] = [idx + 1, A["old"], A["new"], new, 0]
            elif e[3] != new:
                e[4], e[3] = e[3], new
        last_any[idx] = r
        if not is_marker(new):
            last[idx] = r
        prev = ts
    for col in cols:
        assert col[0] == col[1], "exception column not used up"
    assert len(stream) * 8 - bitpos[0] < 8, "stream longer than its records"
    while bitpos[0] < len(stream) * 8:
        assert bit() == 0, "padding"
    return recs, len(raw)


def v7_samples(raw, pos, cnt, ts, period):
    """TRACE_FORMAT.md 3.2.1, decoder side."""
    np_, pos = read_leb(raw, pos)
    assert 1 <= np_ <= cnt
    pids, prevpid = [], 0
    for _ in range(np_):
        v, pos = read_leb(raw, pos)
        prevpid += unzigzag(v)
        assert 0 <= prevpid <= 0xFFFFFFFF
        pids.append(prevpid)
    idx, prev = [], None
    for _ in range(cnt):
        v, pos = read_leb(raw, pos)
        assert v < np_
        prev = ((0 if prev is None else (prev + 1) % np_) + v) % np_
        idx.append(prev)
    nchg, pos = read_leb(raw, pos)
    assert nchg <= cnt
    flags, at = [0] * cnt, 0
    for _ in range(nchg):
        v, pos = read_leb(raw, pos)
        assert v & 3 and at + (v >> 2) < cnt
        at += v >> 2
        flags[at] = v & 3
        at += 1

    def table(pos, width):
        m, pos = read_leb(raw, pos)
        assert m <= cnt
        fmt = "<%d%s" % (m, "I" if width == 4 else "Q")
        return list(struct.unpack_from(fmt, raw, pos)), pos + width * m

    def pick(tab, seen, pos):
        v, pos = read_leb(raw, pos)
        if v == 0:
            assert seen[0] < len(tab)
            seen[0] += 1
            return tab[seen[0] - 1], pos
        assert v <= seen[0]
        return tab[seen[0] - v], pos

    events, pos = table(pos, 4)
    evs, last, seen = [], {}, [0]
    for i in range(cnt):
        if flags[i] & 1:
            e, pos = pick(events, seen, pos)
            assert e < 0xFFFFFFF0
        else:
            e = last[idx[i]] if idx[i] in last else (evs[i - 1] if i else 0)
        evs.append(e)
        last[idx[i]] = e
    queries, pos = table(pos, 8)
    qs, last, seen = [], {}, [0]
    for i in range(cnt):
        if flags[i] & 2:
            q, pos = pick(queries, seen, pos)
        else:
            q = last.get(idx[i], 0)
        qs.append(q)
        last[idx[i]] = q
    recs = []
    for i in range(cnt):
        z, pos = read_leb(raw, pos)
        w = period + unzigzag(z)
        assert 0 <= w < 1 << 63
        recs.append(S(ts[i], pids[idx[i]], evs[i], qs[i], w))
    return recs, pos


def dump(path):
    """Decodes a well-formed file through its footer; prints block+record lines."""
    data = open(path, "rb").read()
    magic, version, flags, pg, rt, mono = struct.unpack_from("<IHHIQQ", data, 0)
    assert magic == MAGIC
    n = struct.unpack_from("<I", data, len(data) - 4)[0]
    foot = len(data) - 4 - 16 * n
    out = []
    for i in range(n):
        first, off = struct.unpack_from("<QQ", data, foot + 16 * i)
        ft, lt, cnt, comp, unc, btype, crc, period = struct.unpack_from("<QQIIIHHQ", data, off)
        stored = data[off + 40: off + 40 + comp]
        if version >= 4:
            assert checksum16(stored) == crc, "checksum"
        raw = lz4_decompress(stored, unc) if flags & 1 else stored
        pos = 0
        if btype == 0 and version >= 8:
            recs, pos = v8_transitions(raw, pos, cnt, ft, lt)
            assert pos == unc, "columns do not fill the payload"
            out += dump_lines(version, btype, period, recs)
            continue
        if btype == 0 and version >= 7:
            recs, pos = v7_transitions(raw, pos, cnt, ft, lt)
            assert pos == unc, "columns do not fill the payload"
            out += dump_lines(version, btype, period, recs)
            continue
        ts = []
        t = ft
        for _ in range(cnt):
            d, pos = read_leb(raw, pos)
            t += d
            ts.append(t)

        recs = []
        if btype == 1 and version >= 7:
            recs, pos = v7_samples(raw, pos, cnt, ts, period)
            assert pos == unc, "columns do not fill the payload"
            out += dump_lines(version, btype, period, recs)
            continue
        if btype == 0 and version == 5:
            recs, pos = v5_transitions(raw, pos, cnt, ts)
            assert pos == unc, "columns do not fill the payload"
            out += dump_lines(version, btype, period, recs)
            continue
        if btype == 0 and version >= 6:
            recs, pos = v6_transitions(raw, pos, cnt, ts)
            assert pos == unc, "columns do not fill the payload"
            out += dump_lines(version, btype, period, recs)
            continue
        pid, pos = u32_column(raw, pos, cnt)
        if btype == 0:
            old, pos = u32_column(raw, pos, cnt)
            new, pos = u32_column(raw, pos, cnt)
            dur, pos = leb_column(raw, pos, cnt)
            qid, pos = u64_column(raw, pos, cnt)
            cpu, pos = leb_column(raw, pos, cnt) if version >= 3 else ([CPU_UNKNOWN] * cnt, pos)
            recs = [T(ts[k], pid[k], old[k], new[k], dur[k], qid[k], cpu[k]) for k in range(cnt)]
        else:
            ev, pos = u32_column(raw, pos, cnt)
            qid, pos = u64_column(raw, pos, cnt)
            if version >= 4:
                z, pos = leb_column(raw, pos, cnt)
                w = [period + ((v >> 1) ^ -(v & 1)) for v in z]
            else:
                w = [period] * cnt
            recs = [S(ts[k], pid[k], ev[k], qid[k], w[k]) for k in range(cnt)]
        assert pos == unc, "columns do not fill the payload"
        out += dump_lines(version, btype, period, recs)
    for line in order_blocks(out):
        print(line)


def truth(path, truth_path):
    """Per-event totals of the decoded records must equal the synth truth."""
    import io
    import json
    import contextlib
    want = json.load(open(truth_path))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        dump(path)
    got = {}
    for line in buf.getvalue().splitlines():
        f = dict(kv.split("=") for kv in line.split()[1:])
        if line.startswith("T "):
            e = got.setdefault(int(f["old"], 16), [0, 0, 0, 0])
            e[0] += 1
            e[1] += int(f["dur"])
        elif line.startswith("S "):
            e = got.setdefault(int(f["ev"], 16), [0, 0, 0, 0])
            e[2] += 1
            e[3] += int(f["w"])
    rows = [(0, want["cpu"])] + [(e["id"], e) for e in want["events"]]
    bad = 0
    for ev, t in rows:
        g = got.get(ev, [0, 0, 0, 0])
        exp = [t["waits"], t["wait_ns"], t["samples"], t["sampled_ns"]]
        if g != exp:
            print("event 0x%08x: decoded %s, truth %s" % (ev, g, exp))
            bad += 1
    if bad:
        sys.exit(1)
    print("truth matches: %d events" % len(rows))


