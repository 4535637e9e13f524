/*
 * block_v7_samples.c
 *		Codec of v7 SAMPLES payloads (docs/TRACE_FORMAT.md 3.2.1): a sampler
 *		tick lists every backend in the same order each time, and most
 *		backends are where they were a tick ago (idle in ClientRead, in the
 *		same statement). v7 stores the pid as a step in a per-block pid
 *		table (0 when the order repeats) and the event and query id only
 *		when they differ from the pid's previous sample in the block: a list
 *		of the changed records (gap since the previous change, and what
 *		changed) with indexes into per-block tables. A repeated tick is then
 *		a run of zero bytes and one repeated weight, which LZ4 reduces to a
 *		few bytes, and a change costs about two bytes.
 *
 *		Pure functions, no I/O and no shared state. The encoder takes one
 *		malloc'd scratch area per block, its hash tables sized to the
 *		block (a sampler's block is often a quarter of the largest); the
 *		decoder keeps one u16 per pid on the stack.
 */
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

#define V7S_MAX			PGWT_TF_BLOCK_MAX_RECORDS
#define V7S_NONE		0xFFFFu
#define V7S_EVENT		0x01u		/* flags: event explicit */
#define V7S_QUERY		0x02u		/* flags: query id explicit */
#define V7S_SLOTS		(2 * V7S_MAX)	/* hash slots, a power of two */

typedef struct tf_v7s_scratch
{
	uint32_t	pids[V7S_MAX];
	uint32_t	events[V7S_MAX];
	uint64_t	queries[V7S_MAX];
	uint16_t	pid_hash[V7S_SLOTS];
	uint16_t	ev_hash[V7S_SLOTS];
	uint16_t	q_hash[V7S_SLOTS];
	uint16_t	last[V7S_MAX];	/* per pid index: its last record */
	uint16_t	rec_pid[V7S_MAX];
	uint8_t		changes[3 * V7S_MAX];
	uint8_t		steps[3 * V7S_MAX];
	uint8_t		ev_col[3 * V7S_MAX];
	uint8_t		q_col[3 * V7S_MAX];
} tf_v7s_scratch;

/* mask: the used slots - 1 (a power of two minus one, <= V7S_SLOTS - 1) */
static inline uint32_t
tf_v7s_hash(uint64_t v, uint32_t mask)
{
	v *= 0x9E3779B97F4A7C15ull;
	return (uint32_t) (v >> 40) & mask;
}

/* Index of v in tab (by first appearance), added when new. The indexes do
 * not depend on the table's size: the payload neither. */
static uint16_t
tf_v7s_index32(uint16_t *hash, uint32_t mask, uint32_t *tab, uint32_t *n, uint32_t v)
{
	uint32_t	h = tf_v7s_hash(v, mask);

	for (;; h = (h + 1) & mask)
	{
		if (hash[h] == V7S_NONE)
		{
			tab[*n] = v;
			hash[h] = (uint16_t) *n;
			return (uint16_t) (*n)++;
		}
		if (tab[hash[h]] == v)
			return hash[h];
	}
}

static uint16_t
tf_v7s_index64(uint16_t *hash, uint32_t mask, uint64_t *tab, uint32_t *n, uint64_t v)
{
	uint32_t	h = tf_v7s_hash(v, mask);

	for (;; h = (h + 1) & mask)
	{
		if (hash[h] == V7S_NONE)
		{
			tab[*n] = v;
			hash[h] = (uint16_t) *n;
			return (uint16_t) (*n)++;
		}
		if (tab[hash[h]] == v)
			return hash[h];
	}
}

