/*
 * block_v8_dec.c
 *		Decoder of v8 TRANSITIONS payloads (docs/TRACE_FORMAT.md 3.1.4; the
 *		encoder is block_v8.c, the shared rules tf_v8.h).
 *
 *		Speed matters here (every reader of a trace pays it), so the decoder
 *		keeps its state (~0.4 MB) in a context reused across blocks: the
 *		successor table is invalidated by a block generation in its tags
 *		rather than cleared, and a code table whose stored lengths equal
 *		the ones its slot was last built from is not rebuilt (a block's
 *		unused marker codes are all alike). Bits are read by one unaligned
 *		load per record (its code byte, ts symbol and up to 32 raw bits),
 *		and a backend's predictions come from its own small state. A
 *		caller that never reads cpu_ns (the views) has its column checked
 *		whole, eight bytes at a time, instead of decoded value by value,
 *		and the extra bytes checked with it once the records have read
 *		them. A caller's shift (wall-clock time) is added to each ts as
 *		the record is handed out; every check runs on the stored ts.
 *
 *		No shared state: the context belongs to the caller (a file reader
 *		keeps one per file, tf_block_decode_ctx), or to one block.
 */
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"
#include "tracefmt/tf_v8.h"

#define V8D_TAG_BITS	13			/* pid index + 1 <= V8_MAX < 2^13 */
#define V8D_KEY_MAX		(2 + (V8_CODE_SYMBOLS + 1) / 2)	/* count + lengths */

/* A code table and the stored bytes it was built from (klen 0: none). */
typedef struct tf_v8d_table
{
	tf_v7_table t;
	uint32_t	mask;			/* (1 << t.bits) - 1 */
	uint8_t		key[V8D_KEY_MAX];
	unsigned	klen;
} tf_v8d_table;

/*
 * What a backend's next record is predicted from: its previous record
 * (any) and its previous non-marker record (nm), zeros before it has one.
 */
typedef struct tf_v8d_pid
{
	uint64_t	nm_ts,
				nm_mask,		/* ~0 once it has an nm, else 0 */
				any_ts,
				any_q;
	uint32_t	nm_old,
				nm_new;
	uint32_t	any_old,		/* the successor context */
				any_new;
	uint32_t	pid;			/* its pid table entry, read once per block */
	uint32_t	tag,			/* its successor tag in this block */
				kh;				/* its part of the successor hash */
	bool		has_any;
} __attribute__((aligned(64))) tf_v8d_pid;	/* a line each: k's is at k << 6 */

struct tf_v8_dec
{
	void	   *mem;			/* what calloc gave: d is mem rounded up to 64 */
	const uint8_t *pids,
			   *events,
			   *queries;
	uint64_t	np,
				ne,
				nq,
				unit[2];
	const uint8_t *cur[V8_NCOLS],
			   *cend[V8_NCOLS];
	uint32_t	gen;			/* this block's generation, >= 1 */
	tf_v8d_table code,
				ts[V8_TS_TABLES];
	const tf_v8d_table *tsp[V8_TS_TABLES];	/* &ts[c]: a load, not a multiply */
	tf_v8d_pid	st[V8_MAX];
	tf_v8_succ	succ[1u << V8_SUCC_BITS];
	tf_v8_succ	scratch;		/* a backend's pushes before it has a context */
};

/* A context: the caller's (allocated on its first block) or a new one. */
static tf_v8_dec *
tf_v8d_ctx_get(tf_v8_dec **ctx)
{
	tf_v8_dec  *d = ctx ? *ctx : NULL;

	if (d == NULL)
	{
		/* calloc rather than aligned_alloc + memset: pages stay untouched until used */
		void	   *mem = calloc(1, sizeof(tf_v8_dec) + 63);

		if (mem == NULL)
			return NULL;
		d = (tf_v8_dec *) (((uintptr_t) mem + 63) & ~(uintptr_t) 63);
		d->mem = mem;
		for (unsigned c = 0; c < V8_TS_TABLES; c++)
			d->tsp[c] = &d->ts[c];
	}
	if (ctx)
		*ctx = d;
	/* a new generation; on wrapping, the tags of old ones are cleared */
	if (++d->gen >= (1u << (32 - V8D_TAG_BITS)))
	{
		memset(d->succ, 0, sizeof(d->succ));
		d->gen = 1;
	}
	return d;
}

