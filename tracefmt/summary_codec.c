/*
 * summary_codec.c
 *		The payload of one summary frame (a second or a minute rollup):
 *		encoding, and decoding with every value validated
 *		(docs/TRACE_FORMAT.md 11.2). Pure: no I/O, no state.
 */
#include <stdlib.h>
#include <string.h>

#include "tracefmt/summary.h"
#include "tracefmt/tf_le.h"

/* ---- codec ------------------------------------------------------------------ */

#define SB_STAT_MAX	(1 + 7 * 10)

size_t
pgwt_tf_second_encoded_max(const pgwt_tf_second *s)
{
	return 8 + 10 + 10 * 10 + 1 + 20 + 3 * SB_STAT_MAX + 6 * 10 +
		(size_t) s->nevents * (4 + SB_STAT_MAX + 20 + 10 + PGWT_TF_US_BUCKETS * 10 +
							   10 + PGWT_HIST_NS_BUCKETS * 10) +
		(size_t) s->npids * (4 + 10) +
		(size_t) s->nqueries * 8 +
		(size_t) s->npid_events * (10 + SB_STAT_MAX) +
		(size_t) s->nquery_events * (10 + SB_STAT_MAX) +
		(size_t) s->ncrossings * (16 + 10);
}

/*
 * A stat: a LEB128 mask of the fields that are not zero, then those
 * fields: waits, exact_ns, zigzag(completed_ns - exact_ns) (0 when no
 * wait crossed the frame's start), completed_ns - max_ns (0 for one
 * wait), sampled_ns, samples, and (version 2) max_ns - min_ns + 1 where
 * there are waits (1 for one wait; absent: the shortest is unknown).
 */
#define SB_STAT_FIELDS 7

static size_t
sb_put_stat(uint8_t *p, const pgwt_tf_sum_stat *st)
{
	uint64_t	v[SB_STAT_FIELDS];
	unsigned	mask = 0,
				i;
	size_t		n;

	v[0] = st->waits;
	v[1] = st->exact_ns;
	v[2] = tf_zigzag((int64_t) (st->completed_ns - st->exact_ns));
	v[3] = st->completed_ns - st->max_ns;
	v[4] = st->sampled_ns;
	v[5] = st->samples;
	/* a min of 0 (unknown, or a 0 ns wait) reads back as 0 either way */
	v[6] = st->waits > 0 && st->min_ns <= st->max_ns && st->max_ns < UINT64_MAX ?
		st->max_ns - st->min_ns + 1 : 0;
	for (i = 0; i < SB_STAT_FIELDS; i++)
		if (v[i])
			mask |= 1u << i;
	n = tf_put_leb(p, mask);
	for (i = 0; i < SB_STAT_FIELDS; i++)
		if (v[i])
			n += tf_put_leb(p + n, v[i]);
	return n;
}

static size_t
sb_put_hist(uint8_t *p, const uint64_t *h, unsigned nb)
{
	uint64_t	mask = 0;
	size_t		n;
	unsigned	i;

	for (i = 0; i < nb; i++)
		if (h[i])
			mask |= 1ull << i;
	n = tf_put_leb(p, mask);
	for (i = 0; i < nb; i++)
		if (h[i])
			n += tf_put_leb(p + n, h[i]);
	return n;
}

