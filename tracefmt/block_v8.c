/*
 * block_v8.c
 *		Codec of v8 TRANSITIONS payloads (docs/TRACE_FORMAT.md 3.1.4): v6's
 *		per-backend predictor with two additions aimed at statement markers,
 *		which in v7 each paid an explicit event index and a full-resolution
 *		timestamp delta:
 *
 *		- the new event has four predictions, chosen by two bits of the code
 *		  byte: what followed the backend's previous event the last time and
 *		  the time before (a two-entry move-to-front list per backend and
 *		  context, so a CMD_END -> COMMIT -> CMD_START cycle costs no index),
 *		  v6's "back where it came from", or an explicit table index;
 *		- a marker's ts is an offset from its backend's previous record, in
 *		  a per-block unit, under its own Huffman code: a writer that keeps
 *		  marker instants at microsecond grain pays a few bits for them.
 *
 *		The payload puts the tables and exception columns first and the bit
 *		stream last, so the decoder reads each record in one pass: its code
 *		byte, its fields, then its ts under the code the record's kind picks.
 *		Pure functions, no shared state; encoder and decoder each malloc
 *		their per-block state (tables, successor table) and free it.
 */
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

/* Code byte. */
#define V8_PID_MASK		0x0Fu
#define V8_PID_ESCAPE	15u
#define V8_NEW_SHIFT	4			/* bits 4-5: how new is found */
#define V8_NEW_SUCC0	0u			/* the context's last successor */
#define V8_NEW_BACK		1u			/* v6: L.old */
#define V8_NEW_SUCC1	2u			/* the context's successor before it */
#define V8_NEW_EXPL		3u			/* event table index in its column */
#define V8_QUERY		0x40u
#define V8_EXTRA		0x80u
/* Extra byte. */
#define V8_X_OLD		0x01u
#define V8_X_DUR		0x02u
#define V8_X_CPU		0x04u

enum
{
	V8_COL_PID, V8_COL_EXTRA, V8_COL_OLD, V8_COL_NEW, V8_COL_DUR,
	V8_COL_QUERY, V8_COL_CPU, V8_NCOLS
};

#define V8_NONE			0xFFFFu
#define V8_MAX			PGWT_TF_BLOCK_MAX_RECORDS
#define V8_TS_SYMBOLS	252
#define V8_CODE_SYMBOLS	256
#define V8_SUCC_BITS	10			/* successor table: 1024 entries */
#define V8_MARKER_IDS	15			/* 0xFFFFFFF0..0xFFFFFFFE */
#define V8_TS_TABLES	(2 + V8_MARKER_IDS)	/* two of deltas, one per marker id */

static inline bool
tf_v8_is_marker(uint32_t ev)
{
	return ev >= 0xFFFFFFF0u && ev != 0xFFFFFFFFu;
}

/* ---- the successor table (both ends run it identically) ---------------- */

/*
 * A context is the backend's previous record's (old, new) pair: leaving
 * a client read is followed by a statement start, leaving a data file
 * read by another read or the statement's end.
 */
typedef struct tf_v8_succ
{
	uint32_t	tag;			/* pid index + 1; 0 = empty */
	uint32_t	c_old,
				c_new;
	uint32_t	s0,
				s1;
} tf_v8_succ;

static inline tf_v8_succ *
tf_v8_succ_slot(tf_v8_succ *t, uint32_t k, const pgwt_record *a)
{
	uint32_t	h = (k * 2654435761u) ^ (a->new_event * 2246822519u) ^
		(a->old_event * 3266489917u);

	return &t[h >> (32 - V8_SUCC_BITS)];
}

/* Predictions of the pid's successor list after a (0 when none). */
static inline void
tf_v8_succ_get(tf_v8_succ *t, uint32_t k, const pgwt_record *a, uint32_t *s0, uint32_t *s1)
{
	tf_v8_succ *e = tf_v8_succ_slot(t, k, a);

	if (e->tag == k + 1 && e->c_old == a->old_event && e->c_new == a->new_event)
	{
		*s0 = e->s0;
		*s1 = e->s1;
	}
	else
		*s0 = *s1 = 0;
}

