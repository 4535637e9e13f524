/*
 * range_load.c
 *		The range loader (range_load.h): a trace reader over [from, to +
 *		slack], the open escalation window's ESC_START first, every record
 *		mapped to wall-clock time and cut to [from, to) by pgwt_range_clip;
 *		then, for the backends still in a wait at the lookahead's end, a
 *		second reader past it that stops once each has its next record.
 *
 * The only I/O is tracefmt's reader and its escalation lookup; the loader
 * owns its readers, one block-sized buffer and a table of the pids seen
 * before "to" (open addressing, grown by doubling). One loader, one thread.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/range_load.h"
#include "common/event_ids.h"

/* What the files say of one pid before "to". */
typedef struct rl_pid
{
	uint32_t	pid;			/* 0 = free slot */
	bool		open;			/* its last record entered a non-idle wait */
	bool		after;			/* a record at or after "to" was seen */
	uint64_t	last_ts;		/* its last record before "to" */
} rl_pid;

struct pgwt_range_loader
{
	pgwt_tf_reader *rd;
	pgwt_tf_reader *srd;		/* past the lookahead, while searching */
	char	   *path;
	uint64_t	from;
	uint64_t	to;
	uint64_t	look_end;		/* the lookahead's last ns (inclusive) */
	bool		prime_pending;	/* the open window's ESC_START not yet out */
	bool		searching;		/* reading past the lookahead */
	bool		skip_samples;	/* transitions only (pgwt_range_open_transitions) */
	pgwt_record prime;
	pgwt_range_stats st;
	rl_pid	   *pids;
	uint32_t	npids,
				cap;			/* power of two */
	uint32_t	pending;		/* open pids without a later record */
	pgwt_record buf[PGWT_TF_BLOCK_MAX_RECORDS];
};

static rl_pid *
rl_find(pgwt_range_loader *l, uint32_t pid, bool add)
{
	uint32_t	i;

	if (l->cap == 0 || (add && l->npids * 2 >= l->cap))
	{
		uint32_t	ncap = l->cap ? l->cap * 2 : 256;
		rl_pid	   *n,
				   *old = l->pids;

		if (!add || !(n = calloc(ncap, sizeof(*n))))
			return NULL;
		l->pids = n;
		l->cap = ncap;
		l->npids = 0;
		for (uint32_t k = 0; old && k < ncap / 2; k++)
			if (old[k].pid)
				*rl_find(l, old[k].pid, true) = old[k];
		free(old);
	}
	for (i = (pid * 2654435761u) & (l->cap - 1);; i = (i + 1) & (l->cap - 1))
	{
		if (l->pids[i].pid == pid)
			return &l->pids[i];
		if (l->pids[i].pid == 0)
		{
			if (!add)
				return NULL;
			l->pids[i].pid = pid;
			l->npids++;
			return &l->pids[i];
		}
	}
}

/* Follow each pid's state at "to" (record in wall-clock time). */
static void
rl_track(pgwt_range_loader *l, const pgwt_record *r)
{
	rl_pid	   *p;
	bool		open;

	if (r->pid == 0 || l->look_end == UINT64_MAX)
		return;
	if (r->ts_ns >= l->to)
	{
		if ((p = rl_find(l, r->pid, false)) != NULL)
			p->after = true;
		return;
	}
	if (r->kind != PGWT_REC_TRANSITION)
		open = false;			/* a sample starts no exact wait */
	else if (PGWT_IS_MARKER(r->new_event))
	{
		if (r->new_event != PGWT_MARKER_IDLE)
			return;				/* no change of state */
		open = false;
	}
	else
		/* into a wait: not CPU* (the coop tier writes no EXIT, so a backend
		 * gone after its last wait would look busy for ever), not idle */
		open = !pgwt_event_is_cpu(r->new_event) && r->new_event != PGWT_EVENT_EXIT &&
			!pgwt_event_is_idle(r->new_event);
	if ((p = rl_find(l, r->pid, true)) == NULL)
		return;					/* out of memory: that pid is not searched */
	if (p->last_ts == 0 || r->ts_ns >= p->last_ts)
	{
		p->last_ts = r->ts_ns;
		p->open = open;
	}
}

