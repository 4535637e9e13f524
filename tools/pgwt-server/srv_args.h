/*
 * srv_args.h
 *		pgwt-server's command line: the listen address and its safety rules
 *		(loopback unless --allow-remote with a token), the web root.
 */
#ifndef PGWT_SRV_ARGS_H
#define PGWT_SRV_ARGS_H

#include "srv.h"

/* 0 = parsed; otherwise the exit status (2 bad usage, 1 unreadable). */
int			srv_parse_args(int argc, char **argv, srv_config *cfg);
/* Parse "A.B.C.D:PORT" or "[v6]:PORT"; pure, for the unit test too. */
bool		srv_parse_listen(const char *text, struct sockaddr_storage *ss,
							 socklen_t *len, bool *loopback);

#endif							/* PGWT_SRV_ARGS_H */