void
tf_v8_dec_free(tf_v8_dec *d)
{
	if (d)
		free(d->mem);
}

/*
 * One code table at *pp into slot s: rebuilt only when its stored bytes
 * differ from the ones the slot holds (those were valid then, so they
 * are now). A failed build leaves the slot empty.
 */
static int
tf_v8d_get_table(const uint8_t **pp, const uint8_t *end, unsigned nsym, bool ts,
				 tf_v8d_table *s)
{
	const uint8_t *p = *pp;
	uint64_t	a;
	size_t		klen;
	int			rc;

	TF_GET_LEB(p, end, a);
	if (a < 1 || a > nsym || (uint64_t) (end - p) < (a + 1) / 2)
		return -PGWT_TF_BAD_PAYLOAD;
	klen = (size_t) (p - *pp) + (a + 1) / 2;
	if (klen == s->klen && memcmp(s->key, *pp, klen) == 0)
	{
		*pp += klen;
		return 0;
	}
	s->klen = 0;
	p = *pp;
	if ((rc = tf_v7_get_table(&p, end, nsym, ts, &s->t)) < 0)
		return rc;
	s->mask = (1u << s->t.bits) - 1;
	if (klen <= V8D_KEY_MAX)
	{
		memcpy(s->key, *pp, klen);
		s->klen = (unsigned) klen;
	}
	*pp = p;
	return 0;
}

/* Units, tables, column lengths and columns; p ends at the code tables. */
static int
tf_v8d_head(const uint8_t **pp, const uint8_t *end, uint32_t n, tf_v8_dec *d)
{
	const uint8_t *p = *pp;
	uint64_t	len;
	uint32_t	c;

	for (c = 0; c < 2; c++)
	{
		TF_GET_LEB(p, end, d->unit[c]);
		if (d->unit[c] < 1)
			return -PGWT_TF_BAD_PAYLOAD;
	}
	TF_GET_LEB(p, end, d->np);
	if (d->np < 1 || d->np > n || (uint64_t) (end - p) < d->np * 4)
		return -PGWT_TF_BAD_PAYLOAD;
	d->pids = p;
	p += d->np * 4;
	TF_GET_LEB(p, end, d->ne);
	if (d->ne > 2 * (uint64_t) n || (uint64_t) (end - p) < d->ne * 4)
		return -PGWT_TF_BAD_PAYLOAD;
	d->events = p;
	p += d->ne * 4;
	TF_GET_LEB(p, end, d->nq);
	if (d->nq > n || (uint64_t) (end - p) < d->nq * 8)
		return -PGWT_TF_BAD_PAYLOAD;
	d->queries = p;
	p += d->nq * 8;
	{
		uint64_t	lens[V8_NCOLS];

		for (c = 0; c < V8_NCOLS; c++)
			TF_GET_LEB(p, end, lens[c]);
		for (c = 0; c < V8_NCOLS; c++)
		{
			len = lens[c];
			if (len > (uint64_t) (end - p))
				return -PGWT_TF_BAD_PAYLOAD;
			d->cur[c] = p;
			p += len;
			d->cend[c] = p;
		}
	}
	*pp = p;
	return 0;
}

/* An event table index from column c. */
static inline int
tf_v8d_col_event(tf_v8_dec *d, int c, uint32_t *ev)
{
	uint64_t	v;

	TF_GET_LEB(d->cur[c], d->cend[c], v);
	if (v >= d->ne)
		return -PGWT_TF_BAD_PAYLOAD;
	*ev = tf_get_u32(d->events + 4 * v);
	return 0;
}

/*
 * Bit reader, least significant bit first, without a buffer to refill:
 * the next 57 bits are one unaligned 8-byte load at pos / 8, shifted by
 * pos % 8. Loads stay inside the stream while pos <= lim; past that the
 * stream's last bytes are copied into tail, zero padded, and reading goes
 * on there (bits past the end read as zeros, caught once at the end).
 */
#define V8D_REC_BYTES	24			/* > one record's loads (<= 83 bits + 8) */
#define V8D_TAIL		(2 * V8D_REC_BYTES + 8)