static inline void
tf_v8_succ_put(tf_v8_succ *t, uint32_t k, const pgwt_record *a, uint32_t ev)
{
	tf_v8_succ *e = tf_v8_succ_slot(t, k, a);

	if (e->tag != k + 1 || e->c_old != a->old_event || e->c_new != a->new_event)
	{
		e->tag = k + 1;
		e->c_old = a->old_event;
		e->c_new = a->new_event;
		e->s0 = ev;
		e->s1 = 0;
	}
	else if (e->s0 != ev)
	{
		e->s1 = e->s0;
		e->s0 = ev;
	}
}

/*
 * Which ts code a record's ts is under: a marker after a record of its
 * backend is an offset from that record, under the code of its marker id
 * (2..16); anything else a delta from the previous record, under code 1
 * when it leaves a wait (new 0), else 0.
 */
static inline unsigned
tf_v8_ts_table(uint32_t new_event, bool have_prev)
{
	if (have_prev && tf_v8_is_marker(new_event))
		return 2 + new_event - 0xFFFFFFF0u;
	return new_event == 0;
}

/* ts value v -> (symbol, raw bit count): the v7 rule (3.1.3). */
static inline unsigned
tf_v8_ts_symbol(uint64_t v, unsigned *nraw)
{
	unsigned	b;

	if (v < 8)
	{
		*nraw = 0;
		return (unsigned) v;
	}
	b = 64 - (unsigned) __builtin_clzll(v);
	*nraw = b - 3;
	return 8 + 4 * (b - 4) + (unsigned) ((v >> (b - 3)) & 3);
}

