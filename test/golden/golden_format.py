"""What the golden encoder (golden.py) and decoder (golden_read.py) share:
the file's constants, LEB128 and zigzag numbers, the block checksum, the
canonical Huffman code rule, record tuples and tfdump's line format.
Written from docs/TRACE_FORMAT.md; no code shared with tracefmt/.
"""
import struct

MAGIC = 0x54574750
EXIT = 0xFFFFFFFF
CPU_UNKNOWN = (1 << 64) - 1
M64 = (1 << 64) - 1


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



def u32_column(buf, pos, n):
    """n little-endian u32 at pos: (values, pos after them)."""
    return list(struct.unpack_from("<%dI" % n, buf, pos)), pos + 4 * n


def u64_column(buf, pos, n):
    """n little-endian u64 at pos: (values, pos after them)."""
    return list(struct.unpack_from("<%dQ" % n, buf, pos)), pos + 8 * n


def leb_column(buf, pos, n):
    """n LEB128 values at pos: (values, pos after them)."""
    vals = []
    for _ in range(n):
        v, pos = read_leb(buf, pos)
        vals.append(v)
    return vals, pos

def zigzag64(d):
    """zigzag of d taken modulo 2^64 as a signed 64-bit value."""
    d &= M64
    if d >= 1 << 63:
        d -= 1 << 64
    return ((d << 1) ^ (d >> 63)) & M64


def unzigzag(v):
    return (v >> 1) ^ -(v & 1)


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


def canonical(lengths):
    """symbol -> (code, length), shorter codes first, then by symbol."""
    codes, code, prev = {}, 0, 0
    for ln, s in sorted((ln, s) for s, ln in lengths.items()):
        code <<= ln - prev
        codes[s] = (code, ln)
        code += 1
        prev = ln
    return codes


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
