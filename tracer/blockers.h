/*
 * blockers.h
 *		Lock-chain input: which backends wait on a heavyweight lock (seen in
 *		samples or transitions), and who blocks them according to the
 *		server (pg_blocking_pids), asked through the tracer's own libpq
 *		connection at most once per interval, never per event.
 *
 * Observations go to a callback (the analysis engine's
 * pgwt_engine_feed_blockers) and, when a trace directory is recorded, to
 * its side file blockers.tsv: one line per observation,
 * "ts_ns<TAB>waiter_pid<TAB>blocker,blocker,..." (CLOCK_MONOTONIC ns, as
 * the records; an empty third column = no blocker any more). The lines of
 * one poll are appended with one write through tracefmt's side-file code
 * (a checked directory, never through a link, within the file's bound).
 */
#ifndef PGWT_TRACER_BLOCKERS_H
#define PGWT_TRACER_BLOCKERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracefmt/record.h"
#include "tracefmt/tracefmt.h"
#include "tracer/pgconn.h"

#define PGWT_BLOCKERS_MAX_WAITERS	256
#define PGWT_BLOCKERS_MAX_PER_OBS	8

typedef void (*pgwt_blocker_sink) (void *arg, uint64_t ts_ns, uint32_t waiter,
								   const uint32_t *blockers, int n);

typedef struct pgwt_blockers
{
	uint32_t	waiters[PGWT_BLOCKERS_MAX_WAITERS];	/* now in a Lock wait */
	int			nwaiters;
	uint64_t	min_interval_ns;
	uint64_t	last_query_ns;
	uint64_t	queries_total;
	uint64_t	observations_total;
	uint64_t	lines_refused;	/* not written: the file at its bound, or
								 * an I/O error */
	int			dirfd;			/* the trace directory; -1 = no side file */
	pgwt_tf_file_opts tsv_opts; /* mode, group and bound of blockers.tsv */
	char	   *buf;			/* the lines of one poll */
	size_t		len;
	size_t		cap;
	pgwt_blocker_sink sink;
	void	   *sink_arg;
	uint64_t	now_ns;			/* during a query */
} pgwt_blockers;

/*
 * blockers.tsv in the recorder's checked trace directory (dirfd is
 * duplicated; -1 = no side file); opts: mode, group and bound of the file
 * (NULL: the defaults). -1 when it cannot be used (nothing is written then).
 */
int			pgwt_blockers_init_at(pgwt_blockers *b, uint64_t min_interval_ns,
								  int dirfd, const pgwt_tf_file_opts *opts,
								  pgwt_blocker_sink sink, void *arg);

/* Pure: follow Lock waits through records. */
void		pgwt_blockers_note(pgwt_blockers *b, const pgwt_record *recs, size_t n);

/* Ask the server when due and someone waits; returns observations made. */
int			pgwt_blockers_poll(pgwt_blockers *b, pgwt_pgconn *pg, uint64_t now_ns);

void		pgwt_blockers_close(pgwt_blockers *b);

#endif
