/*
 * render.h
 *		Front-end formatting of the views: text tables, JSON, CSV.
 *
 * Kept apart from the engine and the views: it only turns their results
 * into characters, appended to a caller-owned growable buffer (no I/O, so
 * the extension or a socket server can use it as well as the CLIs).
 *
 * JSON is one object per rendered view ("JSON lines"); unknown numbers
 * (waits of sampled data, max without exact waits, % of DB time of idle
 * events) are null, never 0. CSV is a header line then one line per row,
 * with the window label in the first column; unknowns are empty fields.
 */
#ifndef PGWT_ANALYSIS_RENDER_H
#define PGWT_ANALYSIS_RENDER_H

#include <stdarg.h>

#include "analysis/exact.h"
#include "analysis/views.h"

typedef enum pgwt_out_format
{
	PGWT_OUT_TEXT = 0,
	PGWT_OUT_JSON,
	PGWT_OUT_CSV
} pgwt_out_format;

bool		pgwt_out_format_parse(const char *text, pgwt_out_format *out);

typedef struct pgwt_buf
{
	char	   *data;				/* NUL-terminated when len > 0 */
	size_t		len;
	size_t		cap;
	bool		oom;				/* an append failed: output is incomplete */
} pgwt_buf;

void		pgwt_buf_printf(pgwt_buf *b, const char *fmt, ...)
			__attribute__((format(printf, 2, 3)));
void		pgwt_buf_free(pgwt_buf *b);

typedef struct pgwt_render_opts
{
	pgwt_out_format format;
	const pgwt_names *names;
	bool		csv_header;			/* CSV: print the header line */
	/* query_event: the text of a query id, or NULL (may be unset) */
	const char *(*query_text) (uint64_t query_id, void *arg);
	void	   *query_text_arg;
	/*
	 * CSV for a spreadsheet (pgwt-server's downloads): a query text that
	 * begins with = + - @ TAB or CR gets a leading ' so the spreadsheet
	 * shows it as text instead of evaluating it as a formula (a statement
	 * can begin with a comment: "--cmd|..." is valid SQL).
	 */
	bool		csv_inert;
} pgwt_render_opts;

void		pgwt_render_time_model(pgwt_buf *b, const pgwt_render_opts *o,
								   const pgwt_time_model *tm, pgwt_view_status st);
/*
 * Several windows of one pass side by side (text only; JSON and CSV give
 * one object / row set per window through pgwt_render_time_model). ev[w]
 * are window w's system_event rows, for the values of events that made the
 * top list in another window only.
 */
void		pgwt_render_time_model_columns(pgwt_buf *b, const pgwt_render_opts *o,
										   const pgwt_time_model *tm,
										   const pgwt_event_rows *ev, int n);
void		pgwt_render_system_event(pgwt_buf *b, const pgwt_render_opts *o,
									 const pgwt_window_summary *sum,
									 const pgwt_event_rows *rows, pgwt_view_status st);
void		pgwt_render_session_event(pgwt_buf *b, const pgwt_render_opts *o,
									  const pgwt_window_summary *sum,
									  const pgwt_session_rows *rows, pgwt_view_status st);
/* One backend's events; pid is shown in the title. */
void		pgwt_render_session_detail(pgwt_buf *b, const pgwt_render_opts *o,
									   const pgwt_window_summary *sum, uint32_t pid,
									   const pgwt_event_rows *rows, pgwt_view_status st);
/*
 * One key's histogram (analysis/hist_probe.h) as JSON or CSV (pgwt-server's
 * /api/histogram): status says whether it has waits (OK), holds only
 * samples (REQUIRES_EXACT) or nothing (NO_DATA); fidelity and sampled_ns
 * are the key's time in the window (sampled time has no buckets).
 */
struct pgwt_hist_probe;
typedef struct pgwt_probe_meta
{
	pgwt_view_status status;
	pgwt_fidelity fidelity;
	uint64_t	sampled_ns;
} pgwt_probe_meta;
void		pgwt_render_hist_probe(pgwt_buf *b, const pgwt_render_opts *o,
								   const pgwt_window_summary *sum,
								   const struct pgwt_hist_probe *p, const pgwt_probe_meta *m);

/* the buckets of common/histogram.h, with p50/p95/p99 from them */
void		pgwt_render_histogram(pgwt_buf *b, const pgwt_render_opts *o,
								  const pgwt_window_summary *sum,
								  const pgwt_histogram *h, pgwt_view_status st);
void		pgwt_render_query_event(pgwt_buf *b, const pgwt_render_opts *o,
									const pgwt_window_summary *sum,
									const pgwt_event_rows *rows, pgwt_view_status st);

/* The exact-only views and cross_validate (render_exact.c). */
void		pgwt_render_transitions(pgwt_buf *b, const pgwt_render_opts *o,
									const pgwt_window_summary *sum,
									const pgwt_transition_rows *rows, pgwt_view_status st);
void		pgwt_render_fingerprints(pgwt_buf *b, const pgwt_render_opts *o,
									 const pgwt_window_summary *sum,
									 const pgwt_fingerprint_rows *rows, pgwt_view_status st);
void		pgwt_render_concurrency(pgwt_buf *b, const pgwt_render_opts *o,
									const pgwt_window_summary *sum,
									const pgwt_concurrency *c, pgwt_view_status st);
void		pgwt_render_interference(pgwt_buf *b, const pgwt_render_opts *o,
									 const pgwt_window_summary *sum,
									 const pgwt_interference_rows *rows, pgwt_view_status st);
void		pgwt_render_lock_chains(pgwt_buf *b, const pgwt_render_opts *o,
									const pgwt_window_summary *sum,
									const pgwt_lock_chains *lc, pgwt_view_status st);
void		pgwt_render_cross_validate(pgwt_buf *b, const pgwt_render_opts *o,
									   const pgwt_window_summary *sum,
									   const pgwt_cross_validation *xv, pgwt_view_status st);

/* Each backend's state at the range's end (analysis/session_now.h),
 * rows as pgwt_now_rows gives them (render_now.c). */
struct pgwt_now;
struct pgwt_now_row;
void		pgwt_render_sessions_now(pgwt_buf *b, const pgwt_render_opts *o,
									 const pgwt_window_summary *sum, const struct pgwt_now *n,
									 const struct pgwt_now_row *rows, size_t nrows);

#endif							/* PGWT_ANALYSIS_RENDER_H */
