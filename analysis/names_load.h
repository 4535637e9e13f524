/*
 * names_load.h
 *		Give a pgwt_names the wait-event names a trace directory carries in
 *		its events.tsv (docs/TRACE_FORMAT.md 8.3): the names of events the
 *		compiled tables lack (tranches and custom events registered at run
 *		time, every event of a server version without a table). One loader
 *		for every reader of a directory (--replay, pgwt-dump,
 *		pgwt_history_*).
 */
#ifndef PGWT_ANALYSIS_NAMES_LOAD_H
#define PGWT_ANALYSIS_NAMES_LOAD_H

#include <stdint.h>

#include "analysis/wait_event.h"

/*
 * Every valid line of dir's events.tsv into names (a later line for an
 * id replaces an earlier one). A line whose class is not its id's class
 * is not trusted. Returns 0, -PGWT_TF_NOT_FOUND when the directory has no
 * events.tsv, or another negative tracefmt error. *pg_version (may be
 * NULL) gets the version of the magic line; *ignored (may be NULL) counts
 * the lines not used (bad, past the bound, class mismatch), for one
 * warning by the caller.
 */
int			pgwt_names_load_dir(pgwt_names *names, const char *dir,
								uint32_t *pg_version, uint64_t *ignored);

#endif							/* PGWT_ANALYSIS_NAMES_LOAD_H */