typedef struct tf_v8d_bits
{
	const uint8_t *base;		/* the stream, or tail */
	uint64_t	pos;			/* bits read from base */
	uint64_t	lim;			/* pos bound for reading a record at base */
	uint64_t	skipped;		/* bytes of the stream before tail's first */
	const uint8_t *p;			/* the stream: [p, p + len) */
	size_t		len;
	bool		in_tail;
	uint8_t		tail[V8D_TAIL];
} tf_v8d_bits;

/* Reading continues in tail; false when the stream is already overrun. */
static bool
tf_v8d_to_tail(tf_v8d_bits *r)
{
	size_t		at = (size_t) (r->pos >> 3);

	if (r->in_tail || at > r->len)
		return false;
	memset(r->tail, 0, sizeof(r->tail));
	memcpy(r->tail, r->p + at, r->len - at);	/* < V8D_REC_BYTES + 8 */
	r->base = r->tail;
	r->skipped = at;
	r->pos -= 8 * (uint64_t) at;
	r->lim = 8 * (V8D_TAIL - V8D_REC_BYTES);
	r->in_tail = true;
	return true;
}

static void
tf_v8d_bits_init(tf_v8d_bits *r, const uint8_t *p, const uint8_t *end)
{
	r->p = r->base = p;
	r->len = (size_t) (end - p);
	r->pos = 0;
	r->skipped = 0;
	r->in_tail = false;
	r->lim = r->len >= V8D_REC_BYTES + 8 ? 8 * (uint64_t) (r->len - V8D_REC_BYTES) : 0;
	if (r->lim == 0)
		(void) tf_v8d_to_tail(r);
}

/*
 * What the record loop reads on every record, kept apart from
 * tf_v8d_bits (whose address the rare move to tail takes) so that the
 * compiler holds it in registers: the bit position, where the stream
 * is read from, and the extra column's cursor.
 */
typedef struct tf_v8d_rd
{
	const uint8_t *base;
	uint64_t	pos,
				lim;
	const uint8_t *xcur,
			   *xend;
} tf_v8d_rd;

static inline __attribute__((always_inline)) uint64_t
tf_v8d_peek(const tf_v8d_rd *r)
{
	return tf_get_u64(r->base + (r->pos >> 3)) >> (r->pos & 7);
}

/*
 * Record's code byte entry then its ts under the table tab picks from
 * the code (0 when a code is bad); one load serves both symbols and up
 * to 32 raw bits.
 */
static inline __attribute__((always_inline)) uint32_t
tf_v8d_code(tf_v8d_rd *r, const tf_v8d_table *t, uint64_t *w)
{
	uint32_t	e;

	*w = tf_v8d_peek(r);
	e = t->t.e[*w & t->mask];
	*w >>= e & 15;
	r->pos += e & 15;
	return e;
}

/* The low n bits of a word, n <= 32: one load where a mask costs three. */
static const uint64_t tf_v8d_low[33] = {
	0x0, 0x1, 0x3, 0x7, 0xF, 0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF,
	0x1FFF, 0x3FFF, 0x7FFF, 0xFFFF, 0x1FFFF, 0x3FFFF, 0x7FFFF, 0xFFFFF, 0x1FFFFF,
	0x3FFFFF, 0x7FFFFF, 0xFFFFFF, 0x1FFFFFF, 0x3FFFFFF, 0x7FFFFFF, 0xFFFFFFF,
	0x1FFFFFFF, 0x3FFFFFFF, 0x7FFFFFFF, 0xFFFFFFFF
};

/* A ts value from w (what tf_v8d_code left); false on a bad code. */
static inline __attribute__((always_inline)) bool
tf_v8d_ts(tf_v8d_rd *r, const tf_v8d_table *t, uint64_t w, uint64_t *v)
{
	uint32_t	e = t->t.e[w & t->mask];
	unsigned	nraw = (e >> 4) & 63,
				len = e & 15;

	if (e == 0)
		return false;
	*v = (uint64_t) (e >> 10) << nraw;
	r->pos += len;
	if (__builtin_expect(nraw <= 32, 1))
	{
		/* 57 - 2 x 11 bits of w are left */
		*v |= (w >> len) & tf_v8d_low[nraw];
		r->pos += nraw;
		return true;
	}
	*v |= tf_v8d_peek(r) & 0xFFFFFFFFu;
	r->pos += 32;
	*v |= (tf_v8d_peek(r) & ((1ull << (nraw - 32)) - 1)) << 32;
	r->pos += nraw - 32;
	return true;
}

