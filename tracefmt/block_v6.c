/*
 * block_v6.c
 *		Codec of v6 TRANSITIONS payloads (docs/TRACE_FORMAT.md 3.1.2): every
 *		field of a record is predicted from the previous record of the same
 *		backend in the block, and only what the prediction misses is stored.
 *		A record that continues its backend's chain (old = the previous new,
 *		new = the previous old, duration = time since the previous
 *		transition, the same query id, cpu unknown or all of the state's
 *		time when on CPU and none in a wait) costs its timestamp
 *		delta and one code byte. Missed fields go to exception columns, with
 *		events and query ids as indexes into small per-block tables.
 *
 *		Pure functions, no I/O and no shared state. The encoder takes one
 *		malloc'd scratch area per block; the decoder keeps its per-backend
 *		state on the stack (two u16 per pid slot).
 */
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

/* Code byte (one per record). */
#define V6_PID_MASK		0x0Fu		/* pid table index; 15 = escaped */
#define V6_PID_ESCAPE	15u
#define V6_NEW			0x10u		/* new event explicit */
#define V6_QUERY		0x20u		/* query id explicit */
#define V6_CPU			0x40u		/* cpu_ns known */
#define V6_EXTRA		0x80u		/* an extra byte follows */
/* Extra byte (rare fields). */
#define V6_X_OLD		0x01u		/* old event explicit */
#define V6_X_DUR		0x02u		/* duration residual */

/* Exception columns, in payload order. */
enum
{
	V6_COL_PID, V6_COL_EXTRA, V6_COL_OLD, V6_COL_NEW, V6_COL_DUR,
	V6_COL_QUERY, V6_COL_CPU, V6_NCOLS
};

#define V6_NONE			0xFFFFu
#define V6_MAX			PGWT_TF_BLOCK_MAX_RECORDS

/*
 * The predictor's notion of a marker covers the whole reserved range
 * 0xFFFFFFF0..0xFFFFFFFE, assigned or not, so the format does not change
 * when a new marker id is given out.
 */
static inline bool
tf_v6_is_marker(uint32_t ev)
{
	return ev >= 0xFFFFFFF0u && ev != 0xFFFFFFFFu;
}

/* ---- encoder -------------------------------------------------------- */

/* Open-addressing hash tables map values to table indexes. */
#define V6_PID_SLOTS	(2 * V6_MAX)
#define V6_EV_SLOTS		(4 * V6_MAX)
#define V6_Q_SLOTS		(2 * V6_MAX)

typedef struct tf_v6_scratch
{
	uint32_t	pids[V6_MAX];		/* by first appearance */
	uint32_t	pid_count[V6_MAX];
	uint16_t	pid_rank[V6_MAX];	/* first-appearance index -> table index */
	uint16_t	order[V6_MAX];		/* table index -> first-appearance index */
	uint64_t	sort_keys[V6_MAX];
	uint16_t	rec_pid[V6_MAX];	/* record -> first-appearance index */
	uint16_t	pid_hash[V6_PID_SLOTS];
	uint32_t	events[2 * V6_MAX];
	uint16_t	ev_hash[V6_EV_SLOTS];
	uint64_t	queries[V6_MAX];
	uint16_t	q_hash[V6_Q_SLOTS];
	uint16_t	last_nm[V6_MAX];	/* per table index: last non-marker record */
	uint16_t	last_any[V6_MAX];	/* per table index: last record */
	uint8_t		codes[V6_MAX];
	uint8_t		col[V6_NCOLS][10 * V6_MAX];
	size_t		col_len[V6_NCOLS];
} tf_v6_scratch;

static inline uint32_t
tf_v6_hash(uint64_t v, uint32_t slots)
{
	v *= 0x9E3779B97F4A7C15ull;
	return (uint32_t) (v >> 40) & (slots - 1);
}

/* Index of pid among the first-appearance pids, adding it when new. */
static uint16_t
tf_v6_pid_index(tf_v6_scratch *s, uint32_t *np, uint32_t pid)
{
	uint32_t	h = tf_v6_hash(pid, V6_PID_SLOTS);

	for (;; h = (h + 1) & (V6_PID_SLOTS - 1))
	{
		uint16_t	e = s->pid_hash[h];

		if (e == V6_NONE)
		{
			s->pids[*np] = pid;
			s->pid_count[*np] = 0;
			s->pid_hash[h] = (uint16_t) *np;
			return (uint16_t) (*np)++;
		}
		if (s->pids[e] == pid)
			return e;
	}
}

