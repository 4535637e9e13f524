/*
 * trace_names.h
 *		The trace writer's names: every event id it writes that the
 *		compiled name tables lack gets its name, as this server gives it,
 *		appended once to the trace directory's events.tsv
 *		(docs/TRACE_FORMAT.md 8.3), so the paths outside the server name
 *		it as the SQL views do. Used by the trace worker only (its own
 *		process state, nothing shared).
 */
#ifndef PGWT_TRACE_NAMES_H
#define PGWT_TRACE_NAMES_H

#include "tracefmt/record.h"
#include "tracefmt/tracefmt.h"

/* At the worker's start: what events.tsv of dir already says. */
extern void pgwt_trace_names_start(const char *dir);

/* Every record the worker wrote (cheap: the ids are checked, no I/O). */
extern void pgwt_trace_names_note(const pgwt_record *r);

/* Once a pass: name the new ids and append them to events.tsv. */
extern void pgwt_trace_names_flush(pgwt_tf_dir_writer *dir,
								   const pgwt_tf_file_opts *side);

#endif							/* PGWT_TRACE_NAMES_H */
