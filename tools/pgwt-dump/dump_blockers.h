/*
 * dump_blockers.h
 *		pgwt-dump's reader of the blockers.tsv side file (the tracer's
 *		pg_blocking_pids observations), until tracefmt reads it.
 */
#ifndef PGWT_DUMP_BLOCKERS_H
#define PGWT_DUMP_BLOCKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/engine.h"
#include "tracefmt/tracefmt.h"

#define DUMP_MAX_BLOCKER_OBS (1u << 20)

typedef struct dump_blockers
{
	pgwt_blocker_obs *obs;
	size_t		n;
	size_t		cap;
	size_t		next;				/* first not yet fed */
	uint64_t	bad;				/* malformed or torn lines */
	uint64_t	dropped;			/* past DUMP_MAX_BLOCKER_OBS */
	bool		present;
} dump_blockers;

/* Load dir/blockers.tsv (none: no observations), mapping its CLOCK_MONOTONIC
 * stamps to wall-clock time through hdr (may be NULL: left as they are).
 * false only when out of memory. Release with free(bl->obs). */
bool		dump_blockers_read(const char *dir, const pgwt_tf_file_header *hdr, dump_blockers *bl);

/* Hand the engine the observations up to ts (wall-clock ns), in order. */
void		dump_blockers_feed(pgwt_engine *eng, dump_blockers *bl, uint64_t ts);

/* Records to the engine with the observations up to each fed first (bl may
 * be NULL: the records only). */
void		dump_blockers_add_records(pgwt_engine *eng, dump_blockers *bl,
									  const pgwt_record *recs, size_t n);

#endif
