/*
 * trace_source.c
 *		The file-backed pgwt_tf_trace_source (trace_source.h): records
 *		through the trace reader, frames through the summary reader, the
 *		summary check by looking for <trace file>.sum beside each file of
 *		a range, and the live summary's end from its frame headers.
 *
 * Each call opens and closes its readers; the only state is the path
 * and the caller's summary memo (summary.h), if it gave one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefmt/trace_source.h"

typedef struct ts_arg
{
	pgwt_tf_sum_memo *memo;		/* the caller's, or NULL */
	char		path[];
} ts_arg;

static int
ts_records(void *arg, uint64_t lo, uint64_t hi, pgwt_tf_records_cb cb, void *cb_arg)
{
	const char *path = ((const ts_arg *) arg)->path;
	pgwt_tf_read_opts ro;
	pgwt_tf_reader *r;
	pgwt_tf_block b;
	int			rc;

	if (hi <= lo)
		return 0;
	memset(&ro, 0, sizeof(ro));
	ro.t_start = lo;
	ro.t_end = hi - 1;
	if ((rc = pgwt_tf_reader_open(path, &ro, &r)) < 0)
		return rc == -PGWT_TF_NOT_FOUND ? 0 : rc;
	while ((rc = pgwt_tf_reader_next_block(r, &b)) == 1)
		if ((rc = cb(b.recs, b.n, cb_arg)) < 0)
			break;
	pgwt_tf_reader_close(r);
	return rc < 0 ? rc : 0;
}

static int
ts_frames(void *arg, uint64_t lo, uint64_t hi, pgwt_tf_sum_filter filter,
		  void *filter_arg, pgwt_tf_frame_cb cb, void *cb_arg, bool *bad)
{
	const char *path = ((const ts_arg *) arg)->path;
	pgwt_tf_sum_reader *sr;
	const pgwt_tf_second *s;
	int			rc;

	*bad = false;
	if (hi <= lo)
		return 0;
	if ((rc = pgwt_tf_sum_reader_open(path, lo, hi - 1, &sr)) < 0)
		return rc;
	pgwt_tf_sum_reader_set_filter(sr, filter, filter_arg);
	pgwt_tf_sum_reader_set_memo(sr, ((const ts_arg *) arg)->memo);
	while ((rc = pgwt_tf_sum_reader_next(sr, &s)) == 1)
		if ((rc = cb(s, cb_arg)) < 0)
			break;
	if (rc == 0 && pgwt_tf_sum_reader_stats(sr)->frames_bad > 0)
		*bad = true;
	pgwt_tf_sum_reader_close(sr);
	return rc < 0 ? rc : 0;
}

static bool
ts_all_summarized(void *arg, uint64_t lo, uint64_t hi, int64_t shift)
{
	const char *path = ((const ts_arg *) arg)->path;
	pgwt_tf_read_opts ro;
	pgwt_tf_reader *r;
	uint32_t	i;
	bool		ok = true;

	memset(&ro, 0, sizeof(ro));
	ro.t_start = lo;
	ro.t_end = hi;
	if (pgwt_tf_reader_open(path, &ro, &r) < 0)
		return false;
	for (i = 0; ok && i < pgwt_tf_reader_nfiles(r); i++)
	{
		char		sum[4096];
		const pgwt_tf_file_header *h = pgwt_tf_reader_file_header(r, i);

		if (snprintf(sum, sizeof(sum), "%s%s", pgwt_tf_reader_file_path(r, i),
					 PGWT_TF_SUM_SUFFIX) >= (int) sizeof(sum) ||
			access(sum, R_OK) != 0)
			ok = false;
		if (shift != 0 && h->start_realtime_ns - h->start_monotonic_ns != (uint64_t) shift)
			ok = false;
	}
	pgwt_tf_reader_close(r);
	return ok;
}

static bool
ts_last_frame(uint64_t sec_ts, uint64_t span_ns, uint64_t reach_ns, void *arg)
{
	uint64_t   *end = arg;

	(void) reach_ns;
	if (span_ns == PGWT_TF_SUM_SECOND_NS && sec_ts + PGWT_TF_SUM_SECOND_NS > *end)
		*end = sec_ts + PGWT_TF_SUM_SECOND_NS;
	return false;				/* headers only */
}

static bool
ts_live_summary_end(void *arg, uint64_t *end_ns)
{
	const char *path = ((const ts_arg *) arg)->path;
	char		live[4096];
	pgwt_tf_sum_reader *sr;
	const pgwt_tf_second *s;

	*end_ns = 0;
	if (snprintf(live, sizeof(live), "%s/%s%s", path, PGWT_TF_CURRENT_NAME,
				 PGWT_TF_SUM_SUFFIX) >= (int) sizeof(live) || access(live, R_OK) != 0)
		return false;
	if (pgwt_tf_sum_reader_open(live, 0, UINT64_MAX, &sr) == 0)
	{
		pgwt_tf_sum_reader_set_filter(sr, ts_last_frame, end_ns);
		while (pgwt_tf_sum_reader_next(sr, &s) == 1)
			;
		pgwt_tf_sum_reader_close(sr);
	}
	return true;
}

int
pgwt_tf_trace_source_open(const char *path, pgwt_tf_trace_source *src)
{
	ts_arg	   *a;
	size_t		n;

	memset(src, 0, sizeof(*src));
	if (!path)
		return -PGWT_TF_INVAL;
	n = strlen(path);
	if (!(a = malloc(sizeof(*a) + n + 1)))
		return -PGWT_TF_NOMEM;
	a->memo = NULL;
	memcpy(a->path, path, n + 1);
	src->arg = a;
	src->records = ts_records;
	src->frames = ts_frames;
	src->all_summarized = ts_all_summarized;
	src->live_summary_end = ts_live_summary_end;
	return 0;
}

void
pgwt_tf_trace_source_set_memo(pgwt_tf_trace_source *src, pgwt_tf_sum_memo *memo)
{
	((ts_arg *) src->arg)->memo = memo;
}

void
pgwt_tf_trace_source_close(pgwt_tf_trace_source *src)
{
	free(src->arg);
	src->arg = NULL;
}
