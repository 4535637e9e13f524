/*
 * srv_http.h
 *		pgwt-server's HTTP side (libmicrohttpd): routing, the token and Host
 *		checks, security headers.
 */
#ifndef PGWT_SRV_HTTP_H
#define PGWT_SRV_HTTP_H

#include "srv.h"

/* Serve until SIGINT/SIGTERM. 0, or 1 when the socket could not be opened. */
int			srv_http_run(const srv_config *cfg);

#endif							/* PGWT_SRV_HTTP_H */
