/*
 * esc_windows.h
 *		The escalation windows of a record stream, with their reasons, as
 *		the page draws them on the AAS chart: each window from its first
 *		ESC_START to its ESC_END (docs/TRACE_FORMAT.md section 5: a start
 *		inside an open window extends it, the continued copy at a file's
 *		head changes nothing, a window has one end). Pure, bounded: at most
 *		the caller's capacity of windows are kept, the rest are counted.
 */
#ifndef PGWT_ANALYSIS_ESC_WINDOWS_H
#define PGWT_ANALYSIS_ESC_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefmt/record.h"

typedef struct pgwt_esc_window
{
	uint64_t	start_ns;		/* the first ESC_START's ts */
	uint64_t	end_ns;			/* the ESC_END's ts; 0 = open where the stream ends */
	uint64_t	planned_end_ns; /* latest start's ts + its requested length */
	unsigned	reason;			/* the first start's code (PGWT_ESC_CODE_*) */
	unsigned	extensions;		/* nested starts that extended it */
} pgwt_esc_window;

typedef struct pgwt_esc_windows
{
	pgwt_esc_window *w;			/* caller's array */
	size_t		cap;
	size_t		n;
	uint64_t	dropped;		/* windows past cap */
	bool		open;			/* the last window has no end yet */
	pgwt_esc_window cur;		/* the open one, also when dropped */
} pgwt_esc_windows;

void		pgwt_esc_windows_init(pgwt_esc_windows *s, pgwt_esc_window *arr, size_t cap);
/* Feed one record (ts in the caller's clock); anything but an escalation
 * marker is ignored. */
void		pgwt_esc_windows_add(pgwt_esc_windows *s, const pgwt_record *r);
/* Ends the stream: an open window is kept with end_ns 0. */
void		pgwt_esc_windows_finish(pgwt_esc_windows *s);
/* "manual", "anomaly_aas", "schedule", "anomaly_lock", "cpu_saturation",
 * "unspecified"; a reserved code: "other". */
const char *pgwt_esc_code_name(unsigned code);

#endif							/* PGWT_ANALYSIS_ESC_WINDOWS_H */