static int
rl_open(const char *path, uint64_t from, uint64_t to, bool skip_samples,
		pgwt_range_loader **out)
{
	pgwt_range_loader *l;
	pgwt_tf_read_opts ro;
	int			rc;

	*out = NULL;
	if (from > to)
		return -PGWT_TF_INVAL;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return -PGWT_TF_NOMEM;
	l->from = from;
	l->to = to;
	l->skip_samples = skip_samples;
	l->st.first_rt = UINT64_MAX;
	memset(&ro, 0, sizeof(ro));
	ro.t_start = from;
	ro.t_end = to > UINT64_MAX - PGWT_RANGE_SLACK_NS ? UINT64_MAX : to + PGWT_RANGE_SLACK_NS;
	ro.range_realtime = true;
	ro.skip_cpu = true;			/* range_load.h: no consumer reads it */
	ro.skip_samples = skip_samples;
	ro.ts_realtime = true;		/* the decoder shifts as it hands records out */
	l->look_end = ro.t_end;
	if (!(l->path = strdup(path)) || (rc = pgwt_tf_reader_open(path, &ro, &l->rd)) < 0)
	{
		rc = l->path ? rc : -PGWT_TF_NOMEM;
		free(l->path);
		free(l);
		return rc;
	}
	if (from > 0)
	{
		pgwt_tf_esc_lookup el;
		uint64_t	start_rt;

		rc = pgwt_tf_escalation_open_at(path, from, &l->prime, &start_rt, &el);
		if (rc < 0)
		{
			pgwt_range_close(l);
			return rc;
		}
		if (rc == 1)
		{
			l->prime.ts_ns = start_rt;	/* the loader's clock is wall-clock */
			l->prime_pending = true;
			l->st.esc_open = true;
			l->st.esc_start_rt = start_rt;
		}
	}
	*out = l;
	return 0;
}

int
pgwt_range_open(const char *path, uint64_t from, uint64_t to, pgwt_range_loader **out)
{
	return rl_open(path, from, to, false, out);
}

int
pgwt_range_open_transitions(const char *path, uint64_t from, uint64_t to,
							pgwt_range_loader **out)
{
	return rl_open(path, from, to, true, out);
}

/*
 * The lookahead is read: the pids whose last record before "to" left them
 * in a non-idle state and that have no record since are in a wait that
 * outlasts it. 1 = a reader past the lookahead is open, 0 = none needed.
 */
static int
rl_search_start(pgwt_range_loader *l)
{
	pgwt_tf_read_opts ro;
	int			rc;

	l->pending = 0;
	for (uint32_t i = 0; i < l->cap; i++)
		if (l->pids[i].pid && l->pids[i].open && !l->pids[i].after)
			l->pending++;
	l->searching = true;
	if (l->pending == 0 || l->look_end == UINT64_MAX)
		return 0;
	memset(&ro, 0, sizeof(ro));
	ro.t_start = l->look_end + 1;
	ro.t_end = UINT64_MAX;
	ro.range_realtime = true;
	ro.skip_cpu = true;
	ro.skip_samples = l->skip_samples;
	ro.ts_realtime = true;
	if ((rc = pgwt_tf_reader_open(l->path, &ro, &l->srd)) < 0)
		return rc == -PGWT_TF_NOT_FOUND ? 0 : rc;
	return 1;
}

/* Past the lookahead: a pending pid's next record ends its wait (handed
 * on cut to the range when it is a transition); other records are not. */
static bool
rl_search_keep(pgwt_range_loader *l, const pgwt_record *r)
{
	rl_pid	   *p = rl_find(l, r->pid, false);

	if (p == NULL || !p->open || p->after)
		return false;
	p->after = true;
	l->pending--;
	return r->kind == PGWT_REC_TRANSITION && !PGWT_IS_MARKER(r->new_event);
}

/*
 * Whether a record (ts in wall-clock time) lies wholly inside [from, to),
 * so that pgwt_range_clip would hand it on unchanged: the common case,
 * decided without a copy. The rest goes through pgwt_range_clip.
 */
static inline bool
rl_inside(const pgwt_record *r, uint64_t from, uint64_t to)
{
	uint64_t	end = r->ts_ns,
				start;

	if (r->kind != PGWT_REC_TRANSITION)
		return end >= from && end < to;
	if (PGWT_IS_MARKER(r->new_event))
		return true;
	start = r->duration_ns > end ? 0 : end - r->duration_ns;
	return start >= from && end < to;
}

/*
 * The records of a block from its start that lie before "to" (the
 * reader hands them out in wall-clock time: pgwt_tf_read_opts.ts_realtime),
 * with their earliest and latest ts: pgwt_range_next's loop for a range
 * from 0 with no pid to follow, where every such record is handed on
 * unchanged. Returns how many; the loop goes on from the first record at
 * or past "to".
 *
 * A block's records ascend by ts (pgwt_tf_block), and the shift to wall
 * clock keeps that order unless it wraps between the first and the last:
 * then the end of the prefix is a binary search and its extremes are its
 * ends, so no record is read but those.
 */