/*
 * old, duration, query and cpu of r from the extra byte and columns
 * (skip_cpu: cpu unknown; tf_v8d_cpu_skipped checks its column). late:
 * the extra byte is read unchecked, which the caller allows only when n
 * bytes from the column's start lie inside the payload, and checks the
 * bytes read once the block's records have read them (tf_v8d_cpu_skipped
 * and the cursor against the column's end): a bad one refuses the block
 * as it would have here.
 */
static inline __attribute__((always_inline)) int
tf_v8d_rest(tf_v8_dec *d, tf_v8d_rd *rd, uint8_t code, pgwt_record *r,
			const tf_v8d_pid *st, bool skip_cpu, bool late)
{
	uint8_t		extra = 0;
	uint64_t	v;
	int			rc;

	if (code & V8_EXTRA)
	{
		if (!late && rd->xcur >= rd->xend)
			return -PGWT_TF_BAD_PAYLOAD;
		extra = *rd->xcur++;
		if (!late && (extra == 0 || (extra & ~(V8_X_OLD | V8_X_DUR | V8_X_CPU))))
			return -PGWT_TF_BAD_PAYLOAD;
	}
	r->old_event = st->nm_new;
	if ((extra & V8_X_OLD) &&
		(rc = tf_v8d_col_event(d, V8_COL_OLD, &r->old_event)) < 0)
		return rc;
	r->duration_ns = (r->ts_ns - st->nm_ts) & st->nm_mask;
	if (extra & V8_X_DUR)
	{
		TF_GET_LEB(d->cur[V8_COL_DUR], d->cend[V8_COL_DUR], v);
		r->duration_ns += (uint64_t) tf_unzigzag(v);	/* modulo 2^64 */
	}
	r->query_id = st->any_q;
	if (code & V8_QUERY)
	{
		TF_GET_LEB(d->cur[V8_COL_QUERY], d->cend[V8_COL_QUERY], v);
		if (v >= d->nq)
			return -PGWT_TF_BAD_PAYLOAD;
		r->query_id = tf_get_u64(d->queries + 8 * v);
	}
	r->cpu_ns = PGWT_CPU_UNKNOWN;
	if (!skip_cpu && (extra & V8_X_CPU))
	{
		TF_GET_LEB(d->cur[V8_COL_CPU], d->cend[V8_COL_CPU], v);
		r->cpu_ns = (r->old_event == 0 ? r->duration_ns : 0) + (uint64_t) tf_unzigzag(v);
	}
	return 0;
}

/*
 * The successor predictions of backend st (index k) and the slot they
 * are in, which is reset to this context when it holds another (so the
 * record's new event only has to be pushed: tf_v8_succ_get then _put).
 */
static inline __attribute__((always_inline)) tf_v8_succ *
tf_v8d_succ(tf_v8_dec *d, const tf_v8d_pid *st, uint32_t *s0, uint32_t *s1)
{
	uint32_t	tag = st->tag;
	tf_v8_succ *slot = tf_v8_succ_at_kh(d->succ, st->kh, st->any_old, st->any_new);

	if (slot->tag == tag && slot->c_old == st->any_old &&
		slot->c_new == st->any_new)
	{
		*s0 = slot->s0;
		*s1 = slot->s1;
		return slot;
	}
	slot->tag = tag;
	slot->c_old = st->any_old;
	slot->c_new = st->any_new;
	slot->s0 = slot->s1 = *s0 = *s1 = 0;
	return slot;
}

/*
 * The rest of record r once its ts is known (tf_v8d_rest), then its
 * new event pushed to its successor slot (d->scratch before it has one) and its
 * backend's latest record.
 */
static inline __attribute__((always_inline)) int
tf_v8d_finish(tf_v8_dec *d, tf_v8d_rd *rd, uint8_t code, pgwt_record *r, tf_v8d_pid *st,
			  tf_v8_succ *slot, bool skip_cpu, bool late)
{
	int			rc;

	if ((rc = tf_v8d_rest(d, rd, code, r, st, skip_cpu, late)) < 0)
		return rc;
	if (slot->s0 != r->new_event)
	{
		slot->s1 = slot->s0;
		slot->s0 = r->new_event;
	}
	st->has_any = true;
	st->any_ts = r->ts_ns;
	st->any_q = r->query_id;
	st->any_old = r->old_event;
	st->any_new = r->new_event;
	return 0;
}

