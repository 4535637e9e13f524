/*
 * hist_probe.h
 *		The histogram of one event, optionally of one session (pid) or one
 *		query within it, with the time of each bucket: filled by the engine
 *		in its one pass (pgwt_engine_set_hist_probe) from the exact waits
 *		its first window counts, by the same rule that fills the window's
 *		histograms (a wait counts where it ends; its full length decides
 *		its bucket, common/histogram.h). A background process's waits are
 *		no query's, as in the window's query table.
 *
 * The engine keeps counts per bucket only; a probe adds the sum of the
 * waits' lengths per bucket, for the one key a caller asks about. Pure; a
 * probe belongs to the engine's thread.
 */
#ifndef PGWT_ANALYSIS_HIST_PROBE_H
#define PGWT_ANALYSIS_HIST_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/histogram.h"

typedef struct pgwt_hist_probe
{
	/* the key */
	uint32_t	event;
	bool		has_pid;
	uint32_t	pid;
	bool		has_query;
	uint64_t	query_id;
	/* what was counted */
	uint64_t	waits;
	uint64_t	completed_ns;		/* sum of the waits' full lengths */
	uint64_t	min_ns;				/* 0 when no wait */
	uint64_t	max_ns;
	uint64_t	count[PGWT_HIST_NS_BUCKETS];
	uint64_t	time_ns[PGWT_HIST_NS_BUCKETS];	/* saturating sums */
} pgwt_hist_probe;

void		pgwt_hist_probe_init(pgwt_hist_probe *p, uint32_t event, bool has_pid, uint32_t pid,
								 bool has_query, uint64_t query_id);

/* One exact wait of pid in event ev under query_id, full_ns long, that
 * the engine's first window counts. */
void		pgwt_hist_probe_add(pgwt_hist_probe *p, uint32_t pid, uint32_t ev, uint64_t query_id,
								bool background, uint64_t full_ns);

#endif							/* PGWT_ANALYSIS_HIST_PROBE_H */