size_t
pgwt_tf_second_encode(const pgwt_tf_second *s, uint8_t *out)
{
	uint8_t    *p = out;
	uint32_t	i;

	tf_put_u64(p, s->sec_ts);
	p += 8;
	p += tf_put_leb(p, s->flags);
	p += tf_put_leb(p, s->c.exact_records);
	p += tf_put_leb(p, s->c.sample_records);
	p += tf_put_leb(p, s->c.markers);
	p += tf_put_leb(p, s->c.esc_markers);
	p += tf_put_leb(p, s->c.late_records);
	p += tf_put_leb(p, s->c.folded_events);
	p += tf_put_leb(p, s->c.folded_pids);
	p += tf_put_leb(p, s->c.folded_pid_events);
	p += tf_put_leb(p, s->c.folded_query_events);
	p += tf_put_leb(p, s->c.folded_crossings);
	if (s->cover_lo <= s->cover_hi)
	{
		*p++ = 1;
		p += tf_put_leb(p, tf_zigzag((int64_t) (s->cover_lo - s->sec_ts)));
		p += tf_put_leb(p, tf_zigzag((int64_t) (s->cover_hi - s->sec_ts)));
	}
	else
		*p++ = 0;
	p += sb_put_stat(p, &s->other_event);
	p += sb_put_stat(p, &s->other_pid_event);
	p += sb_put_stat(p, &s->other_query_event);

	p += tf_put_leb(p, s->nevents);
	for (i = 0; i < s->nevents; i++)
	{
		const pgwt_tf_sum_event *e = &s->events[i];

		tf_put_u32(p, e->event);
		p += 4;
		p += sb_put_stat(p, &e->st);
		p += tf_put_leb(p, e->superseded_ns);
		p += tf_put_leb(p, e->superseded_samples);
		p += sb_put_hist(p, e->hist_us, PGWT_TF_US_BUCKETS);
		p += sb_put_hist(p, e->hist_ns, PGWT_HIST_NS_BUCKETS);
	}
	p += tf_put_leb(p, s->npids);
	for (i = 0; i < s->npids; i++)
	{
		tf_put_u32(p, s->pids[i].pid);
		p += 4;
		p += tf_put_leb(p, s->pids[i].flags);
	}
	p += tf_put_leb(p, s->nqueries);
	for (i = 0; i < s->nqueries; i++)
	{
		tf_put_u64(p, s->queries[i]);
		p += 8;
	}
	p += tf_put_leb(p, s->npid_events);
	for (i = 0; i < s->npid_events; i++)
	{
		p += tf_put_leb(p, s->pid_events[i].key_index);
		p += tf_put_leb(p, s->pid_events[i].event_index);
		p += sb_put_stat(p, &s->pid_events[i].st);
	}
	p += tf_put_leb(p, s->nquery_events);
	for (i = 0; i < s->nquery_events; i++)
	{
		p += tf_put_leb(p, s->query_events[i].key_index);
		p += tf_put_leb(p, s->query_events[i].event_index);
		p += sb_put_stat(p, &s->query_events[i].st);
	}
	p += tf_put_leb(p, s->ncrossings);
	for (i = 0; i < s->ncrossings; i++)
	{
		const pgwt_tf_sum_crossing *c = &s->crossings[i];

		tf_put_u32(p, c->pid);
		tf_put_u32(p + 4, c->event);
		tf_put_u64(p + 8, c->query_id);
		p += 16;
		p += tf_put_leb(p, c->ns);
	}
	return (size_t) (p - out);
}

/* ---- decoding ---------------------------------------------------------------- */

typedef struct sb_in
{
	const uint8_t *p;
	const uint8_t *end;
	bool		bad;
} sb_in;

static uint64_t
sb_leb(sb_in *in)
{
	uint64_t	v = 0;

	if (!in->bad && tf_get_leb(&in->p, in->end, &v) < 0)
		in->bad = true;
	return in->bad ? 0 : v;
}

static uint32_t
sb_u32(sb_in *in)
{
	uint32_t	v;

	if (in->bad || in->end - in->p < 4)
	{
		in->bad = true;
		return 0;
	}
	v = tf_get_u32(in->p);
	in->p += 4;
	return v;
}

static uint64_t
sb_u64(sb_in *in)
{
	uint64_t	v;

	if (in->bad || in->end - in->p < 8)
	{
		in->bad = true;
		return 0;
	}
	v = tf_get_u64(in->p);
	in->p += 8;
	return v;
}

static void
sb_get_stat(sb_in *in, pgwt_tf_sum_stat *st)
{
	uint64_t	mask = sb_leb(in);
	uint64_t	v[SB_STAT_FIELDS];
	unsigned	i;

	if (mask >> SB_STAT_FIELDS)
		in->bad = true;
	for (i = 0; i < SB_STAT_FIELDS; i++)
	{
		v[i] = 0;
		if (mask & (1u << i))
		{
			v[i] = sb_leb(in);
			if (v[i] == 0)
				in->bad = true; /* shortest form: zeros are left out */
		}
	}
	st->waits = v[0];
	st->exact_ns = v[1];
	{
		int64_t		d = tf_unzigzag(v[2]);

		/* completed = exact + d must not wrap (-d computed unsigned: d may
		 * be INT64_MIN, whose negation is no int64_t) */
		if ((d < 0 && (uint64_t) 0 - (uint64_t) d > st->exact_ns) ||
			(d > 0 && (uint64_t) d > UINT64_MAX - st->exact_ns))
			in->bad = true;
		st->completed_ns = st->exact_ns + (uint64_t) d;
	}
	if (v[3] > st->completed_ns)
		in->bad = true;
	st->max_ns = st->completed_ns - v[3];
	st->sampled_ns = v[4];
	st->samples = v[5];
	/* the shortest wait lies in [0, max]; absent (version 1): unknown, 0 */
	if (v[6] != 0 && v[6] - 1 > st->max_ns)
		in->bad = true;
	st->min_ns = v[6] != 0 ? st->max_ns - (v[6] - 1) : 0;
	/* a stat without waits has no wait lengths */
	if (st->waits == 0 && (st->completed_ns || st->max_ns || v[6]))
		in->bad = true;
	if (st->samples == 0 && st->sampled_ns)
		in->bad = true;
}