/*
 * A marker record from its ts on (w: the bits after its code): an
 * offset from its backend's previous record under its marker id's table,
 * or before the backend has one a delta from prev (tf_v8_ts_table).
 */
static inline __attribute__((always_inline)) int
tf_v8d_marker(tf_v8_dec *d, tf_v8d_rd *rd, uint8_t code, uint64_t w, pgwt_record *r,
			  uint64_t prev, uint64_t last_ts, tf_v8d_pid *st, tf_v8_succ *slot,
			  bool units1, bool skip_cpu, bool late)
{
	unsigned	tab = tf_v8_ts_table(r->new_event, st->has_any);
	uint64_t	v;

	if (!tf_v8d_ts(rd, d->tsp[tab], w, &v) ||
		(!units1 && d->unit[tab >= 2] != 1 &&
		 __builtin_mul_overflow(v, d->unit[tab >= 2], &v)))
		return -PGWT_TF_BAD_PAYLOAD;
	if (tab < 2)
	{
		if (v > last_ts - prev)
			return -PGWT_TF_BAD_PAYLOAD;
		r->ts_ns = prev + v;
	}
	else
	{
		if (v > last_ts - st->any_ts)
			return -PGWT_TF_BAD_PAYLOAD;
		r->ts_ns = st->any_ts + v;
		if (r->ts_ns < prev)
			return -PGWT_TF_BAD_PAYLOAD;	/* records ascend */
	}
	return tf_v8d_finish(d, rd, code, r, st, slot, skip_cpu, late);
}

/*
 * Record i into *r: code byte, pid, new, its ts (not before prev, the
 * previous record's), then the other fields; updates its backend's state.
 */
static inline __attribute__((always_inline)) int
tf_v8d_record(tf_v8_dec *d, tf_v8d_bits *br, tf_v8d_rd *rd, pgwt_record *r, uint64_t prev,
			  uint64_t last_ts, bool units1, bool skip_cpu, bool late)
{
	uint32_t	e,
				s0 = 0,
				s1 = 0,
				mode;
	uint8_t		code;
	uint64_t	k,
				v,
				w;
	tf_v8d_pid *st;
	tf_v8_succ *slot;
	unsigned	tab;
	int			rc;

	if (__builtin_expect(rd->pos > rd->lim, 0))
	{
		br->pos = rd->pos;
		if (!tf_v8d_to_tail(br))
			return -PGWT_TF_BAD_PAYLOAD;	/* overran: used > the stream */
		rd->base = br->base;
		rd->pos = br->pos;
		rd->lim = br->lim;
	}
	if ((e = tf_v8d_code(rd, &d->code, &w)) == 0)
		return -PGWT_TF_BAD_PAYLOAD;
	code = (uint8_t) (e >> 10);
	k = code & V8_PID_MASK;
	if (k == V8_PID_ESCAPE)
	{
		TF_GET_LEB(d->cur[V8_COL_PID], d->cend[V8_COL_PID], k);
		if (k < V8_PID_ESCAPE)
			return -PGWT_TF_BAD_PAYLOAD;
	}
	if (k >= d->np)
		return -PGWT_TF_BAD_PAYLOAD;
	st = &d->st[k];
	r->pid = st->pid;
	/* before its first record a backend has no successor context: its
	 * pushes go to a slot no lookup reads */
	slot = __builtin_expect(st->has_any, 1) ? tf_v8d_succ(d, st, &s0, &s1) : &d->scratch;
	mode = (code >> V8_NEW_SHIFT) & 3;
	r->new_event = mode == V8_NEW_SUCC0 ? s0 : mode == V8_NEW_BACK ? st->nm_old : s1;
	if (mode == V8_NEW_EXPL &&
		(rc = tf_v8d_col_event(d, V8_COL_NEW, &r->new_event)) < 0)
		return rc;
	/*
	 * ts: a marker's from its pid's previous record (rare: apart, in
	 * tf_v8d_marker), else a delta from prev under the table of whether
	 * it leaves a wait (tf_v8_ts_table); a non-marker record is its
	 * backend's latest non-marker too
	 */
	if (__builtin_expect(tf_v8_is_marker(r->new_event), 0))
		return tf_v8d_marker(d, rd, code, w, r, prev, last_ts, st, slot, units1, skip_cpu, late);
	tab = r->new_event == 0;
	if (!tf_v8d_ts(rd, d->tsp[tab], w, &v) ||
		(!units1 && d->unit[0] != 1 && __builtin_mul_overflow(v, d->unit[0], &v)))
		return -PGWT_TF_BAD_PAYLOAD;
	/* prev + v <= last_ts: no wrap, so not before prev */
	if (v > last_ts - prev)
		return -PGWT_TF_BAD_PAYLOAD;
	r->ts_ns = prev + v;
	if ((rc = tf_v8d_finish(d, rd, code, r, st, slot, skip_cpu, late)) < 0)
		return rc;
	st->nm_mask = ~(uint64_t) 0;
	st->nm_ts = r->ts_ns;
	st->nm_old = r->old_event;
	st->nm_new = r->new_event;
	return 0;
}