static uint64_t
tf_v8_gcd(uint64_t a, uint64_t b)
{
	while (b)
	{
		uint64_t	t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* ---- encoder ------------------------------------------------------------ */

#define V8_PID_SLOTS	(2 * V8_MAX)
#define V8_EV_SLOTS		(4 * V8_MAX)
#define V8_Q_SLOTS		(2 * V8_MAX)

typedef struct tf_v8_enc
{
	uint32_t	pids[V8_MAX];	/* by first appearance */
	uint32_t	pid_count[V8_MAX];
	uint16_t	rank[V8_MAX];	/* first appearance -> table index */
	uint16_t	order[V8_MAX];	/* table index -> first appearance */
	uint64_t	keys[V8_MAX];
	uint16_t	rec_pid[V8_MAX];
	uint16_t	pid_hash[V8_PID_SLOTS];
	uint32_t	events[2 * V8_MAX];
	uint16_t	ev_hash[V8_EV_SLOTS];
	uint64_t	queries[V8_MAX];
	uint16_t	q_hash[V8_Q_SLOTS];
	uint16_t	last_nm[V8_MAX];
	uint16_t	last_any[V8_MAX];
	uint8_t		codes[V8_MAX];
	uint8_t		tstab[V8_MAX];	/* its ts table (tf_v8_ts_table) */
	uint64_t	tsv[V8_MAX];	/* the stored ts value (before the unit) */
	tf_v8_succ	succ[1u << V8_SUCC_BITS];
	uint8_t		col[V8_NCOLS][10 * V8_MAX];
	size_t		col_len[V8_NCOLS];
} tf_v8_enc;

static inline uint32_t
tf_v8_hash(uint64_t v, uint32_t slots)
{
	v *= 0x9E3779B97F4A7C15ull;
	return (uint32_t) (v >> 40) & (slots - 1);
}

/* Index of v among vals (a table in first-use order), added when new. */
#define V8_LOOKUP(fn, type, arr, hash, slots) \
static uint32_t \
fn(tf_v8_enc *s, uint32_t *cnt, type v) \
{ \
	uint32_t	h = tf_v8_hash(v, slots); \
	for (;; h = (h + 1) & ((slots) - 1)) \
	{ \
		uint16_t	e = s->hash[h]; \
		if (e == V8_NONE) \
		{ \
			s->arr[*cnt] = v; \
			s->hash[h] = (uint16_t) *cnt; \
			return (*cnt)++; \
		} \
		if (s->arr[e] == v) \
			return e; \
	} \
}
V8_LOOKUP(tf_v8_pid_index, uint32_t, pids, pid_hash, V8_PID_SLOTS)
V8_LOOKUP(tf_v8_event_index, uint32_t, events, ev_hash, V8_EV_SLOTS)
V8_LOOKUP(tf_v8_query_index, uint64_t, queries, q_hash, V8_Q_SLOTS)
#undef V8_LOOKUP

static int
tf_v8_cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Pid table most frequent first (the busiest 15 need no escape). */
static void
tf_v8_rank_pids(tf_v8_enc *s, const pgwt_record *recs, uint32_t n, uint32_t *np)
{
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		uint32_t	before = *np;
		uint32_t	k = tf_v8_pid_index(s, np, recs[i].pid);

		if (*np != before)
			s->pid_count[k] = 0;
		s->rec_pid[i] = (uint16_t) k;
		s->pid_count[k]++;
	}
	for (i = 0; i < *np; i++)
		s->keys[i] = ((uint64_t) (UINT32_MAX - s->pid_count[i]) << 32) | i;
	qsort(s->keys, *np, sizeof(uint64_t), tf_v8_cmp_u64);
	for (i = 0; i < *np; i++)
	{
		s->order[i] = (uint16_t) (s->keys[i] & 0xFFFF);
		s->rank[s->order[i]] = (uint16_t) i;
	}
}

/* Fields of every record: code bytes, exception columns, ts values. */
static void
tf_v8_encode_fields(tf_v8_enc *s, const pgwt_record *recs, uint32_t n,
					uint32_t *ne, uint32_t *nq)
{
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		const pgwt_record *r = &recs[i];
		uint16_t	k = s->rank[s->rec_pid[i]];
		uint16_t	j = s->last_nm[k],
					a = s->last_any[k];
		uint32_t	back = j != V8_NONE ? recs[j].old_event : 0;
		uint32_t	s0 = 0,
					s1 = 0;
		uint64_t	dur_pred = j != V8_NONE ? r->ts_ns - recs[j].ts_ns : 0;
		uint64_t	q_pred = a != V8_NONE ? recs[a].query_id : 0;
		uint8_t		code,
					extra = 0,
					mode;

#define V8_PUT(ci, v) (s->col_len[ci] += tf_put_leb(s->col[ci] + s->col_len[ci], (v)))
		if (a != V8_NONE)
			tf_v8_succ_get(s->succ, k, &recs[a], &s0, &s1);
		code = k < V8_PID_ESCAPE ? (uint8_t) k : V8_PID_ESCAPE;
		if (k >= V8_PID_ESCAPE)
			V8_PUT(V8_COL_PID, k);
		if (r->new_event == s0)
			mode = V8_NEW_SUCC0;
		else if (r->new_event == back)
			mode = V8_NEW_BACK;
		else if (r->new_event == s1)
			mode = V8_NEW_SUCC1;
		else
		{
			mode = V8_NEW_EXPL;
			V8_PUT(V8_COL_NEW, tf_v8_event_index(s, ne, r->new_event));
		}
		code |= (uint8_t) (mode << V8_NEW_SHIFT);
		if (r->old_event != (j != V8_NONE ? recs[j].new_event : 0))
		{
			extra |= V8_X_OLD;
			V8_PUT(V8_COL_OLD, tf_v8_event_index(s, ne, r->old_event));
		}
		if (r->duration_ns != dur_pred)
		{
			extra |= V8_X_DUR;
			V8_PUT(V8_COL_DUR, tf_zigzag((int64_t) (r->duration_ns - dur_pred)));
		}
		if (r->query_id != q_pred)
		{
			code |= V8_QUERY;
			V8_PUT(V8_COL_QUERY, tf_v8_query_index(s, nq, r->query_id));
		}
		if (r->cpu_ns != PGWT_CPU_UNKNOWN)
		{
			extra |= V8_X_CPU;
			V8_PUT(V8_COL_CPU, tf_zigzag((int64_t) (r->cpu_ns -
													(r->old_event == 0 ? r->duration_ns : 0))));
		}
#undef V8_PUT
		if (extra)
		{
			code |= V8_EXTRA;
			s->col[V8_COL_EXTRA][s->col_len[V8_COL_EXTRA]++] = extra;
		}
		s->codes[i] = code;
		s->tstab[i] = (uint8_t) tf_v8_ts_table(r->new_event, a != V8_NONE);
		s->tsv[i] = s->tstab[i] >= 2 ? r->ts_ns - recs[a].ts_ns :
			i ? r->ts_ns - recs[i - 1].ts_ns : 0;
		if (a != V8_NONE)
			tf_v8_succ_put(s->succ, k, &recs[a], r->new_event);
		s->last_any[k] = (uint16_t) i;
		if (!tf_v8_is_marker(r->new_event))
			s->last_nm[k] = (uint16_t) i;
	}
}

