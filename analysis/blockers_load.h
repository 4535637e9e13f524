/*
 * blockers_load.h
 *		The reader of the blockers.tsv side file (the tracer's
 *		pg_blocking_pids observations) that pgwt-dump and pgwt-server feed
 *		the engine from, beside backends_load and names_load.
 */
#ifndef PGWT_ANALYSIS_BLOCKERS_LOAD_H
#define PGWT_ANALYSIS_BLOCKERS_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/engine.h"
#include "tracefmt/tracefmt.h"

#define DUMP_MAX_BLOCKER_OBS (1u << 20)

typedef struct pgwt_blkobs
{
	pgwt_blocker_obs *obs;
	size_t		n;
	size_t		cap;
	size_t		next;				/* first not yet fed */
	uint64_t	bad;				/* malformed or torn lines */
	uint64_t	dropped;			/* past DUMP_MAX_BLOCKER_OBS */
	bool		present;
} pgwt_blkobs;

/* Load dir/blockers.tsv (none: no observations), mapping its CLOCK_MONOTONIC
 * stamps to wall-clock time through hdr (may be NULL: left as they are).
 * false only when out of memory. Release with free(bl->obs). */
bool		pgwt_blkobs_read(const char *dir, const pgwt_tf_file_header *hdr, pgwt_blkobs *bl);

/* Hand the engine the observations up to ts (wall-clock ns), in order. */
void		pgwt_blkobs_feed(pgwt_engine *eng, pgwt_blkobs *bl, uint64_t ts);

/* Records to the engine with the observations up to each fed first (bl may
 * be NULL: the records only); transitions: every record is one
 * (pgwt_engine_add_transitions). */
void		pgwt_blkobs_add_records(pgwt_engine *eng, pgwt_blkobs *bl,
									  const pgwt_record *recs, size_t n, bool transitions);

#endif
