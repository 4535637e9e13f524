/*
 * output.h
 *		Rendering of the analysis views (and the live-only `active` view and
 *		self-metrics) as text, a refreshing terminal screen, or JSON lines.
 *		Numbers come from analysis/views.h; nothing is aggregated here.
 */
#ifndef PGWT_TRACER_OUTPUT_H
#define PGWT_TRACER_OUTPUT_H

#include <stdio.h>

#include "analysis/render.h"
#include "analysis/views.h"
#include "tracer/capture.h"
#include "tracer/cli.h"
#include "tracer/self_metrics.h"

typedef struct pgwt_output
{
	FILE	   *out;
	pgwt_format format;			/* resolved: never AUTO */
	const pgwt_options *opts;
	const pgwt_names *names;
	const char *source;			/* "live", "replay" */
	int			pg_major;
	int			csv_header_done;	/* CSV header once per run */
} pgwt_output;

/* AUTO -> TUI on a terminal, TEXT otherwise. */
extern pgwt_format pgwt_output_resolve(pgwt_format f, FILE *out);

/* The selected view over every window of eng. Returns 0, or -1 when the
 * view could not be computed (message on stderr). */
extern int	pgwt_output_view(pgwt_output *o, const pgwt_engine *eng,
							 const char *header_note);

/* The live `active` view. */
extern void pgwt_output_active(pgwt_output *o, pgwt_live_backend *rows, size_t n,
							   const pgwt_engine *eng, uint64_t now_ns,
							   uint64_t uptime_ns);

/* JSON status line with the self-metrics (json format only). */
extern void pgwt_output_status(pgwt_output *o, const pgwt_self_metrics *m,
							   uint64_t now_ns, const char *mode, const char *tier,
							   int pg_pid);

#endif