static uint32_t
tf_v6_event_index(tf_v6_scratch *s, uint32_t *ne, uint32_t ev)
{
	uint32_t	h = tf_v6_hash(ev, V6_EV_SLOTS);

	for (;; h = (h + 1) & (V6_EV_SLOTS - 1))
	{
		uint16_t	e = s->ev_hash[h];

		if (e == V6_NONE)
		{
			s->events[*ne] = ev;
			s->ev_hash[h] = (uint16_t) *ne;
			return (*ne)++;
		}
		if (s->events[e] == ev)
			return e;
	}
}

static uint32_t
tf_v6_query_index(tf_v6_scratch *s, uint32_t *nq, uint64_t q)
{
	uint32_t	h = tf_v6_hash(q, V6_Q_SLOTS);

	for (;; h = (h + 1) & (V6_Q_SLOTS - 1))
	{
		uint16_t	e = s->q_hash[h];

		if (e == V6_NONE)
		{
			s->queries[*nq] = q;
			s->q_hash[h] = (uint16_t) *nq;
			return (*nq)++;
		}
		if (s->queries[e] == q)
			return e;
	}
}

static int
tf_v6_cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * Orders the pid table most frequent first, so the common backends get
 * the 15 inline code values; ties keep first-appearance order.
 */
static void
tf_v6_rank_pids(tf_v6_scratch *s, uint32_t np)
{
	uint32_t	i;

	for (i = 0; i < np; i++)
		s->sort_keys[i] = ((uint64_t) (UINT32_MAX - s->pid_count[i]) << 32) | i;
	qsort(s->sort_keys, np, sizeof(uint64_t), tf_v6_cmp_u64);
	for (i = 0; i < np; i++)
	{
		s->order[i] = (uint16_t) (s->sort_keys[i] & 0xFFFF);
		s->pid_rank[s->order[i]] = (uint16_t) i;
	}
}

uint8_t *
tf_encode_transitions_v6(const pgwt_record *recs, uint32_t n, uint8_t *p)
{
	/* the code bytes lead the payload; the rest follows them */
	return tf_encode_v6_fields(recs, n, p, p + n);
}

uint8_t *
tf_encode_v6_fields(const pgwt_record *recs, uint32_t n, uint8_t *codes,
					uint8_t *p)
{
	tf_v6_scratch *s = malloc(sizeof(tf_v6_scratch));
	uint32_t	np = 0,
				ne = 0,
				nq = 0,
				i;

	if (s == NULL)
		return NULL;
	memset(s->pid_hash, 0xFF, sizeof(s->pid_hash));
	memset(s->ev_hash, 0xFF, sizeof(s->ev_hash));
	memset(s->q_hash, 0xFF, sizeof(s->q_hash));
	memset(s->col_len, 0, sizeof(s->col_len));

	for (i = 0; i < n; i++)
	{
		uint16_t	k = tf_v6_pid_index(s, &np, recs[i].pid);

		s->rec_pid[i] = k;
		s->pid_count[k]++;
	}
	tf_v6_rank_pids(s, np);
	memset(s->last_nm, 0xFF, np * sizeof(uint16_t));
	memset(s->last_any, 0xFF, np * sizeof(uint16_t));

	for (i = 0; i < n; i++)
	{
		const pgwt_record *r = &recs[i];
		uint16_t	k = s->pid_rank[s->rec_pid[i]];
		uint16_t	j = s->last_nm[k];
		uint16_t	a = s->last_any[k];
		uint32_t	old_pred = j != V6_NONE ? recs[j].new_event : 0;
		uint32_t	new_pred = j != V6_NONE ? recs[j].old_event : 0;
		uint64_t	dur_pred = j != V6_NONE ? r->ts_ns - recs[j].ts_ns : 0;
		uint64_t	q_pred = a != V6_NONE ? recs[a].query_id : 0;
		uint8_t		code,
					extra = 0;

#define V6_PUT(ci, v) (s->col_len[ci] += tf_put_leb(s->col[ci] + s->col_len[ci], (v)))
		if (k < V6_PID_ESCAPE)
			code = (uint8_t) k;
		else
		{
			code = V6_PID_ESCAPE;
			V6_PUT(V6_COL_PID, k);
		}
		if (r->old_event != old_pred)
		{
			extra |= V6_X_OLD;
			V6_PUT(V6_COL_OLD, tf_v6_event_index(s, &ne, r->old_event));
		}
		if (r->duration_ns != dur_pred)
		{
			extra |= V6_X_DUR;
			V6_PUT(V6_COL_DUR, tf_zigzag((int64_t) (r->duration_ns - dur_pred)));
		}
		if (r->new_event != new_pred)
		{
			code |= V6_NEW;
			V6_PUT(V6_COL_NEW, tf_v6_event_index(s, &ne, r->new_event));
		}
		if (r->query_id != q_pred)
		{
			code |= V6_QUERY;
			V6_PUT(V6_COL_QUERY, tf_v6_query_index(s, &nq, r->query_id));
		}
		if (r->cpu_ns != PGWT_CPU_UNKNOWN)
		{
			/* CPU time in a state: all of it on CPU (old 0), none in a wait */
			uint64_t	cpu_pred = r->old_event == 0 ? r->duration_ns : 0;

			code |= V6_CPU;
			V6_PUT(V6_COL_CPU, tf_zigzag((int64_t) (r->cpu_ns - cpu_pred)));
		}
#undef V6_PUT
		if (extra)
		{
			code |= V6_EXTRA;
			s->col[V6_COL_EXTRA][s->col_len[V6_COL_EXTRA]++] = extra;
		}
		s->codes[i] = code;
		s->last_any[k] = (uint16_t) i;
		if (!tf_v6_is_marker(r->new_event))
			s->last_nm[k] = (uint16_t) i;
	}

	memcpy(codes, s->codes, n);
	p = tf_put_dicts_columns(p, s->pids, s->order, np, s->events, ne, s->queries, nq,
							 &s->col[0][0], sizeof(s->col[0]), s->col_len, V6_NCOLS);
	free(s);
	return p;
}