uint8_t *
tf_encode_samples_v7(const pgwt_record *recs, uint32_t n, uint64_t sample_period_ns,
					 uint8_t *p)
{
	tf_v7s_scratch *s = malloc(sizeof(tf_v7s_scratch));
	uint32_t	np = 0,
				ne = 0,
				nq = 0,
				i;
	size_t		nsteps = 0,
				nchg = 0,
				nev = 0,
				nqc = 0;
	uint32_t	prev = UINT32_MAX,
				nchanged = 0,
				next_unchanged = 0;
	uint32_t	slots = 16;

	if (s == NULL)
		return NULL;
	while (slots < 2 * n)
		slots *= 2;				/* n <= V7S_MAX: slots <= V7S_SLOTS */
	memset(s->pid_hash, 0xFF, slots * sizeof(uint16_t));
	memset(s->ev_hash, 0xFF, slots * sizeof(uint16_t));
	memset(s->q_hash, 0xFF, slots * sizeof(uint16_t));
	for (i = 0; i < n; i++)
		s->rec_pid[i] = tf_v7s_index32(s->pid_hash, slots - 1, s->pids, &np, recs[i].pid);
	memset(s->last, 0xFF, np * sizeof(uint16_t));
	for (i = 0; i < n; i++)
	{
		const pgwt_record *r = &recs[i];
		uint32_t	k = s->rec_pid[i];
		uint32_t	expect = prev == UINT32_MAX || prev + 1 == np ? 0 : prev + 1;
		uint16_t	j = s->last[k];
		uint32_t	ev_pred = j != V7S_NONE ? recs[j].new_event : i ? recs[i - 1].new_event : 0;
		uint8_t		f = 0;

		/* (k - expect) mod np, both below np */
		nsteps += tf_put_leb(s->steps + nsteps, k >= expect ? k - expect : k + np - expect);
		if (r->new_event != ev_pred)
		{
			uint32_t	seen = ne,
						x = tf_v7s_index32(s->ev_hash, slots - 1, s->events, &ne, r->new_event);

			f |= V7S_EVENT;
			nev += tf_put_leb(s->ev_col + nev, seen - x);	/* 0 = a new entry */
		}
		if (r->query_id != (j != V7S_NONE ? recs[j].query_id : 0))
		{
			uint32_t	seen = nq,
						x = tf_v7s_index64(s->q_hash, slots - 1, s->queries, &nq, r->query_id);

			f |= V7S_QUERY;
			nqc += tf_put_leb(s->q_col + nqc, seen - x);
		}
		if (f)
		{
			/* gap since the previous change, and what changed */
			nchg += tf_put_leb(s->changes + nchg, (uint64_t) (i - next_unchanged) << 2 | f);
			next_unchanged = i + 1;
			nchanged++;
		}
		s->last[k] = (uint16_t) i;
		prev = k;
	}
	p += tf_put_leb(p, np);
	for (i = 0; i < np; i++)
		p += tf_put_leb(p, tf_zigzag((int64_t) s->pids[i] - (i ? (int64_t) s->pids[i - 1] : 0)));
	memcpy(p, s->steps, nsteps);
	p += nsteps;
	p += tf_put_leb(p, nchanged);
	memcpy(p, s->changes, nchg);
	p += nchg;
	p += tf_put_leb(p, ne);
	for (i = 0; i < ne; i++, p += 4)
		tf_put_u32(p, s->events[i]);
	memcpy(p, s->ev_col, nev);
	p += nev;
	p += tf_put_leb(p, nq);
	for (i = 0; i < nq; i++, p += 8)
		tf_put_u64(p, s->queries[i]);
	memcpy(p, s->q_col, nqc);
	p += nqc;
	for (i = 0; i < n; i++)
		p += tf_put_leb(p, tf_zigzag((int64_t) recs[i].weight_ns - (int64_t) sample_period_ns));
	free(s);
	return p;
}

/*
 * The pid table, then each record's index into it as a step from the
 * index after the previous record's (left in recs[i].pid for now).
 */
static inline int
tf_v7s_decode_pids(const uint8_t **pp, const uint8_t *end, uint32_t n,
				   uint32_t *pids, uint64_t *npp, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	uint64_t	np,
				v;
	uint32_t	i,
				prev = UINT32_MAX;

	TF_GET_LEB(p, end, np);
	if (np < 1 || np > n)
		return -PGWT_TF_BAD_PAYLOAD;
	for (i = 0; i < np; i++)
	{
		int64_t		pid;

		TF_GET_LEB(p, end, v);
		pid = (i ? (int64_t) pids[i - 1] : 0) + tf_unzigzag(v);
		if (pid < 0 || pid > (int64_t) UINT32_MAX)
			return -PGWT_TF_BAD_PAYLOAD;
		pids[i] = (uint32_t) pid;
	}
	/* pid steps: each record's table index */
	for (i = 0; i < n; i++)
	{
		uint32_t	expect = prev == UINT32_MAX ? 0 : (prev + 1) % (uint32_t) np;

		TF_GET_LEB(p, end, v);
		if (v >= np)
			return -PGWT_TF_BAD_PAYLOAD;
		prev = (uint32_t) ((expect + v) % np);
		recs[i].pid = prev;		/* the index for now; the pid below */
	}
	*npp = np;
	*pp = p;
	return 0;
}

/* Changes: the records whose event or query id is explicit (flags[]). */
static inline int
tf_v7s_decode_changes(const uint8_t **pp, const uint8_t *end, uint32_t n, uint8_t *flags)
{
	const uint8_t *p = *pp;
	uint64_t	nchg,
				v;
	uint32_t	i,
				at;

	TF_GET_LEB(p, end, nchg);
	if (nchg > n)
		return -PGWT_TF_BAD_PAYLOAD;
	memset(flags, 0, n);
	for (i = 0, at = 0; i < nchg; i++)
	{
		TF_GET_LEB(p, end, v);
		if ((v & 3) == 0 || (v >> 2) >= n - at)
			return -PGWT_TF_BAD_PAYLOAD;
		at += (uint32_t) (v >> 2);
		flags[at++] = (uint8_t) (v & 3);
	}
	*pp = p;
	return 0;
}

