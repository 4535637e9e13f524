#!/usr/bin/env python3
"""Independent encoder/decoder of the published trace layout (v2..v4, v6
and v7 TRANSITIONS; v5 and v8 TRANSITIONS are decoded only).

It shares no code with tracefmt/: it is written from docs/TRACE_FORMAT.md
so the golden files test the C reader against the spec, not against the C
writer.

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

MAGIC = 0x54574750
EXIT = 0xFFFFFFFF
CPU_UNKNOWN = (1 << 64) - 1


def leb(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def read_leb(buf, pos):
    v = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            return v, pos
        shift += 7


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


def checksum16(data):
    """The v4 block checksum (spec: Checksum)."""
    m = (1 << 64) - 1
    a = b = 0
    padded = data + bytes((-len(data)) % 8)
    for i in range(0, len(padded), 8):
        a = (a + struct.unpack_from("<Q", padded, i)[0]) & m
        b = (b + a) & m
    def fmix(k):
        k ^= k >> 33
        k = (k * 0xff51afd7ed558ccd) & m
        k ^= k >> 33
        k = (k * 0xc4ceb9fe1a85ec53) & m
        return k ^ (k >> 33)
    h = fmix(a) ^ fmix(b ^ len(data))
    h ^= h >> 32
    h ^= h >> 16
    return h & 0xFFFF


def zigzag64(d):
    """zigzag of d taken modulo 2^64 as a signed 64-bit value."""
    d &= M64
    if d >= 1 << 63:
        d -= 1 << 64
    return ((d << 1) ^ (d >> 63)) & M64


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


def canonical(lengths):
    """symbol -> (code, length), shorter codes first, then by symbol."""
    codes, code, prev = {}, 0, 0
    for ln, s in sorted((ln, s) for s, ln in lengths.items()):
        code <<= ln - prev
        codes[s] = (code, ln)
        code += 1
        prev = ln
    return codes


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


def T(ts, pid, old, new, dur, qid, cpu=CPU_UNKNOWN):
    return dict(kind="T", ts=ts, pid=pid, old=old, new=new, dur=dur, qid=qid, cpu=cpu)


def S(ts, pid, ev, qid, w=None):
    return dict(kind="S", ts=ts, pid=pid, ev=ev, qid=qid, w=w)


def dump_lines(version, btype, period, recs):
    lines = ["block type=%d n=%d period=%d" % (btype, len(recs), period)]
    for r in recs:
        if r["kind"] == "T":
            cpu = r["cpu"] if version >= 3 else CPU_UNKNOWN
            lines.append("T ts=%d pid=%d old=0x%08x new=0x%08x dur=%d qid=%d cpu=%d" %
                         (r["ts"], r["pid"], r["old"], r["new"], r["dur"], r["qid"], cpu))
        else:
            w = r["w"] if version >= 4 and r["w"] is not None else period
            lines.append("S ts=%d pid=%d ev=0x%08x qid=%d w=%d" %
                         (r["ts"], r["pid"], r["ev"], r["qid"], w))
    return lines


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


def order_blocks(lines):
    """Readers deliver an archive's blocks by first_ts (stable): see the spec."""
    groups = []
    for l in lines:
        if l.startswith("block "):
            groups.append([l])
        else:
            groups[-1].append(l)
    key = [int(g[1].split()[1].split("=")[1]) for g in groups]
    order = sorted(range(len(groups)), key=lambda i: key[i])
    return [l for i in order for l in groups[i]]


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


M64 = (1 << 64) - 1


def unzigzag(v):
    return (v >> 1) ^ -(v & 1)


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
    np_, pos = read_leb(raw, pos)
    assert 1 <= np_ <= cnt
    pids = struct.unpack_from("<%dI" % np_, raw, pos)
    pos += 4 * np_
    ne, pos = read_leb(raw, pos)
    assert ne <= 2 * cnt
    events = struct.unpack_from("<%dI" % ne, raw, pos)
    pos += 4 * ne
    nq, pos = read_leb(raw, pos)
    assert nq <= cnt
    queries = struct.unpack_from("<%dQ" % nq, raw, pos)
    pos += 8 * nq
    lens = []
    for _ in range(7):
        v, pos = read_leb(raw, pos)
        lens.append(v)
    cols = []
    for ln in lens:
        cols.append([pos, pos + ln])
        pos += ln
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


def v6_transitions(raw, pos, cnt, ts, codes=None):
    """TRACE_FORMAT.md 3.1.2: per-pid predictions, tables, exception columns."""
    if codes is None:
        codes = raw[pos: pos + cnt]
        pos += cnt
    np_, pos = read_leb(raw, pos)
    assert 1 <= np_ <= cnt
    pids = struct.unpack_from("<%dI" % np_, raw, pos)
    pos += 4 * np_
    ne, pos = read_leb(raw, pos)
    assert ne <= 2 * cnt
    events = struct.unpack_from("<%dI" % ne, raw, pos)
    pos += 4 * ne
    nq, pos = read_leb(raw, pos)
    assert nq <= cnt
    queries = struct.unpack_from("<%dQ" % nq, raw, pos)
    pos += 8 * nq
    lens = []
    for _ in range(7):
        v, pos = read_leb(raw, pos)
        lens.append(v)
    cols = []
    for ln in lens:
        cols.append([pos, pos + ln])
        pos += ln
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

        def u32s(pos):
            return list(struct.unpack_from("<%dI" % cnt, raw, pos)), pos + 4 * cnt

        def u64s(pos):
            return list(struct.unpack_from("<%dQ" % cnt, raw, pos)), pos + 8 * cnt

        def lebs(pos):
            vals = []
            for _ in range(cnt):
                v, pos = read_leb(raw, pos)
                vals.append(v)
            return vals, pos

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
        pid, pos = u32s(pos)
        if btype == 0:
            old, pos = u32s(pos)
            new, pos = u32s(pos)
            dur, pos = lebs(pos)
            qid, pos = u64s(pos)
            cpu, pos = lebs(pos) if version >= 3 else ([CPU_UNKNOWN] * cnt, pos)
            recs = [T(ts[k], pid[k], old[k], new[k], dur[k], qid[k], cpu[k]) for k in range(cnt)]
        else:
            ev, pos = u32s(pos)
            qid, pos = u64s(pos)
            if version >= 4:
                z, pos = lebs(pos)
                w = [period + ((v >> 1) ^ -(v & 1)) for v in z]
            else:
                w = [period] * cnt
            recs = [S(ts[k], pid[k], ev[k], qid[k], w[k]) for k in range(cnt)]
        assert pos == unc, "columns do not fill the payload"
        out += dump_lines(version, btype, period, recs)
    for line in order_blocks(out):
        print(line)


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
