/*
 * srv_api.h
 *		pgwt-server's JSON API over the trace directory (docs/WEB.md):
 *		/api/range, /api/view, /api/aas, /api/compare, /api/histogram,
 *		/api/exact. Every parameter is checked; a bad
 *		one is a 400 with a JSON error. Figures come from analysis/.
 */
#ifndef PGWT_SRV_API_H
#define PGWT_SRV_API_H

#include "srv.h"

#define SRV_MAX_POINTS	2000	/* AAS buckets per request */
#define SRV_MAX_LIMIT	5000	/* table rows per request */

void		srv_api_range(const srv_config *cfg, srv_reply *r);
void		srv_api_view(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r);
void		srv_api_aas(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r);
void		srv_api_compare(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r);
void		srv_api_histogram(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r);
/* /api/exact: transitions, concurrency, lock chains, sessions now (srv_exact.c). */
void		srv_api_exact(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r);
/* The renderer's JSON lines as one object: {"views":[line, line]}. */
void		srv_json_lines(pgwt_buf *out, const pgwt_buf *lines);

/* Parameter parsers shared by the handlers (srv_params.c); pure. */
bool		srv_param_u64(const char *s, uint64_t *out);
/* format: absent is JSON; json or csv (text is pgwt-dump's, not the API's). */
bool		srv_param_format(const char *s, pgwt_out_format *out);
/* limit: absent is 500 rows; else 1..SRV_MAX_LIMIT. */
bool		srv_param_limit(const char *s, size_t *out);
/* A query id, signed as PostgreSQL prints it, or its unsigned form. */
bool		srv_param_query_id(const char *s, uint64_t *out);
/* from/to: both optional; false (and r set to 400) when bad or from >= to. */
bool		srv_param_range(srv_arg_fn arg, void *conn, uint64_t *from, uint64_t *to,
							srv_reply *r);

/* The same for other names (a_from/a_to, b_from/b_to). */
bool		srv_param_range_named(srv_arg_fn arg, void *conn, const char *fname, const char *tname,
								  uint64_t *from, uint64_t *to, srv_reply *r);

#endif							/* PGWT_SRV_API_H */