/* The n records of the block, their ts handed out plus shift; units1:
 * both units are 1; late: as tf_v8d_rest. */
static inline __attribute__((always_inline)) int
tf_v8d_records(tf_v8_dec *restrict d, tf_v8d_bits *br, pgwt_record *restrict recs, uint32_t n,
			   uint64_t first_ts, uint64_t last_ts, uint64_t shift, bool units1,
			   bool skip_cpu, bool late)
{
	uint64_t	prev = first_ts;
	tf_v8d_rd	rd = {br->base, br->pos, br->lim,
	d->cur[V8_COL_EXTRA], d->cend[V8_COL_EXTRA]};
	int			rc = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		pgwt_record *restrict r = &recs[i];

		if ((rc = tf_v8d_record(d, br, &rd, r, prev, last_ts, units1, skip_cpu,
								late)) < 0)
			break;
		r->kind = PGWT_REC_TRANSITION;
		r->weight_ns = 0;
		prev = r->ts_ns;
		r->ts_ns += shift;
	}
	br->pos = rd.pos;
	d->cur[V8_COL_EXTRA] = rd.xcur;
	return rc;
}

/*
 * Whether [p, end) is exactly n LEB128 values each tf_get_leb reads (at
 * most 10 bytes, the tenth 0 or 1), which is what decoding them one by
 * one would accept: the cpu column of a caller that skips cpu_ns. Eight
 * bytes at a time while none has its high bit set (1-byte values, the
 * common case).
 */
static bool
tf_v8d_leb_column(const uint8_t *p, const uint8_t *end, uint64_t n)
{
	uint64_t	count = 0;
	unsigned	run = 0;		/* continuation bytes of the value read */

	while (p < end)
	{
		if (run == 0 && end - p >= 8 && (tf_get_u64(p) & 0x8080808080808080ull) == 0)
		{
			count += 8;
			p += 8;
			continue;
		}
		if (*p & 0x80)
		{
			if (++run > 9)
				return false;
		}
		else
		{
			if (run == 9 && *p > 1)
				return false;
			run = 0;
			count++;
		}
		p++;
	}
	return run == 0 && count == n;
}

/*
 * Skipping cpu_ns: the extra bytes the records read, [x, end), say how
 * many values the cpu column holds (bit V8_X_CPU of each: eight bytes at
 * a time, the bits summed by one multiply); the column must hold exactly
 * those. It is then used up. Each byte must also be a valid extra byte
 * (1-7), which a late read (tf_v8d_rest) has not checked: no byte with a
 * bit past the third, and none zero (a borrow into its top bit).
 */
static bool
tf_v8d_cpu_skipped(tf_v8_dec *d, const uint8_t *x, const uint8_t *end)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t	n = 0,
				bad = 0;

	for (; end - x >= 8; x += 8)
	{
		uint64_t	w = tf_get_u64(x);

		bad |= (w & 0xF8F8F8F8F8F8F8F8ull) | ((w - ones) & ~w & 0x8080808080808080ull);
		n += (((w >> 2) & ones) * ones) >> 56;
	}
	for (; x < end; x++)
	{
		bad |= *x == 0 || *x > (V8_X_OLD | V8_X_DUR | V8_X_CPU);
		n += (*x & V8_X_CPU) != 0;
	}
	if (bad || !tf_v8d_leb_column(d->cur[V8_COL_CPU], d->cend[V8_COL_CPU], n))
		return false;
	d->cur[V8_COL_CPU] = d->cend[V8_COL_CPU];
	return true;
}

