/*
 * range_load.h
 *		The one way every reader of stored history loads a time range of
 *		records for the analysis engine (pgwt_history_* in the extension,
 *		pg_wait_tracer --replay, pgwt-dump): wall-clock time, the open
 *		escalation window first, and every record cut to the range.
 *
 * The range is [from, to) in CLOCK_REALTIME ns (0 / UINT64_MAX: open
 * ends). Records come out in wall-clock time (each file's clock mapped
 * through its header), so files from different boots line up. Their
 * cpu_ns may be PGWT_CPU_UNKNOWN where the file knows it: the engine and
 * the views bill none, so the loader asks the reader to skip it
 * (pgwt_tf_read_opts.skip_cpu: a column checked, not decoded).
 *
 * Clipping (pgwt_range_clip, pure): only the part of a wait inside the
 * range counts. A transition says its backend spent [ts - duration, ts) in
 * old_event; one that overlaps the range is handed on as the overlap
 * [max(start, from), min(ts, to)): ts moved to the clipped end, duration
 * (and a known cpu_ns, in proportion) cut to it. So a wait counts once in
 * every range it overlaps, with the time it spent there: totals, avg,
 * max and histograms of a range all describe that time, and a histogram
 * of a range sums to the range's total. Samples count where they were
 * taken (ts in [from, to)); markers pass unchanged (ESC_START/ESC_END
 * bound the exact spans even just outside the range).
 *
 * To see the waits that began before "to" and end after it, the loader
 * reads PGWT_RANGE_SLACK_NS past "to" (the lookahead). A wait that outlasts
 * the lookahead is found from what the files record: the loader follows
 * each pid's last record before "to"; a pid whose last record entered a
 * wait (a transition into an event that is not CPU*, idle nor EXIT) and
 * that has no record since is searched past the lookahead, where its next
 * record ends that wait and is handed on cut to the range; the search
 * stops as soon as every such pid has its next record. So the extra
 * reading happens only when a backend is in a wait longer than the
 * lookahead, and ends with the longest such wait (or the trace, for a
 * backend that vanished inside a wait). Not searched: idle states
 * (ClientRead, Activity: a session idle for hours would make every range
 * read on to its next statement), and CPU* (the coop tier writes no EXIT
 * record, so a backend gone after its last wait would be searched to the
 * end of the trace): their time past the lookahead is not in the range. A
 * wait that began before "from" by a pid with no record in
 * [from, to + lookahead] is not seen either.
 */
#ifndef PGWT_ANALYSIS_RANGE_LOAD_H
#define PGWT_ANALYSIS_RANGE_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "tracefmt/tracefmt.h"

#define PGWT_RANGE_SLACK_NS		(600ull * 1000000000ull)

/*
 * Cut one record (ts already in the range's clock) to [from, to): true and
 * *out set when some of it is inside, false when none is. Pure.
 */
bool		pgwt_range_clip(const pgwt_record *in, uint64_t from, uint64_t to,
							pgwt_record *out);

/*
 * The engine window that shows a loaded range [from, to) whole: it ends
 * one ns past "to", since the loader hands a wait that outlasts the range
 * on as ending at "to" (the engine counts a wait in the window where it
 * ends). Windows inside the range keep the engine's own rule.
 */
uint64_t	pgwt_range_window_end(uint64_t to);

typedef struct pgwt_range_loader pgwt_range_loader;

typedef struct pgwt_range_stats
{
	uint64_t	read;			/* records the reader delivered */
	uint64_t	delivered;		/* handed on (after clipping) */
	uint64_t	clipped;		/* transitions cut at an end of the range */
	uint64_t	first_rt;		/* extent of the delivered records */
	uint64_t	last_rt;
	bool		esc_open;		/* an escalation window was open at "from" */
	uint64_t	esc_start_rt;	/* ... since then */
} pgwt_range_stats;

/* A batch of records from one trace file (valid until the next call). */
typedef struct pgwt_range_batch
{
	const pgwt_record *recs;
	uint32_t	n;
	const pgwt_tf_file_header *file;	/* NULL for the open window's ESC_START */
	uint64_t	first_ts,		/* the earliest and latest ts in recs (n > 0) */
				last_ts;
	bool		transitions;	/* every record is a transition (a v8 TRANSITIONS
								 * block's): pgwt_engine_add_transitions takes it */
} pgwt_range_batch;

/*
 * Open path (a trace directory or one file) for [from, to). When from > 0
 * the escalation window open at from (tracefmt's
 * pgwt_tf_escalation_open_at) is looked up, and its ESC_START is the first
 * record handed out, so the samples it supersedes are not billed twice.
 * Returns 0 or a negative tracefmt error (-PGWT_TF_INVAL when from > to).
 */
int			pgwt_range_open(const char *path, uint64_t from, uint64_t to,
							pgwt_range_loader **out);
/*
 * The same, reading only the blocks of transitions (exact waits and
 * markers): the blocks of samples are skipped by their header, unread.
 * For readers of markers only (escalation windows), which then get the
 * markers pgwt_range_open hands out at a fraction of the cost.
 */
int			pgwt_range_open_transitions(const char *path, uint64_t from, uint64_t to,
										pgwt_range_loader **out);
/* 1 = a batch (n may be 0 when all was outside), 0 = end, < 0 = error. */
int			pgwt_range_next(pgwt_range_loader *l, pgwt_range_batch *b);
/*
 * The open window's ESC_START (wall-clock ts), when one was open at
 * "from": a reader of the same range by other means (per-second summaries
 * with records at the edges) hands it to the engine first, as the loader
 * does, so the edge records' samples it supersedes are not billed.
 */
bool		pgwt_range_open_window(const pgwt_range_loader *l, pgwt_record *esc_start);
/* The reader underneath: its files, headers and stats. */
const pgwt_tf_reader *pgwt_range_reader(const pgwt_range_loader *l);
const pgwt_range_stats *pgwt_range_stats_get(const pgwt_range_loader *l);
void		pgwt_range_close(pgwt_range_loader *l);

#endif							/* PGWT_ANALYSIS_RANGE_LOAD_H */
