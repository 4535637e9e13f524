/*
 * name_log.h
 *		Which event ids a trace writer still has to name in its directory's
 *		events.tsv (docs/TRACE_FORMAT.md 8.3): every id its records carry
 *		that the compiled name table of the server version lacks (tranches
 *		and custom wait events registered at run time; every id of a
 *		version without a table), each once, at most PGWT_NAME_LOG_MAX ids.
 *		Pure: the writer resolves the queued ids in the server and appends
 *		them (extension/trace_names.c).
 *
 * A pgwt_name_log belongs to its caller; nothing is shared.
 */
#ifndef PGWT_ANALYSIS_NAME_LOG_H
#define PGWT_ANALYSIS_NAME_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/wait_event.h"
#include "tracefmt/record.h"

#define PGWT_NAME_LOG_MAX	512		/* ids named per writer lifetime */
#define PGWT_NAME_LOG_SLOTS	1024	/* hash slots: twice the ids, a power of 2 */

typedef struct pgwt_name_log
{
	const pgwt_names *known;	/* compiled table (may hold none) */
	uint32_t	slot[PGWT_NAME_LOG_SLOTS];	/* id + 1 of every id seen; 0 = free */
	unsigned	nseen;
	uint32_t	pending[PGWT_NAME_LOG_MAX];	/* seen, not yet taken */
	unsigned	npending;
	uint32_t	last;			/* the last id noted (fast path) */
	uint64_t	dropped;		/* ids past PGWT_NAME_LOG_MAX */
} pgwt_name_log;

void		pgwt_name_log_init(pgwt_name_log *l, const pgwt_names *known);

/* true when id is new and needs a name (then queued in pending). Ids 0,
 * exit, the marker range, classes no server uses and ids the compiled
 * table names never need one. */
bool		pgwt_name_log_note(pgwt_name_log *l, uint32_t id);

/* The ids a record carries (a transition's old and new, a sample's). */
void		pgwt_name_log_note_record(pgwt_name_log *l, const pgwt_record *r);

/* The queued ids, cleared: copies at most max into out, returns the count
 * (ids past max stay queued). */
unsigned	pgwt_name_log_take(pgwt_name_log *l, uint32_t *out, unsigned max);

#endif							/* PGWT_ANALYSIS_NAME_LOG_H */