static uint32_t
rl_fast_prefix(const pgwt_record *buf, uint32_t n, uint64_t to, uint64_t *first,
			   uint64_t *last)
{
	uint64_t	lo = *first,
				hi = *last;
	uint32_t	i,
				a = 0,
				b = n;

	if (n > 0 && buf[0].ts_ns <= buf[n - 1].ts_ns)
	{
		while (a < b)
		{
			uint32_t	mid = a + (b - a) / 2;

			if (buf[mid].ts_ns < to)
				a = mid + 1;
			else
				b = mid;
		}
		if (a > 0)
		{
			*first = buf[0].ts_ns < lo ? buf[0].ts_ns : lo;
			*last = buf[a - 1].ts_ns > hi ? buf[a - 1].ts_ns : hi;
		}
		return a;
	}
	for (i = 0; i < n; i++)
	{
		uint64_t	ts = buf[i].ts_ns;

		if (ts >= to)
			break;
		lo = ts < lo ? ts : lo;
		hi = ts > hi ? ts : hi;
	}
	*first = lo;
	*last = hi;
	return i;
}

int
pgwt_range_next(pgwt_range_loader *l, pgwt_range_batch *b)
{
	pgwt_tf_block blk;
	uint32_t	n = 0;
	int			rc;
	bool		track,
				from_start;
	uint64_t	first,
				last;

	memset(b, 0, sizeof(*b));
	if (l->prime_pending)
	{
		l->prime_pending = false;
		b->recs = &l->prime;
		b->n = 1;
		b->first_ts = b->last_ts = l->prime.ts_ns;
		return 1;
	}
	if (l->searching && (l->pending == 0 || l->srd == NULL))
		return 0;
	while ((rc = pgwt_tf_reader_next_block_into(l->searching ? l->srd : l->rd, l->buf, &blk)) == 0 &&
		   !l->searching)
		if ((rc = rl_search_start(l)) != 1)
			return rc;
	if (rc != 1)
		return rc;
	l->st.read += blk.n;
	/* rl_track does nothing when there is no lookahead end to search past */
	track = !l->searching && l->look_end != UINT64_MAX;
	/* from 0, a record is inside when its instant is before "to" (a
	 * transition's start cannot precede 0): one comparison */
	from_start = l->from == 0;
	first = UINT64_MAX;
	last = 0;
	/* a whole dump from 0 with nothing to follow: one test */
	n = from_start && !track && !l->searching ?
		rl_fast_prefix(l->buf, blk.n, l->to, &first, &last) : 0;
	for (uint32_t i = n; i < blk.n; i++)
	{
		pgwt_record *o = &l->buf[n];

		/* in place: the reader decoded into buf, and n <= i */
		if (n != i)
			*o = l->buf[i];
		if (l->searching ? !rl_search_keep(l, o) : (track && (rl_track(l, o), false)))
			continue;
		if (!(from_start ? o->ts_ns < l->to : rl_inside(o, l->from, l->to)))
		{
			pgwt_record r = *o;

			if (!pgwt_range_clip(&r, l->from, l->to, o))
				continue;
			if (o->ts_ns != r.ts_ns || o->duration_ns != r.duration_ns)
				l->st.clipped++;
		}
		if (o->ts_ns < first)
			first = o->ts_ns;
		if (o->ts_ns > last)
			last = o->ts_ns;
		n++;
	}
	if (first < l->st.first_rt)
		l->st.first_rt = first;
	if (last > l->st.last_rt)
		l->st.last_rt = last;
	l->st.delivered += n;
	b->recs = l->buf;
	b->n = n;
	/* the v8 decoder makes every record of such a block a transition */
	b->transitions = blk.type == PGWT_TF_BLOCK_TRANSITIONS && blk.file->version >= 8;
	b->file = blk.file;
	b->first_ts = first;
	b->last_ts = last;
	return 1;
}

bool
pgwt_range_open_window(const pgwt_range_loader *l, pgwt_record *esc_start)
{
	if (!l->st.esc_open)
		return false;
	*esc_start = l->prime;
	return true;
}

const pgwt_tf_reader *
pgwt_range_reader(const pgwt_range_loader *l)
{
	return l->rd;
}

const pgwt_range_stats *
pgwt_range_stats_get(const pgwt_range_loader *l)
{
	return &l->st;
}

void
pgwt_range_close(pgwt_range_loader *l)
{
	if (l == NULL)
		return;
	pgwt_tf_reader_close(l->rd);
	pgwt_tf_reader_close(l->srd);
	free(l->pids);
	free(l->path);
	free(l);
}
