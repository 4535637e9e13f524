/*
 * trace_worker.h
 *		The trace drain worker: moves the trace rings into trace files
 *		(tracefmt) in pg_wait_tracer.trace_dir and runs the escalation
 *		window's clock and anomaly rules.
 */
#ifndef PGWT_TRACE_WORKER_H
#define PGWT_TRACE_WORKER_H

/* Register the worker (from _PG_init, via pgwt_trace_init). */
extern void pgwt_trace_worker_register(void);

/* The worker's entry point (bgw_function_name). */
extern PGDLLEXPORT void pgwt_trace_worker_main(Datum main_arg);

/* The trace directory as an absolute path (palloc'd). */
extern char *pgwt_trace_dir_path(void);

#endif							/* PGWT_TRACE_WORKER_H */
