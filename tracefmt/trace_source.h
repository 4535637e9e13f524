/*
 * trace_source.h
 *		What a consumer of a time window needs from a stored trace, as a
 *		table of functions: the records of a time range, the summary frames
 *		of a time range, whether every file of a range has its summary, and
 *		where the live summary ends. Layers above tracefmt (analysis) take
 *		such a table instead of a path, so they do no file I/O and can be
 *		fed scripted inputs; pgwt_tf_trace_source_open() gives the table of
 *		a trace directory or file.
 */
#ifndef PGWT_TRACEFMT_TRACE_SOURCE_H
#define PGWT_TRACEFMT_TRACE_SOURCE_H

#include "tracefmt/summary.h"

/* A block of records in the reader's order; < 0 stops with that code. */
typedef int (*pgwt_tf_records_cb) (const pgwt_record *recs, uint32_t n, void *arg);
/* A summary frame; < 0 stops with that code. */
typedef int (*pgwt_tf_frame_cb) (const pgwt_tf_second *s, void *arg);

typedef struct pgwt_tf_trace_source
{
	void	   *arg;
	/* Records with ts in [lo, hi) (trace clock); 0 or a negative error
	 * (a trace without files gives no record and 0). */
	int			(*records) (void *arg, uint64_t lo, uint64_t hi,
							pgwt_tf_records_cb cb, void *cb_arg);
	/* Summary frames with sec_ts in [lo, hi) that pass filter; *bad is
	 * set when a frame in the range was invalid. 0 or an error. */
	int			(*frames) (void *arg, uint64_t lo, uint64_t hi,
						   pgwt_tf_sum_filter filter, void *filter_arg,
						   pgwt_tf_frame_cb cb, void *cb_arg, bool *bad);
	/* Every trace file holding records in [lo, hi] has its summary and,
	 * when shift is not 0, maps its clock to wall-clock time by shift. */
	bool		(*all_summarized) (void *arg, uint64_t lo, uint64_t hi, int64_t shift);
	/* The end of the live summary's last one-second frame; false when
	 * there is no live summary. */
	bool		(*live_summary_end) (void *arg, uint64_t *end_ns);
} pgwt_tf_trace_source;

/* The source of a trace directory or single trace file (path is copied). */
extern int	pgwt_tf_trace_source_open(const char *path, pgwt_tf_trace_source *src);
/* Its summary readers share memo (summary.h; it must outlive src). */
extern void pgwt_tf_trace_source_set_memo(pgwt_tf_trace_source *src,
										  pgwt_tf_sum_memo *memo);
extern void pgwt_tf_trace_source_close(pgwt_tf_trace_source *src);

#endif							/* PGWT_TRACEFMT_TRACE_SOURCE_H */
