/*
 * block_v7.c
 *		Codec of v7 TRANSITIONS payloads (docs/TRACE_FORMAT.md 3.1.3): v6's
 *		model (code byte per record, tables, exception columns) with the two
 *		per-record parts -- the ts delta and the code byte -- entropy coded
 *		instead of stored as bytes. LZ4 finds repeats but cannot give a
 *		frequent byte fewer than 8 bits; these two parts are where v6's
 *		bytes go (ts deltas are noisy numbers, codes a skewed alphabet).
 *
 *		A ts delta becomes a log-bucket symbol (its bit length and the two
 *		bits under the leading one) plus its remaining low bits verbatim;
 *		the symbols and the code bytes each get a canonical Huffman code
 *		per block, limited to 11 bits so one table lookup decodes a symbol.
 *		Everything goes into one bit stream, record by record.
 *
 *		Huffman coding as published (Huffman 1952; canonical codes as in
 *		RFC 1951 3.2.2), written here from the descriptions. Pure functions,
 *		no shared state; the encoder mallocs its scratch, the decoder keeps
 *		its tables on the stack.
 */
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

#define V7_MAX_LEN		TF_HUFF_MAX_LEN
#define likely(x)		__builtin_expect(!!(x), 1)
#define V7_TS_SYMBOLS	252		/* ts alphabet: 8 + 4 x 60 + 4 */
#define V7_CODE_SYMBOLS	256

/* ---- ts delta <-> (symbol, raw bits) ------------------------------------ */

/*
 * d < 8 is its own symbol. Otherwise, with b = bit length of d (4..64):
 * symbol 8 + 4(b - 4) + the two bits under the leading one, and the b - 3
 * bits below them follow raw.
 */
static inline unsigned
tf_v7_ts_symbol(uint64_t d, unsigned *nraw)
{
	unsigned	b;

	if (d < 8)
	{
		*nraw = 0;
		return (unsigned) d;
	}
	b = 64 - (unsigned) __builtin_clzll(d);
	*nraw = b - 3;
	return 8 + 4 * (b - 4) + (unsigned) ((d >> (b - 3)) & 3);
}

