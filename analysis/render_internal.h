/*
 * render_internal.h
 *		Helpers render.c shares with render_exact.c and render_hist.c. Not for use outside
 *		analysis/.
 */
#ifndef PGWT_ANALYSIS_RENDER_INTERNAL_H
#define PGWT_ANALYSIS_RENDER_INTERNAL_H

#include "analysis/render.h"

/* "ok", "requires_exact", ...: the status field of JSON and CSV. */
const char *pgwt_rd_status_token(pgwt_view_status st);
/* A JSON string literal, escaped. */
void		pgwt_rd_json_str(pgwt_buf *b, const char *s);
/* ,"buckets":[...] of the log2 layout; time_ns may be NULL */
void		pgwt_rd_json_buckets(pgwt_buf *b, const uint64_t *waits, const uint64_t *time_ns);
/* A CSV field, quoted when needed. */
void		pgwt_rd_csv_str(pgwt_buf *b, const char *s);
/* A CSV field that may hold a query text: quoted when needed, and with a
 * leading ' where inert (pgwt_render_opts.csv_inert) and it begins like a
 * spreadsheet formula. */
void		pgwt_rd_csv_field(pgwt_buf *b, const char *s, bool inert);
/* The opening of a view's JSON object: view, window, status, totals. */
void		pgwt_rd_json_summary(pgwt_buf *b, const char *view,
								 const pgwt_window_summary *s, pgwt_view_status st);
/* "== Title [window]  fidelity: ..." */
void		pgwt_rd_text_title(pgwt_buf *b, const char *title, const pgwt_window_summary *s);
/* Prints the status line and returns true unless st is OK. */
bool		pgwt_rd_text_status(pgwt_buf *b, pgwt_view_status st);

#endif							/* PGWT_ANALYSIS_RENDER_INTERNAL_H */