typedef struct tf_v8_bitw
{
	uint8_t    *p;
	uint64_t	acc;
	unsigned	cnt;
} tf_v8_bitw;

/* Appends the nbits (<= 32) low bits of v, least significant first. */
static inline void
tf_v8_put(tf_v8_bitw *w, uint64_t v, unsigned nbits)
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

/* One ts value: its symbol's code, then its raw bits. */
static inline void
tf_v8_put_ts(tf_v8_bitw *w, uint64_t v, const uint32_t *rev, const uint8_t *len)
{
	unsigned	nraw,
				sym = tf_v8_ts_symbol(v, &nraw);

	tf_v8_put(w, rev[sym], len[sym]);
	if (nraw > 32)
	{
		tf_v8_put(w, v & 0xFFFFFFFFu, 32);
		tf_v8_put(w, (v >> 32) & ((1ull << (nraw - 32)) - 1), nraw - 32);
	}
	else
		tf_v8_put(w, v & ((1ull << nraw) - 1), nraw);
}

/* The code tables (code bytes, then the ts tables) and the bit stream. */
static uint8_t *
tf_v8_encode_stream(tf_v8_enc *s, uint32_t n, const uint64_t unit[2], uint8_t *p)
{
	enum
	{
		NT = 1 + V8_TS_TABLES
	};
	uint32_t	freq[NT][V8_CODE_SYMBOLS];
	uint32_t	rev[NT][V8_CODE_SYMBOLS];
	uint8_t		len[NT][V8_CODE_SYMBOLS];
	tf_v8_bitw	w;
	uint32_t	i,
				t;

	memset(freq, 0, sizeof(freq));
	for (i = 0; i < n; i++)
	{
		unsigned	nraw;

		s->tsv[i] /= unit[s->tstab[i] >= 2];
		freq[0][s->codes[i]]++;
		freq[1 + s->tstab[i]][tf_v8_ts_symbol(s->tsv[i], &nraw)]++;
	}
	for (t = 0; t < NT; t++)
	{
		unsigned	nsym = t ? V8_TS_SYMBOLS : V8_CODE_SYMBOLS,
					m;

		/* a code table has a symbol at least: 0 when nothing uses it */
		for (m = 0; m < nsym && freq[t][m] == 0; m++)
			;
		if (m == nsym)
			freq[t][0] = 1;
		tf_v7_code_lengths(freq[t], nsym, len[t]);
		(void) tf_v7_canonical(len[t], nsym, rev[t]);
		p = tf_v7_put_lengths(p, len[t], nsym);
	}
	w.p = p;
	w.acc = 0;
	w.cnt = 0;
	for (i = 0; i < n; i++)
	{
		tf_v8_put(&w, rev[0][s->codes[i]], len[0][s->codes[i]]);
		tf_v8_put_ts(&w, s->tsv[i], rev[1 + s->tstab[i]], len[1 + s->tstab[i]]);
	}
	if (w.cnt)
		*w.p++ = (uint8_t) w.acc;
	return w.p;
}