/* ---- decoder -------------------------------------------------------- */


int
tf_decode_transitions_v6(const uint8_t **pp, const uint8_t *end, uint32_t n,
						 pgwt_record *recs)
{
	const uint8_t *codes = *pp;

	if ((size_t) (end - codes) < n)
		return -PGWT_TF_BAD_PAYLOAD;
	*pp = codes + n;
	return tf_decode_v6_fields(codes, pp, end, n, recs);
}

/* A block's tables: the pids, events and query ids the records index. */
typedef struct tf_v6_tables
{
	const uint8_t *pids,
			   *events,
			   *queries;
	uint64_t	np,
				ne,
				nq;
} tf_v6_tables;

/* Tables: no more entries than a block can use. */
static inline int
tf_v6_decode_tables(const uint8_t **pp, const uint8_t *end, uint32_t n, tf_v6_tables *t)
{
	const uint8_t *p = *pp;

	TF_GET_LEB(p, end, t->np);
	if (t->np < 1 || t->np > n || (uint64_t) (end - p) < t->np * 4)
		return -PGWT_TF_BAD_PAYLOAD;
	t->pids = p;
	p += t->np * 4;
	TF_GET_LEB(p, end, t->ne);
	if (t->ne > 2 * (uint64_t) n || (uint64_t) (end - p) < t->ne * 4)
		return -PGWT_TF_BAD_PAYLOAD;
	t->events = p;
	p += t->ne * 4;
	TF_GET_LEB(p, end, t->nq);
	if (t->nq > n || (uint64_t) (end - p) < t->nq * 8)
		return -PGWT_TF_BAD_PAYLOAD;
	t->queries = p;
	p += t->nq * 8;
	*pp = p;
	return 0;
}

/* Column lengths, then the columns; together they fill the payload. */
static inline int
tf_v6_decode_columns(const uint8_t *p, const uint8_t *end,
					 const uint8_t **cur, const uint8_t **cend)
{
	const uint8_t *lens = p;
	uint64_t	total = 0,
				len;
	uint32_t	c;

	for (c = 0; c < V6_NCOLS; c++)
	{
		TF_GET_LEB(p, end, len);
		if (len > (uint64_t) (end - lens))
			return -PGWT_TF_BAD_PAYLOAD;
		total += len;
	}
	if (total != (uint64_t) (end - p))
		return -PGWT_TF_BAD_PAYLOAD;
	for (c = 0; c < V6_NCOLS; c++)
	{
		TF_GET_LEB(lens, end, len);
		cur[c] = p;
		p += len;
		cend[c] = p;
	}
	return 0;
}

/*
 * One record's fields past its pid, from its code byte, the exception
 * columns and its backend's previous records (j: the last that was no
 * marker, a: the last of any kind; V6_NONE when there is none).
 */