/* Header and code tables into d; *pp ends at the bit stream. */
static int
tf_v8d_start(const uint8_t **pp, const uint8_t *end, uint32_t n, tf_v8_dec *d)
{
	int			rc;
	uint32_t	c;

	if ((rc = tf_v8d_head(pp, end, n, d)) < 0 ||
		(rc = tf_v8d_get_table(pp, end, V8_CODE_SYMBOLS, false, &d->code)) < 0)
		return rc;
	for (c = 0; c < V8_TS_TABLES; c++)
		if ((rc = tf_v8d_get_table(pp, end, V8_TS_SYMBOLS, true, &d->ts[c])) < 0)
			return rc;
	memset(d->st, 0, d->np * sizeof(tf_v8d_pid));
	for (c = 0; c < d->np; c++)
	{
		d->st[c].pid = tf_get_u32(d->pids + 4 * (size_t) c);
		d->st[c].tag = (d->gen << V8D_TAG_BITS) | (c + 1);
		d->st[c].kh = tf_v8_succ_khash(c);
	}
	return 0;
}

int
tf_decode_transitions_v8(const uint8_t **pp, const uint8_t *end, uint32_t n,
						 uint64_t first_ts, uint64_t last_ts, pgwt_record *recs,
						 tf_v8_dec **ctx, bool skip_cpu, uint64_t shift)
{
	const uint8_t *p = *pp;
	tf_v8_dec  *d = tf_v8d_ctx_get(ctx);
	tf_v8d_bits br;
	const uint8_t *x0;
	uint64_t	used;
	uint32_t	c;
	bool		late;
	int			rc;

	if (d == NULL)
		return -PGWT_TF_NOMEM;
	if ((rc = tf_v8d_start(&p, end, n, d)) < 0)
		goto out;
	tf_v8d_bits_init(&br, p, end);
	/*
	 * with both units 1 (ns traces: the daemon's, the extension's,
	 * pgwt-synth's) no record tests its unit; a copy of the loop per
	 * skip_cpu there, the common case, and skipping cpu_ns, the extra
	 * bytes are read late when n of them from the column's start lie in
	 * the payload (the records cannot read more)
	 */
	x0 = d->cur[V8_COL_EXTRA];
	late = skip_cpu && d->unit[0] == 1 && d->unit[1] == 1 && (uint64_t) (end - x0) >= n;
	if (late)
		rc = tf_v8d_records(d, &br, recs, n, first_ts, last_ts, shift, true, true, true);
	else if (d->unit[0] == 1 && d->unit[1] == 1)
		rc = skip_cpu ? tf_v8d_records(d, &br, recs, n, first_ts, last_ts, shift, true, true, false) :
			tf_v8d_records(d, &br, recs, n, first_ts, last_ts, shift, true, false, false);
	else
		rc = tf_v8d_records(d, &br, recs, n, first_ts, last_ts, shift, false, skip_cpu, false);
	if (rc < 0)
		goto out;
	rc = -PGWT_TF_BAD_PAYLOAD;
	if (late && d->cur[V8_COL_EXTRA] > d->cend[V8_COL_EXTRA])
		goto out;				/* read past its column */
	/* skipped, the cpu column holds exactly the values the records said */
	if (skip_cpu && !tf_v8d_cpu_skipped(d, x0, d->cur[V8_COL_EXTRA]))
		goto out;
	/* the stream fills the rest of the payload, padded with zero bits */
	used = 8 * br.skipped + br.pos;
	if (used > 8 * (uint64_t) br.len || 8 * (uint64_t) br.len - used >= 8 ||
		(used & 7 && p[used >> 3] >> (used & 7)) != 0)
		goto out;
	for (c = 0; c < V8_NCOLS; c++)
		if (d->cur[c] != d->cend[c])
			goto out;
	*pp = end;
	rc = 0;
out:
	if (ctx == NULL)
		tf_v8_dec_free(d);
	return rc;
}
