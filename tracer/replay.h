/*
 * replay.h
 *		Views from trace files: no root, no server.
 */
#ifndef PGWT_TRACER_REPLAY_H
#define PGWT_TRACER_REPLAY_H

#include "tracer/cli.h"

/* Returns the process exit status. */
extern int	pgwt_run_replay(const pgwt_options *o);

#endif