static inline int
tf_v6_decode_record(pgwt_record *r, const pgwt_record *recs, uint8_t code,
					uint16_t j, uint16_t a, const uint8_t **cur,
					const uint8_t *const *cend, const tf_v6_tables *t)
{
	uint8_t		extra = 0;
	uint64_t	v;

	if (code & V6_EXTRA)
	{
		if (cur[V6_COL_EXTRA] >= cend[V6_COL_EXTRA])
			return -PGWT_TF_BAD_PAYLOAD;
		extra = *cur[V6_COL_EXTRA]++;
		if (extra == 0 || (extra & ~(V6_X_OLD | V6_X_DUR)))
			return -PGWT_TF_BAD_PAYLOAD;
	}
	if (extra & V6_X_OLD)
	{
		TF_GET_LEB(cur[V6_COL_OLD], cend[V6_COL_OLD], v);
		if (v >= t->ne)
			return -PGWT_TF_BAD_PAYLOAD;
		r->old_event = tf_get_u32(t->events + 4 * v);
	}
	else
		r->old_event = j != V6_NONE ? recs[j].new_event : 0;
	if (code & V6_NEW)
	{
		TF_GET_LEB(cur[V6_COL_NEW], cend[V6_COL_NEW], v);
		if (v >= t->ne)
			return -PGWT_TF_BAD_PAYLOAD;
		r->new_event = tf_get_u32(t->events + 4 * v);
	}
	else
		r->new_event = j != V6_NONE ? recs[j].old_event : 0;
	r->duration_ns = j != V6_NONE ? r->ts_ns - recs[j].ts_ns : 0;
	if (extra & V6_X_DUR)
	{
		TF_GET_LEB(cur[V6_COL_DUR], cend[V6_COL_DUR], v);
		/* modulo 2^64, as the encoder subtracted: every value is valid */
		r->duration_ns += (uint64_t) tf_unzigzag(v);
	}
	if (code & V6_QUERY)
	{
		TF_GET_LEB(cur[V6_COL_QUERY], cend[V6_COL_QUERY], v);
		if (v >= t->nq)
			return -PGWT_TF_BAD_PAYLOAD;
		r->query_id = tf_get_u64(t->queries + 8 * v);
	}
	else
		r->query_id = a != V6_NONE ? recs[a].query_id : 0;
	if (code & V6_CPU)
	{
		TF_GET_LEB(cur[V6_COL_CPU], cend[V6_COL_CPU], v);
		r->cpu_ns = (r->old_event == 0 ? r->duration_ns : 0) + (uint64_t) tf_unzigzag(v);
	}
	else
		r->cpu_ns = PGWT_CPU_UNKNOWN;
	return 0;
}

int
tf_decode_v6_fields(const uint8_t *codes, const uint8_t **pp,
					const uint8_t *end, uint32_t n, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	tf_v6_tables t;
	const uint8_t *cur[V6_NCOLS],
			   *cend[V6_NCOLS];
	uint16_t	last_nm[V6_MAX],
				last_any[V6_MAX];
	uint32_t	i,
				c;
	int			rc;

	if ((rc = tf_v6_decode_tables(&p, end, n, &t)) < 0 ||
		(rc = tf_v6_decode_columns(p, end, cur, cend)) < 0)
		return rc;
	memset(last_nm, 0xFF, t.np * sizeof(uint16_t));
	memset(last_any, 0xFF, t.np * sizeof(uint16_t));

	for (i = 0; i < n; i++)
	{
		pgwt_record *r = &recs[i];
		uint8_t		code = codes[i];
		uint64_t	k = code & V6_PID_MASK;

		if (k == V6_PID_ESCAPE)
		{
			TF_GET_LEB(cur[V6_COL_PID], cend[V6_COL_PID], k);
			if (k < V6_PID_ESCAPE)
				return -PGWT_TF_BAD_PAYLOAD;	/* had an inline code */
		}
		if (k >= t.np)
			return -PGWT_TF_BAD_PAYLOAD;
		r->kind = PGWT_REC_TRANSITION;
		r->weight_ns = 0;
		r->pid = tf_get_u32(t.pids + 4 * k);
		rc = tf_v6_decode_record(r, recs, code, last_nm[k], last_any[k], cur, cend, &t);
		if (rc < 0)
			return rc;
		last_any[k] = (uint16_t) i;
		if (!tf_v6_is_marker(r->new_event))
			last_nm[k] = (uint16_t) i;
	}
	/* Every exception column is used up exactly. */
	for (c = 0; c < V6_NCOLS; c++)
		if (cur[c] != cend[c])
			return -PGWT_TF_BAD_PAYLOAD;
	*pp = end;
	return 0;
}

uint8_t *
tf_put_dicts_columns(uint8_t *p, const uint32_t *pids, const uint16_t *order,
					 uint32_t np, const uint32_t *events, uint32_t ne,
					 const uint64_t *queries, uint32_t nq,
					 const uint8_t *cols, size_t stride,
					 const size_t *col_len, unsigned ncols)
{
	uint32_t	i;
	unsigned	c;

	p += tf_put_leb(p, np);
	for (i = 0; i < np; i++, p += 4)
		tf_put_u32(p, pids[order[i]]);
	p += tf_put_leb(p, ne);
	for (i = 0; i < ne; i++, p += 4)
		tf_put_u32(p, events[i]);
	p += tf_put_leb(p, nq);
	for (i = 0; i < nq; i++, p += 8)
		tf_put_u64(p, queries[i]);
	for (c = 0; c < ncols; c++)
		p += tf_put_leb(p, col_len[c]);
	for (c = 0; c < ncols; c++)
	{
		memcpy(p, cols + c * stride, col_len[c]);
		p += col_len[c];
	}
	return p;
}