static void
sb_get_hist(sb_in *in, uint64_t *h, unsigned nb)
{
	uint64_t	mask = sb_leb(in);
	unsigned	i;

	if (nb < 64 && (mask >> nb) != 0)
		in->bad = true;
	for (i = 0; i < nb; i++)
	{
		h[i] = 0;
		if (mask & (1ull << i))
		{
			h[i] = sb_leb(in);
			if (h[i] == 0)
				in->bad = true;
		}
	}
}

/*
 * A count of n entries each at least min_bytes long must fit in what is
 * left; then the array grows to n.
 */
static void *
sb_count(sb_in *in, uint32_t *n, size_t min_bytes, void *arr, size_t *cap, size_t elem)
{
	uint64_t	v = sb_leb(in);

	if (in->bad)
		return arr;
	if (v > (uint64_t) (in->end - in->p) / min_bytes)
	{
		in->bad = true;
		return arr;
	}
	*n = (uint32_t) v;
	if (v > *cap)
	{
		void	   *na = realloc(arr, (size_t) v * elem);

		if (!na)
		{
			in->bad = true;
			*n = 0;
			return arr;
		}
		arr = na;
		*cap = (size_t) v;
	}
	return arr;
}

/* The frame's fixed part: its second, flags, counters and time covered. */
static void
sb_get_header(sb_in *in, pgwt_tf_second *s)
{
	uint8_t		has_cover;

	s->sec_ts = sb_u64(in);
	{
		uint64_t	fl = sb_leb(in);

		if (fl & ~(uint64_t) PGWT_TF_SUM_F_ALL)
			in->bad = true;
		s->flags = (uint32_t) fl;
	}
	s->span_ns = (s->flags & PGWT_TF_SUM_F_MINUTE) ? PGWT_TF_SUM_MINUTE_NS : PGWT_TF_SUM_SECOND_NS;
	if (s->sec_ts % s->span_ns != 0)
		in->bad = true;
	s->c.exact_records = sb_leb(in);
	s->c.sample_records = sb_leb(in);
	s->c.markers = sb_leb(in);
	s->c.esc_markers = sb_leb(in);
	s->c.late_records = sb_leb(in);
	s->c.folded_events = sb_leb(in);
	s->c.folded_pids = sb_leb(in);
	s->c.folded_pid_events = sb_leb(in);
	s->c.folded_query_events = sb_leb(in);
	s->c.folded_crossings = sb_leb(in);
	if (!in->bad && in->p < in->end)
		has_cover = *in->p++;
	else
	{
		in->bad = true;
		has_cover = 0;
	}
	s->cover_lo = UINT64_MAX;
	s->cover_hi = 0;
	if (has_cover > 1)
		in->bad = true;
	else if (has_cover)
	{
		int64_t		lo = tf_unzigzag(sb_leb(in));
		int64_t		hi = tf_unzigzag(sb_leb(in));

		/* billed instants of a second lie in [sec - 2^62, sec + 1 s] */
		if (lo > hi || hi < 0 || hi > (int64_t) s->span_ns ||
			lo < -(INT64_C(1) << 62) || (lo < 0 && (uint64_t) -lo > s->sec_ts))
			in->bad = true;
		else
		{
			s->cover_lo = s->sec_ts + (uint64_t) lo;
			s->cover_hi = s->sec_ts + (uint64_t) hi;
		}
	}
	sb_get_stat(in, &s->other_event);
	sb_get_stat(in, &s->other_pid_event);
	sb_get_stat(in, &s->other_query_event);
}

/* The tables the pairs index: events (with histograms), pids, query ids. */
static void
sb_get_tables(sb_in *in, pgwt_tf_second_buf *buf)
{
	pgwt_tf_second *s = &buf->s;
	uint32_t	i;

	/* an event: its id, then at least a byte each for the stat's mask,
	 * superseded_ns, superseded_samples and the two histogram masks */
	s->events = sb_count(in, &s->nevents, 4 + 5, s->events,
						 &buf->cap_events, sizeof(*s->events));
	for (i = 0; i < s->nevents && !in->bad; i++)
	{
		pgwt_tf_sum_event *e = &s->events[i];

		e->event = sb_u32(in);
		sb_get_stat(in, &e->st);
		e->superseded_ns = sb_leb(in);
		e->superseded_samples = sb_leb(in);
		sb_get_hist(in, e->hist_us, PGWT_TF_US_BUCKETS);
		sb_get_hist(in, e->hist_ns, PGWT_HIST_NS_BUCKETS);
	}
	s->pids = sb_count(in, &s->npids, 5, s->pids, &buf->cap_pids, sizeof(*s->pids));
	for (i = 0; i < s->npids && !in->bad; i++)
	{
		uint64_t	fl;

		s->pids[i].pid = sb_u32(in);
		fl = sb_leb(in);
		if (fl & ~(uint64_t) PGWT_TF_SUM_PID_EXITED)
			in->bad = true;
		s->pids[i].flags = (uint32_t) fl;
	}
	s->queries = sb_count(in, &s->nqueries, 8, s->queries, &buf->cap_queries,
						  sizeof(*s->queries));
	for (i = 0; i < s->nqueries && !in->bad; i++)
		s->queries[i] = sb_u64(in);
}