uint8_t *
tf_encode_transitions_v8(const pgwt_record *recs, uint32_t n, uint8_t *p)
{
	tf_v8_enc  *s = malloc(sizeof(tf_v8_enc));
	uint32_t	np = 0,
				ne = 0,
				nq = 0,
				i,
				c;
	uint64_t	unit[2] = {0, 0};

	if (s == NULL)
		return NULL;
	memset(s->pid_hash, 0xFF, sizeof(s->pid_hash));
	memset(s->ev_hash, 0xFF, sizeof(s->ev_hash));
	memset(s->q_hash, 0xFF, sizeof(s->q_hash));
	memset(s->succ, 0, sizeof(s->succ));
	memset(s->col_len, 0, sizeof(s->col_len));
	tf_v8_rank_pids(s, recs, n, &np);
	memset(s->last_nm, 0xFF, np * sizeof(uint16_t));
	memset(s->last_any, 0xFF, np * sizeof(uint16_t));
	tf_v8_encode_fields(s, recs, n, &ne, &nq);

	/* units: the largest number dividing every value of each kind */
	for (i = 0; i < n; i++)
		unit[s->tstab[i] >= 2] = tf_v8_gcd(unit[s->tstab[i] >= 2], s->tsv[i]);
	for (c = 0; c < 2; c++)
	{
		if (unit[c] == 0)
			unit[c] = 1;
		p += tf_put_leb(p, unit[c]);
	}
	p += tf_put_leb(p, np);
	for (i = 0; i < np; i++, p += 4)
		tf_put_u32(p, s->pids[s->order[i]]);
	p += tf_put_leb(p, ne);
	for (i = 0; i < ne; i++, p += 4)
		tf_put_u32(p, s->events[i]);
	p += tf_put_leb(p, nq);
	for (i = 0; i < nq; i++, p += 8)
		tf_put_u64(p, s->queries[i]);
	for (c = 0; c < V8_NCOLS; c++)
		p += tf_put_leb(p, s->col_len[c]);
	for (c = 0; c < V8_NCOLS; c++)
	{
		memcpy(p, s->col[c], s->col_len[c]);
		p += s->col_len[c];
	}
	p = tf_v8_encode_stream(s, n, unit, p);
	free(s);
	return p;
}

/* ---- decoder ------------------------------------------------------------ */

typedef struct tf_v8_bitr
{
	const uint8_t *p,
			   *end;
	uint64_t	buf;
	unsigned	cnt;
	uint64_t	past;			/* zero bytes supplied past the end */
} tf_v8_bitr;