static uint64_t
tf_v7_gcd(uint64_t a, uint64_t b)
{
	while (b)
	{
		uint64_t	t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* ---- code lengths and canonical codes ------------------------------------ */

static int
tf_v7_cmp_leaf(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * Huffman code lengths of the symbols with non-zero frequency, at most
 * V7_MAX_LEN bits: when the tree is deeper, frequencies are halved (kept
 * non-zero) and the tree rebuilt, which flattens it; all-equal
 * frequencies give a depth of at most 8 for 256 symbols.
 */
void
tf_v7_code_lengths(const uint32_t *freq, unsigned nsym, uint8_t *len)
{
	uint32_t	f[V7_CODE_SYMBOLS];
	uint64_t	leaf[V7_CODE_SYMBOLS];	/* freq << 16 | symbol, sorted */
	uint64_t	w[2 * V7_CODE_SYMBOLS];
	uint16_t	parent[2 * V7_CODE_SYMBOLS];
	uint8_t		depth[2 * V7_CODE_SYMBOLS];
	unsigned	s,
				m,
				i;

	memcpy(f, freq, nsym * sizeof(uint32_t));
	for (;;)
	{
		unsigned	li = 0,
					ii,
					next,
					maxd = 0;

		memset(len, 0, nsym);
		for (m = 0, s = 0; s < nsym; s++)
			if (f[s])
				leaf[m++] = ((uint64_t) f[s] << 16) | s;
		if (m == 1)
		{
			len[leaf[0] & 0xFFFF] = 1;
			return;
		}
		qsort(leaf, m, sizeof(uint64_t), tf_v7_cmp_leaf);
		for (i = 0; i < m; i++)
			w[i] = leaf[i] >> 16;
		/* two queues: sorted leaves, and internal nodes made in order */
		ii = m;
		for (next = m; next < 2 * m - 1; next++)
		{
			unsigned	pick[2],
						k;

			for (k = 0; k < 2; k++)
				pick[k] = li < m && (ii >= next || w[li] <= w[ii]) ? li++ : ii++;
			w[next] = w[pick[0]] + w[pick[1]];
			parent[pick[0]] = parent[pick[1]] = (uint16_t) next;
		}
		depth[2 * m - 2] = 0;
		for (i = 2 * m - 2; i-- > 0;)
		{
			depth[i] = (uint8_t) (depth[parent[i]] + 1);
			if (i < m && depth[i] > maxd)
				maxd = depth[i];
		}
		if (maxd <= V7_MAX_LEN)
		{
			for (i = 0; i < m; i++)
				len[leaf[i] & 0xFFFF] = depth[i];
			return;
		}
		for (s = 0; s < nsym; s++)
			if (f[s])
				f[s] = (f[s] + 1) / 2;
	}
}

/* The low len (1..32) bits of code in reverse order: swaps of halves. */
static inline uint32_t
tf_v7_reverse(uint32_t code, unsigned len)
{
	uint32_t	r = __builtin_bswap32(code);

	r = (r & 0x0F0F0F0Fu) << 4 | ((r >> 4) & 0x0F0F0F0Fu);
	r = (r & 0x33333333u) << 2 | ((r >> 2) & 0x33333333u);
	r = (r & 0x55555555u) << 1 | ((r >> 1) & 0x55555555u);
	return r >> (32 - len);
}

/* A canonical code's layout (tf_v7_layout_of). */
typedef struct tf_v7_layout
{
	uint16_t	order[V7_CODE_SYMBOLS + 1];	/* coded symbols in code order;
											 * the last slot takes the others */
	unsigned	start[V7_MAX_LEN + 2];	/* length l's run: [start[l], start[l + 1]) */
	uint32_t	first[V7_MAX_LEN + 1];	/* the run's first code */
} tf_v7_layout;

/*
 * The canonical code of lengths len[0..nsym) (RFC 1951 3.2.2: shorter
 * codes first, then by symbol), given count[l], the number of symbols of
 * each length l (count[0] unused): the coded symbols in code order, where
 * each length's run begins, and the run's first code, each next symbol's
 * code one more. Both the encoder's codes and the decoder's table come
 * from it. Returns -1 when the lengths over-subscribe the code space (or
 * code nothing).
 */
static int
tf_v7_layout_of(const uint8_t *len, unsigned nsym, const unsigned *count, tf_v7_layout *c)
{
	unsigned	at[V7_MAX_LEN + 1];
	uint32_t	code = 0,
				kraft = 0;
	unsigned	s,
				l;

	/* the Kraft sum from the counts: one term per length, not per symbol */
	for (l = 1; l <= V7_MAX_LEN; l++)
		kraft += count[l] << (V7_MAX_LEN - l);
	if (kraft == 0 || kraft > (1u << V7_MAX_LEN))
		return -1;
	c->start[1] = 0;
	for (l = 1; l <= V7_MAX_LEN; l++)
	{
		c->first[l] = code;
		code = (code + count[l]) << 1;
		at[l] = c->start[l];
		c->start[l + 1] = c->start[l] + count[l];
	}
	at[0] = V7_CODE_SYMBOLS;	/* uncoded symbols: a slot nobody reads */
	for (s = 0; s < nsym; s++)
	{
		c->order[at[len[s]]] = (uint16_t) s;
		at[len[s]] += len[s] != 0;
	}
	return 0;
}

/*
 * Canonical codes, bit-reversed so that writing them least significant
 * bit first puts the code's first bit first. Returns -1 when the lengths
 * over-subscribe the code space.
 */
int
tf_v7_canonical(const uint8_t *len, unsigned nsym, uint32_t *rev)
{
	unsigned	count[V7_MAX_LEN + 1] = {0};
	tf_v7_layout c;
	unsigned	s,
				l,
				i;

	for (s = 0; s < nsym; s++)
		count[len[s]]++;
	if (tf_v7_layout_of(len, nsym, count, &c) < 0)
		return -1;
	for (l = 1; l <= V7_MAX_LEN; l++)
		for (i = c.start[l]; i < c.start[l + 1]; i++)
			rev[c.order[i]] = tf_v7_reverse(c.first[l] + (i - c.start[l]), l);
	return 0;
}

/* ---- encoder ------------------------------------------------------------ */

typedef struct tf_v7_bitw
{
	uint8_t    *p;
	uint64_t	acc;
	unsigned	cnt;
} tf_v7_bitw;

/* Appends the nbits (<= 32) low bits of v. */
static inline void
tf_v7_put(tf_v7_bitw *w, uint64_t v, unsigned nbits)
{
	w->acc |= v << w->cnt;
	w->cnt += nbits;
	while (w->cnt >= 8)
	{
		*w->p++ = (uint8_t) w->acc;
		w->acc >>= 8;
		w->cnt -= 8;
	}
}

/* Symbol count (LEB128) then the lengths, two per byte, low nibble first. */
uint8_t *
tf_v7_put_lengths(uint8_t *p, const uint8_t *len, unsigned nsym)
{
	unsigned	a = nsym,
				s;

	while (a > 0 && len[a - 1] == 0)
		a--;
	p += tf_put_leb(p, a);
	for (s = 0; s < a; s += 2)
		*p++ = (uint8_t) (len[s] | (s + 1 < a ? len[s + 1] << 4 : 0));
	return p;
}

uint8_t *
tf_encode_transitions_v7(const pgwt_record *recs, uint32_t n, uint8_t *p)
{
	uint8_t    *codes = malloc(n);
	uint8_t    *rest = malloc((size_t) n * 60 + 64);
	uint8_t    *rest_end;
	uint8_t    *tsym = malloc(n);
	uint32_t	tfreq[V7_CODE_SYMBOLS] = {0},
				cfreq[V7_CODE_SYMBOLS] = {0};
	uint32_t	trev[V7_CODE_SYMBOLS],
				crev[V7_CODE_SYMBOLS];
	uint8_t		tlen[V7_CODE_SYMBOLS],
				clen[V7_CODE_SYMBOLS];
	uint64_t	bits = 0,
				unit = 0;
	tf_v7_bitw	w;
	uint32_t	i;

	if (!codes || !rest || !tsym ||
		(rest_end = tf_encode_v6_fields(recs, n, codes, rest)) == NULL)
	{
		free(codes);
		free(rest);
		free(tsym);
		return NULL;
	}
	/* the ts unit: the largest number dividing every delta (0 when none
	 * is non-zero, stored as 1) */
	for (i = 1; i < n; i++)
		unit = tf_v7_gcd(unit, recs[i].ts_ns - recs[i - 1].ts_ns);
	if (unit == 0)
		unit = 1;
	for (i = 0; i < n; i++)
	{
		unsigned	nraw;

		tsym[i] = (uint8_t) tf_v7_ts_symbol(i ? (recs[i].ts_ns - recs[i - 1].ts_ns) / unit : 0, &nraw);
		tfreq[tsym[i]]++;
		cfreq[codes[i]]++;
		bits += nraw;
	}
	tf_v7_code_lengths(tfreq, V7_TS_SYMBOLS, tlen);
	tf_v7_code_lengths(cfreq, V7_CODE_SYMBOLS, clen);
	/* lengths from the builder always fit the code space */
	(void) tf_v7_canonical(tlen, V7_TS_SYMBOLS, trev);
	(void) tf_v7_canonical(clen, V7_CODE_SYMBOLS, crev);
	for (i = 0; i < V7_CODE_SYMBOLS; i++)
		bits += (uint64_t) tfreq[i] * (i < V7_TS_SYMBOLS ? tlen[i] : 0) +
			(uint64_t) cfreq[i] * clen[i];

	p += tf_put_leb(p, unit);
	p = tf_v7_put_lengths(p, tlen, V7_TS_SYMBOLS);
	p = tf_v7_put_lengths(p, clen, V7_CODE_SYMBOLS);
	p += tf_put_leb(p, (bits + 7) / 8);
	w.p = p;
	w.acc = 0;
	w.cnt = 0;
	for (i = 0; i < n; i++)
	{
		uint64_t	d = i ? (recs[i].ts_ns - recs[i - 1].ts_ns) / unit : 0;
		unsigned	s = tsym[i],
					nraw;

		(void) tf_v7_ts_symbol(d, &nraw);
		tf_v7_put(&w, trev[s], tlen[s]);
		if (nraw > 32)
		{
			tf_v7_put(&w, d & 0xFFFFFFFFu, 32);
			tf_v7_put(&w, (d >> 32) & ((1ull << (nraw - 32)) - 1), nraw - 32);
		}
		else
			tf_v7_put(&w, d & ((1ull << nraw) - 1), nraw);
		tf_v7_put(&w, crev[codes[i]], clen[codes[i]]);
	}
	if (w.cnt)
		*w.p++ = (uint8_t) w.acc;	/* zero padding to the byte */
	p = w.p;
	memcpy(p, rest, (size_t) (rest_end - rest));
	p += rest_end - rest;
	free(codes);
	free(rest);
	free(tsym);
	return p;
}

/* ---- decoder ------------------------------------------------------------ */

/*
 * Lookup table indexed by the next bits of the stream: entry = value << 10
 * | raw bits << 4 | code length, 0 = no code starts so. The decoded number
 * is value << raw | the raw bits that follow: for the code-byte table
 * value is the symbol and raw 0; for the ts table the symbol's leading
 * bits and raw its b - 3 low bits (so one path decodes every symbol).
 */
static inline uint32_t
tf_v7_entry(unsigned sym, unsigned len, bool ts)
{
	if (!ts || sym < 8)
		return (uint32_t) sym << 10 | len;
	return (uint32_t) (4 | (sym & 3)) << 10 | ((sym - 8) / 4 + 1) << 4 | len;
}

/*
 * The lookup table of a code: entry j is the symbol whose reversed code
 * is j's low bits (0 where none: an incomplete code). Built by length,
 * shortest first, in a table doubled as the lengths grow: a copy of the
 * first half repeats the shorter codes into the second, and a code of the
 * current length then takes one entry. Writes 2^bits entries once, where
 * a stride fill per symbol would loop on every entry of every short code.
 */
static void
tf_v7_fill(tf_v7_table *t, const tf_v7_layout *c, bool ts)
{
	unsigned	l,
				size = 1;

	t->e[0] = 0;
	for (l = 1; l <= t->bits; l++)
	{
		unsigned	i;

		memcpy(t->e + size, t->e, size * sizeof(uint32_t));
		size *= 2;
		for (i = c->start[l]; i < c->start[l + 1]; i++)
			t->e[tf_v7_reverse(c->first[l] + (i - c->start[l]), l)] =
				tf_v7_entry(c->order[i], l, ts);
	}
}

int
tf_v7_get_table(const uint8_t **pp, const uint8_t *end, unsigned nsym, bool ts,
				tf_v7_table *t)
{
	const uint8_t *p = *pp;
	uint8_t		len[V7_CODE_SYMBOLS + 1];
	unsigned	count[16] = {0};
	tf_v7_layout c;
	uint64_t	a;
	unsigned	s,
				bits;

	TF_GET_LEB(p, end, a);
	if (a < 1 || a > nsym || (uint64_t) (end - p) < (a + 1) / 2)
		return -PGWT_TF_BAD_PAYLOAD;
	/* two lengths a byte, counted as they are read (the count of a
	 * length past the longest allowed tells the lengths are bad) */
	for (s = 0; s < a; s += 2)
	{
		unsigned	lo = p[s / 2] & 15,
					hi = p[s / 2] >> 4;

		len[s] = (uint8_t) lo;
		len[s + 1] = (uint8_t) hi;
		count[lo]++;
		count[hi]++;
	}
	/* an odd count leaves the last high nibble unused: it MUST be 0 */
	if ((a & 1) && len[a])
		return -PGWT_TF_BAD_PAYLOAD;
	for (bits = 15; bits > 0 && count[bits] == 0; bits--)
		;
	if (bits > V7_MAX_LEN)
		return -PGWT_TF_BAD_PAYLOAD;
	t->bits = bits;
	p += (a + 1) / 2;
	if (tf_v7_layout_of(len, (unsigned) a, count, &c) < 0)
		return -PGWT_TF_BAD_PAYLOAD;
	tf_v7_fill(t, &c, ts);
	*pp = p;
	return 0;
}

/*
 * Bit reader, least significant bit first. Past the end it reads zeros
 * and counts them, so a short stream is caught once, at the end.
 */
typedef struct tf_v7_bitr
{
	const uint8_t *p,
			   *end;
	uint64_t	buf;
	unsigned	cnt;
	uint64_t	past;			/* zero bytes supplied beyond the end */
} tf_v7_bitr;

/* Leaves at least 56 bits in buf. */
static inline void
tf_v7_refill(tf_v7_bitr *r)
{
	if (r->end - r->p >= 8)
	{
		r->buf |= tf_get_u64(r->p) << r->cnt;
		r->p += (63 - r->cnt) >> 3;
		r->cnt |= 56;
		return;
	}
	while (r->cnt <= 56)
	{
		if (r->p < r->end)
			r->buf |= (uint64_t) *r->p++ << r->cnt;
		else
			r->past++;
		r->cnt += 8;
	}
}

static inline uint64_t
tf_v7_take(tf_v7_bitr *r, unsigned nbits)
{
	uint64_t	v = r->buf & ((1ull << nbits) - 1);

	r->buf >>= nbits;
	r->cnt -= nbits;
	return v;
}

int
tf_decode_transitions_v7(const uint8_t **pp, const uint8_t *end, uint32_t n,
						 uint64_t first_ts, uint64_t last_ts, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	tf_v7_table tt,
				ct;
	uint8_t		codes[PGWT_TF_BLOCK_MAX_RECORDS];
	tf_v7_bitr	r;
	uint64_t	blen,
				unit,
				ts = first_ts,
				used;
	uint32_t	tmask,
				cmask,
				i;
	int			rc;

	TF_GET_LEB(p, end, unit);
	if (unit < 1)
		return -PGWT_TF_BAD_PAYLOAD;
	if ((rc = tf_v7_get_table(&p, end, V7_TS_SYMBOLS, true, &tt)) < 0 ||
		(rc = tf_v7_get_table(&p, end, V7_CODE_SYMBOLS, false, &ct)) < 0)
		return rc;
	TF_GET_LEB(p, end, blen);
	if (blen > (uint64_t) (end - p))
		return -PGWT_TF_BAD_PAYLOAD;
	tmask = (1u << tt.bits) - 1;
	cmask = (1u << ct.bits) - 1;
	r.p = p;
	r.end = p + blen;
	r.buf = 0;
	r.cnt = 0;
	r.past = 0;
	for (i = 0; i < n; i++)
	{
		uint32_t	e;
		unsigned	nraw;
		uint64_t	d;

		tf_v7_refill(&r);
		e = tt.e[r.buf & tmask];
		if (e == 0)
			return -PGWT_TF_BAD_PAYLOAD;
		tf_v7_take(&r, e & 15);
		nraw = (e >> 4) & 63;
		d = (uint64_t) (e >> 10) << nraw;
		if (likely(nraw <= 32))
			d |= tf_v7_take(&r, nraw);
		else
		{
			d |= tf_v7_take(&r, 32);
			tf_v7_refill(&r);
			d |= tf_v7_take(&r, nraw - 32) << 32;
		}
		if ((unit != 1 && __builtin_mul_overflow(d, unit, &d)) || d > last_ts - ts)
			return -PGWT_TF_BAD_PAYLOAD;
		ts += d;
		recs[i].ts_ns = ts;
		if (r.cnt < V7_MAX_LEN)
			tf_v7_refill(&r);
		e = ct.e[r.buf & cmask];
		if (e == 0)
			return -PGWT_TF_BAD_PAYLOAD;
		tf_v7_take(&r, e & 15);
		codes[i] = (uint8_t) (e >> 10);
	}
	/* The stream is used up to its last byte, padded with zero bits. */
	used = 8 * ((uint64_t) (r.p - p) + r.past) - r.cnt;
	if (used > 8 * blen || 8 * blen - used >= 8 ||
		(r.cnt >= 64 ? r.buf : r.buf & ((1ull << r.cnt) - 1)) != 0)
		return -PGWT_TF_BAD_PAYLOAD;
	p += blen;
	*pp = p;
	return tf_decode_v6_fields(codes, pp, end, n, recs);
}
