/*
 * range_load.c
 *		The range loader (range_load.h): a trace reader over [from, to +
 *		slack], the open escalation window's ESC_START first, every record
 *		mapped to wall-clock time and cut to [from, to) by pgwt_range_clip.
 *
 * The only I/O is tracefmt's reader and its escalation lookup; the loader
 * owns its reader and one block-sized buffer. One loader, one thread.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/range_load.h"

struct pgwt_range_loader
{
	pgwt_tf_reader *rd;
	uint64_t	from;
	uint64_t	to;
	bool		prime_pending;	/* the open window's ESC_START not yet out */
	pgwt_record prime;
	pgwt_range_stats st;
	pgwt_record buf[PGWT_TF_BLOCK_MAX_RECORDS];
};

int
pgwt_range_open(const char *path, uint64_t from, uint64_t to, pgwt_range_loader **out)
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
	l->st.first_rt = UINT64_MAX;
	memset(&ro, 0, sizeof(ro));
	ro.t_start = from;
	ro.t_end = to > UINT64_MAX - PGWT_RANGE_SLACK_NS ? UINT64_MAX : to + PGWT_RANGE_SLACK_NS;
	ro.range_realtime = true;
	if ((rc = pgwt_tf_reader_open(path, &ro, &l->rd)) < 0)
	{
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
pgwt_range_next(pgwt_range_loader *l, pgwt_range_batch *b)
{
	pgwt_tf_block blk;
	uint32_t	n = 0;
	int			rc;

	memset(b, 0, sizeof(*b));
	if (l->prime_pending)
	{
		l->prime_pending = false;
		b->recs = &l->prime;
		b->n = 1;
		return 1;
	}
	if ((rc = pgwt_tf_reader_next_block(l->rd, &blk)) != 1)
		return rc;
	l->st.read += blk.n;
	for (uint32_t i = 0; i < blk.n; i++)
	{
		pgwt_record r = blk.recs[i];
		pgwt_record *o = &l->buf[n];

		r.ts_ns = pgwt_tf_to_realtime(blk.file, r.ts_ns);
		if (!pgwt_range_clip(&r, l->from, l->to, o))
			continue;
		if (o->ts_ns != r.ts_ns || o->duration_ns != r.duration_ns)
			l->st.clipped++;
		if (o->ts_ns < l->st.first_rt)
			l->st.first_rt = o->ts_ns;
		if (o->ts_ns > l->st.last_rt)
			l->st.last_rt = o->ts_ns;
		n++;
	}
	l->st.delivered += n;
	b->recs = l->buf;
	b->n = n;
	b->file = blk.file;
	return 1;
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
	free(l);
}