/* Events: explicit ones from the index column, others predicted. */
static inline int
tf_v7s_decode_events(const uint8_t **pp, const uint8_t *end, uint32_t n, uint64_t np,
					 const uint8_t *flags, uint16_t *last, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	const uint8_t *events;
	uint64_t	ne,
				v;
	uint32_t	i,
				seen;

	TF_GET_LEB(p, end, ne);
	if (ne > n || (uint64_t) (end - p) < ne * 4)
		return -PGWT_TF_BAD_PAYLOAD;
	events = p;
	p += ne * 4;
	memset(last, 0xFF, np * sizeof(uint16_t));
	for (i = 0, seen = 0; i < n; i++)
	{
		uint32_t	k = recs[i].pid;
		uint16_t	j = last[k];

		if (flags[i] & V7S_EVENT)
		{
			uint32_t	ev;

			TF_GET_LEB(p, end, v);
			if (v == 0 ? seen >= ne : v > seen)
				return -PGWT_TF_BAD_PAYLOAD;
			v = v == 0 ? seen++ : seen - v;
			ev = tf_get_u32(events + 4 * v);
			/* A sampler only ever sees real wait events. */
			if (ev >= PGWT_MARKER_FIRST)
				return -PGWT_TF_BAD_PAYLOAD;
			recs[i].new_event = ev;
		}
		else
			recs[i].new_event = j != V7S_NONE ? recs[j].new_event
				: i ? recs[i - 1].new_event : 0;
		last[k] = (uint16_t) i;
	}
	*pp = p;
	return 0;
}

/* Query ids: explicit ones from the index column, others carried per pid. */
static inline int
tf_v7s_decode_queries(const uint8_t **pp, const uint8_t *end, uint32_t n, uint64_t np,
					  const uint8_t *flags, uint16_t *last, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	const uint8_t *queries;
	uint64_t	nq,
				v;
	uint32_t	i,
				seen;

	TF_GET_LEB(p, end, nq);
	if (nq > n || (uint64_t) (end - p) < nq * 8)
		return -PGWT_TF_BAD_PAYLOAD;
	queries = p;
	p += nq * 8;
	memset(last, 0xFF, np * sizeof(uint16_t));
	for (i = 0, seen = 0; i < n; i++)
	{
		uint32_t	k = recs[i].pid;
		uint16_t	j = last[k];

		if (flags[i] & V7S_QUERY)
		{
			TF_GET_LEB(p, end, v);
			if (v == 0 ? seen >= nq : v > seen)
				return -PGWT_TF_BAD_PAYLOAD;
			v = v == 0 ? seen++ : seen - v;
			recs[i].query_id = tf_get_u64(queries + 8 * v);
		}
		else
			recs[i].query_id = j != V7S_NONE ? recs[j].query_id : 0;
		last[k] = (uint16_t) i;
	}
	*pp = p;
	return 0;
}

int
tf_decode_samples_v7(const uint8_t **pp, const uint8_t *end, uint32_t n,
					 uint64_t sample_period_ns, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	uint32_t	pids[V7S_MAX];
	uint8_t		flags[V7S_MAX];
	uint16_t	last[V7S_MAX];
	uint64_t	np,
				v;
	uint32_t	i;
	int			rc;

	if (sample_period_ns > INT64_MAX)
		return -PGWT_TF_BAD_PAYLOAD;
	if ((rc = tf_v7s_decode_pids(&p, end, n, pids, &np, recs)) < 0 ||
		(rc = tf_v7s_decode_changes(&p, end, n, flags)) < 0 ||
		(rc = tf_v7s_decode_events(&p, end, n, np, flags, last, recs)) < 0 ||
		(rc = tf_v7s_decode_queries(&p, end, n, np, flags, last, recs)) < 0)
		return rc;
	for (i = 0; i < n; i++)
	{
		int64_t		w;

		TF_GET_LEB(p, end, v);
		/* period <= INT64_MAX, so this sum cannot overflow int64 */
		if (__builtin_add_overflow((int64_t) sample_period_ns, tf_unzigzag(v), &w) || w < 0)
			return -PGWT_TF_BAD_PAYLOAD;
		recs[i].weight_ns = (uint64_t) w;
		recs[i].pid = pids[recs[i].pid];
		recs[i].old_event = 0;
		recs[i].duration_ns = 0;
		recs[i].cpu_ns = PGWT_CPU_UNKNOWN;
		recs[i].kind = PGWT_REC_SAMPLE;
	}
	if (p != end)
		return -PGWT_TF_BAD_PAYLOAD;
	*pp = p;
	return 0;
}
