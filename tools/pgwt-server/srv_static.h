/*
 * srv_static.h
 *		The page's files: a fixed list, nothing else (no path from the
 *		request ever reaches the file system).
 */
#ifndef PGWT_SRV_STATIC_H
#define PGWT_SRV_STATIC_H

#include "srv.h"

/* True when url is one of the page's files; r gets it (or a 404/500). */
bool		srv_static_serve(const srv_config *cfg, const char *url, srv_reply *r);

#endif							/* PGWT_SRV_STATIC_H */