/* The (pid, event) and (query, event) pairs, indexes into the tables. */
static void
sb_get_pairs(sb_in *in, pgwt_tf_second_buf *buf)
{
	pgwt_tf_second *s = &buf->s;
	uint32_t	i;

	s->pid_events = sb_count(in, &s->npid_events, 3, s->pid_events,
							 &buf->cap_pid_events, sizeof(*s->pid_events));
	for (i = 0; i < s->npid_events && !in->bad; i++)
	{
		pgwt_tf_sum_pair *pr = &s->pid_events[i];
		uint64_t	ki = sb_leb(in),
					ei = sb_leb(in);

		if (ki >= s->npids || ei >= s->nevents)
		{
			in->bad = true;
			break;
		}
		pr->key_index = (uint32_t) ki;
		pr->event_index = (uint32_t) ei;
		pr->key = s->pids[ki].pid;
		pr->event = s->events[ei].event;
		sb_get_stat(in, &pr->st);
	}
	s->query_events = sb_count(in, &s->nquery_events, 3, s->query_events,
							   &buf->cap_query_events, sizeof(*s->query_events));
	for (i = 0; i < s->nquery_events && !in->bad; i++)
	{
		pgwt_tf_sum_pair *pr = &s->query_events[i];
		uint64_t	ki = sb_leb(in),
					ei = sb_leb(in);

		if (ki >= s->nqueries || ei >= s->nevents)
		{
			in->bad = true;
			break;
		}
		pr->key_index = (uint32_t) ki;
		pr->event_index = (uint32_t) ei;
		pr->key = s->queries[ki];
		pr->event = s->events[ei].event;
		sb_get_stat(in, &pr->st);
	}
}

/* Waits that crossed into this second from an earlier one. */
static void
sb_get_crossings(sb_in *in, pgwt_tf_second_buf *buf)
{
	pgwt_tf_second *s = &buf->s;
	uint32_t	i;

	s->crossings = sb_count(in, &s->ncrossings, 17, s->crossings,
							&buf->cap_crossings, sizeof(*s->crossings));
	for (i = 0; i < s->ncrossings && !in->bad; i++)
	{
		pgwt_tf_sum_crossing *c = &s->crossings[i];

		c->pid = sb_u32(in);
		c->event = sb_u32(in);
		c->query_id = sb_u64(in);
		c->ns = sb_leb(in);
		/* a crossing began before its second and after time 0 */
		if (c->ns == 0 || c->ns > s->sec_ts || c->event == PGWT_EVENT_EXIT ||
			PGWT_IS_MARKER(c->event))
			in->bad = true;
	}
}

int
pgwt_tf_second_decode(const uint8_t *data, size_t len, pgwt_tf_second_buf *buf)
{
	pgwt_tf_second *s = &buf->s;
	sb_in		in = {data, data + len, false};

	if (len > PGWT_TF_SUM_PAYLOAD_MAX)
		return -PGWT_TF_BAD_PAYLOAD;
	s->nevents = s->npids = s->npid_events = s->nquery_events = s->ncrossings = 0;
	s->nqueries = 0;
	sb_get_header(&in, s);
	sb_get_tables(&in, buf);
	sb_get_pairs(&in, buf);
	sb_get_crossings(&in, buf);
	if (in.bad || in.p != in.end)
	{
		s->nevents = s->npids = s->npid_events = s->nquery_events = s->ncrossings = 0;
		s->nqueries = 0;
		return -PGWT_TF_BAD_PAYLOAD;
	}
	return 0;
}

void
pgwt_tf_second_buf_free(pgwt_tf_second_buf *buf)
{
	free(buf->s.events);
	free(buf->s.queries);
	free(buf->s.pids);
	free(buf->s.pid_events);
	free(buf->s.query_events);
	free(buf->s.crossings);
	memset(buf, 0, sizeof(*buf));
}
