/*
 * backends_load.h
 *		Give an engine the identity of each pid from a trace directory's
 *		backends.tsv (docs/TRACE_FORMAT.md 8.1), before its records: the
 *		engine learns from each line's type whether the pid is a session
 *		or a background process (common/process_rule.h). One loader for
 *		every reader of a directory (--replay, pgwt_history_*).
 */
#ifndef PGWT_ANALYSIS_BACKENDS_LOAD_H
#define PGWT_ANALYSIS_BACKENDS_LOAD_H

#include "analysis/engine.h"
#include "tracefmt/tracefmt.h"

/* One backends.tsv line as engine metadata (strings cut to fit). Pure. */
void		pgwt_backend_info_from_tf(const pgwt_tf_backend *b, pgwt_backend_info *out);

/*
 * Every line of dir's backends.tsv into eng (a later line for a pid
 * replaces an earlier one). A missing file is no error: its pids count
 * as sessions. Returns 0 or a negative tracefmt error; *bad (may be NULL)
 * counts unparsable lines.
 */
int			pgwt_backends_load(pgwt_engine *eng, const char *dir, uint64_t *bad);

#endif							/* PGWT_ANALYSIS_BACKENDS_LOAD_H */