/* Keeps at least 56 bits buffered; past the end it supplies zeros. */
static inline void
tf_v8_refill(tf_v8_bitr *r)
{
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
tf_v8_take(tf_v8_bitr *r, unsigned nbits)
{
	uint64_t	v = r->buf & ((1ull << nbits) - 1);

	r->buf >>= nbits;
	r->cnt -= nbits;
	return v;
}

/* One symbol of table t: its entry (0 when no code starts here). */
static inline uint32_t
tf_v8_sym(tf_v8_bitr *r, const tf_v7_table *t)
{
	uint32_t	e;

	tf_v8_refill(r);
	e = t->e[r->buf & ((1u << t->bits) - 1)];
	if (e != 0)
		tf_v8_take(r, e & 15);
	return e;
}

/* A ts value of table t (symbol + raw bits); false on a bad code. */
static inline bool
tf_v8_get_ts(tf_v8_bitr *r, const tf_v7_table *t, uint64_t *v)
{
	uint32_t	e = tf_v8_sym(r, t);
	unsigned	nraw = (e >> 4) & 63;

	if (e == 0)
		return false;
	*v = (uint64_t) (e >> 10) << nraw;
	if (nraw > 32)
	{
		*v |= tf_v8_take(r, 32);
		tf_v8_refill(r);
		*v |= tf_v8_take(r, nraw - 32) << 32;
	}
	else
		*v |= tf_v8_take(r, nraw);
	return true;
}

typedef struct tf_v8_dec
{
	const uint8_t *pids,
			   *events,
			   *queries;
	uint64_t	np,
				ne,
				nq,
				unit[2];
	const uint8_t *cur[V8_NCOLS],
			   *cend[V8_NCOLS];
	tf_v7_table code,
				ts[V8_TS_TABLES];
	uint16_t	last_nm[V8_MAX],
				last_any[V8_MAX];
	tf_v8_succ	succ[1u << V8_SUCC_BITS];
} tf_v8_dec;

/* Units, tables, column lengths and columns; p ends at the code tables. */
static int
tf_v8_decode_head(const uint8_t **pp, const uint8_t *end, uint32_t n, tf_v8_dec *d)
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
tf_v8_col_event(tf_v8_dec *d, int c, uint32_t *ev)
{
	uint64_t	v;

	TF_GET_LEB(d->cur[c], d->cend[c], v);
	if (v >= d->ne)
		return -PGWT_TF_BAD_PAYLOAD;
	*ev = tf_get_u32(d->events + 4 * v);
	return 0;
}

/*
 * Record i: code byte, pid, new, its ts (not before prev, the previous
 * record's), then the other fields; updates its backend's state.
 */
static int
tf_v8_decode_record(tf_v8_dec *d, tf_v8_bitr *br, pgwt_record *recs, uint32_t i,
					uint64_t prev, uint64_t last_ts)
{
	pgwt_record *r = &recs[i];
	uint32_t	e = tf_v8_sym(br, &d->code);
	uint8_t		code = (uint8_t) (e >> 10),
				extra = 0;
	uint64_t	k = code & V8_PID_MASK,
				v;
	uint16_t	j,
				a;
	uint32_t	s0 = 0,
				s1 = 0;
	unsigned	tab;
	int			rc;

	if (e == 0)
		return -PGWT_TF_BAD_PAYLOAD;
	if (k == V8_PID_ESCAPE)
	{
		TF_GET_LEB(d->cur[V8_COL_PID], d->cend[V8_COL_PID], k);
		if (k < V8_PID_ESCAPE)
			return -PGWT_TF_BAD_PAYLOAD;
	}
	if (k >= d->np)
		return -PGWT_TF_BAD_PAYLOAD;
	j = d->last_nm[k];
	a = d->last_any[k];
	r->kind = PGWT_REC_TRANSITION;
	r->weight_ns = 0;
	r->pid = tf_get_u32(d->pids + 4 * k);
	if (a != V8_NONE)
		tf_v8_succ_get(d->succ, (uint32_t) k, &recs[a], &s0, &s1);
	switch ((code >> V8_NEW_SHIFT) & 3)
	{
		case V8_NEW_SUCC0:
			r->new_event = s0;
			break;
		case V8_NEW_BACK:
			r->new_event = j != V8_NONE ? recs[j].old_event : 0;
			break;
		case V8_NEW_SUCC1:
			r->new_event = s1;
			break;
		default:
			if ((rc = tf_v8_col_event(d, V8_COL_NEW, &r->new_event)) < 0)
				return rc;
	}
	/* ts: a marker's from its pid's previous record, else from prev */
	tab = tf_v8_ts_table(r->new_event, a != V8_NONE);
	if (!tf_v8_get_ts(br, &d->ts[tab], &v) ||
		__builtin_mul_overflow(v, d->unit[tab >= 2], &v))
		return -PGWT_TF_BAD_PAYLOAD;
	r->ts_ns = tab >= 2 ? recs[a].ts_ns : prev;
	if (v > last_ts - r->ts_ns)
		return -PGWT_TF_BAD_PAYLOAD;
	r->ts_ns += v;
	if (r->ts_ns < prev)
		return -PGWT_TF_BAD_PAYLOAD;	/* records ascend */
	if (code & V8_EXTRA)
	{
		if (d->cur[V8_COL_EXTRA] >= d->cend[V8_COL_EXTRA])
			return -PGWT_TF_BAD_PAYLOAD;
		extra = *d->cur[V8_COL_EXTRA]++;
		if (extra == 0 || (extra & ~(V8_X_OLD | V8_X_DUR | V8_X_CPU)))
			return -PGWT_TF_BAD_PAYLOAD;
	}
	if (extra & V8_X_OLD)
	{
		if ((rc = tf_v8_col_event(d, V8_COL_OLD, &r->old_event)) < 0)
			return rc;
	}
	else
		r->old_event = j != V8_NONE ? recs[j].new_event : 0;
	r->duration_ns = j != V8_NONE ? r->ts_ns - recs[j].ts_ns : 0;
	if (extra & V8_X_DUR)
	{
		TF_GET_LEB(d->cur[V8_COL_DUR], d->cend[V8_COL_DUR], v);
		r->duration_ns += (uint64_t) tf_unzigzag(v);	/* modulo 2^64 */
	}
	if (code & V8_QUERY)
	{
		TF_GET_LEB(d->cur[V8_COL_QUERY], d->cend[V8_COL_QUERY], v);
		if (v >= d->nq)
			return -PGWT_TF_BAD_PAYLOAD;
		r->query_id = tf_get_u64(d->queries + 8 * v);
	}
	else
		r->query_id = a != V8_NONE ? recs[a].query_id : 0;
	if (extra & V8_X_CPU)
	{
		TF_GET_LEB(d->cur[V8_COL_CPU], d->cend[V8_COL_CPU], v);
		r->cpu_ns = (r->old_event == 0 ? r->duration_ns : 0) + (uint64_t) tf_unzigzag(v);
	}
	else
		r->cpu_ns = PGWT_CPU_UNKNOWN;
	if (a != V8_NONE)
		tf_v8_succ_put(d->succ, (uint32_t) k, &recs[a], r->new_event);
	d->last_any[k] = (uint16_t) i;
	if (!tf_v8_is_marker(r->new_event))
		d->last_nm[k] = (uint16_t) i;
	return 0;
}

int
tf_decode_transitions_v8(const uint8_t **pp, const uint8_t *end, uint32_t n,
						 uint64_t first_ts, uint64_t last_ts, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	tf_v8_dec  *d = malloc(sizeof(tf_v8_dec));
	tf_v8_bitr	br;
	uint64_t	prev = first_ts,
				used;
	uint32_t	i,
				c;
	int			rc;

	if (d == NULL)
		return -PGWT_TF_NOMEM;
	if ((rc = tf_v8_decode_head(&p, end, n, d)) < 0 ||
		(rc = tf_v7_get_table(&p, end, V8_CODE_SYMBOLS, false, &d->code)) < 0)
		goto out;
	for (c = 0; c < V8_TS_TABLES; c++)
		if ((rc = tf_v7_get_table(&p, end, V8_TS_SYMBOLS, true, &d->ts[c])) < 0)
			goto out;
	memset(d->last_nm, 0xFF, d->np * sizeof(uint16_t));
	memset(d->last_any, 0xFF, d->np * sizeof(uint16_t));
	memset(d->succ, 0, sizeof(d->succ));
	br.p = p;
	br.end = end;
	br.buf = 0;
	br.cnt = 0;
	br.past = 0;
	for (i = 0; i < n; i++)
	{
		if ((rc = tf_v8_decode_record(d, &br, recs, i, prev, last_ts)) < 0)
			goto out;
		prev = recs[i].ts_ns;
	}
	/* the stream fills the rest of the payload, padded with zero bits */
	rc = -PGWT_TF_BAD_PAYLOAD;
	used = 8 * ((uint64_t) (br.p - p) + br.past) - br.cnt;
	if (used > 8 * (uint64_t) (end - p) || 8 * (uint64_t) (end - p) - used >= 8 ||
		(br.cnt >= 64 ? br.buf : br.buf & ((1ull << br.cnt) - 1)) != 0)
		goto out;
	for (c = 0; c < V8_NCOLS; c++)
		if (d->cur[c] != d->cend[c])
			goto out;
	*pp = end;
	rc = 0;
out:
	free(d);
	return rc;
}
