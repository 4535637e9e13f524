/*
 * summary_load.h
 *		Fills an engine window with a loaded range from a stored trace,
 *		from summaries where they are whole and exact, from records cut to
 *		the range everywhere else (docs/TRACE_FORMAT.md 11.4): the same
 *		answer as the range loader's, every column. The trace is handed in as a
 *		pgwt_tf_trace_source (tracefmt/trace_source.h), so the logic does
 *		no I/O and takes scripted sources; the billing itself is the pure
 *		analysis/summary.c.
 */
#ifndef PGWT_ANALYSIS_SUMMARY_LOAD_H
#define PGWT_ANALYSIS_SUMMARY_LOAD_H

#include "analysis/summary.h"
#include "tracefmt/trace_source.h"

typedef struct pgwt_summary_load_stats
{
	bool		used_summary;	/* false: everything came from records */
	const char *why_raw;		/* when not used (static text) */
	uint64_t	minutes;		/* minute rollups billed */
	uint64_t	seconds;		/* second frames billed (window + after) */
	uint64_t	records;		/* records fed to the engine (cut) */
} pgwt_summary_load_stats;

/*
 * Window w of eng from a source (pgwt_tf_trace_source_open() for a
 * directory or one file, or a scripted one), as the range loader
 * (range_load.h) fills it for the range [from, to): the window's spec must
 * be [from, pgwt_range_window_end(to)), and slack_ns is the loader's
 * lookahead (PGWT_RANGE_SLACK_NS). The engine's clock is the trace's +
 * shift ns, e.g. shift = start_realtime_ns - start_monotonic_ns of the
 * trace files for an engine in wall-clock time (pgwt-dump); summaries are
 * used only when every file read maps its clock by exactly this shift. An
 * escalation window open at "from" is the caller's to hand in first
 * (pgwt_range_open_window). Returns 0, or a negative tracefmt error; with
 * st->used_summary false nothing was billed (why_raw says why) and the
 * caller reads the range through the range loader. The caller flushes the
 * engine before reading views.
 */
int			pgwt_summary_load_source(pgwt_engine *eng, int w,
									 const pgwt_tf_trace_source *src,
									 uint64_t slack_ns, int64_t shift,
									 pgwt_summary_load_stats *st);

#endif							/* PGWT_ANALYSIS_SUMMARY_LOAD_H */
