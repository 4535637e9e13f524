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
 *
 *		This file is the encoder (the decoder is block_v8_dec.c, the rules
 *		both run tf_v8.h). Pure functions, no shared state; the encoder
 *		mallocs its per-block state and frees it.
 */
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"
#include "tracefmt/tf_v8.h"

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
			tf_v8_succ_get(s->succ, k, k + 1u, &recs[a], &s0, &s1);
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
			tf_v8_succ_put(s->succ, k, k + 1u, &recs[a], r->new_event);
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
	p = tf_put_dicts_columns(p, s->pids, s->order, np, s->events, ne, s->queries, nq,
							 &s->col[0][0], sizeof(s->col[0]), s->col_len, V8_NCOLS);
	p = tf_v8_encode_stream(s, n, unit, p);
	free(s);
	return p;
}
