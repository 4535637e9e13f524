/*
 * live.h
 *		Live tracing: interactive runs and the daemon.
 */
#ifndef PGWT_TRACER_LIVE_H
#define PGWT_TRACER_LIVE_H

#include "tracer/cli.h"

/* Returns the process exit status. */
extern int	pgwt_run_live(const pgwt_options *o);

#endif
