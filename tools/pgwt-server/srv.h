/*
 * srv.h
 *		pgwt-server's shared types: its configuration (srv_args.c) and the
 *		reply a handler fills for the HTTP layer (srv_http.c) to send (the
 *		error reply is srv_reply.c's).
 */
#ifndef PGWT_SRV_H
#define PGWT_SRV_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "analysis/render.h"

#define SRV_TOKEN_MIN	16		/* shortest token accepted */
/* records one request reads at most (--max-records) */
#define SRV_MAX_RECORDS_DEFAULT	400000000ull
#define SRV_TOKEN_MAX	256

typedef struct srv_config
{
	const char *trace_dir;
	char		web_root[4096];
	struct sockaddr_storage addr;
	socklen_t	addrlen;
	char		listen_text[128];
	bool		loopback;
	bool		allow_remote;
	char		token[SRV_TOKEN_MAX + 1];	/* "" = none */
	bool		quiet;
	const char *control;		/* the daemon's control socket, or NULL */
	uint64_t	max_records;	/* per request (srv_load.c) */
} srv_config;

typedef struct srv_reply
{
	unsigned	status;			/* HTTP status */
	const char *ctype;			/* Content-Type */
	pgwt_buf	body;
	char		filename[64];	/* set: Content-Disposition attachment */
} srv_reply;

/* A 4xx/5xx reply whose body is {"error": msg}; msg is one of our own
 * fixed messages, never an echo of the request. */
void		srv_reply_error(srv_reply *r, unsigned status, const char *msg);

/*
 * The reply to a failed read of the trace (srv_load.h): 413 with
 * SRV_TOO_LARGE_MSG where the range held more than --max-records records,
 * else 500. err is the loader's message, never sent.
 */
#define SRV_TOO_LARGE_MSG "the range holds more records than one request reads (pgwt-server --max-records): narrow it"
void		srv_reply_load_error(srv_reply *r, const char *err);

/* The value of a query parameter of the request, or NULL. */
typedef const char *(*srv_arg_fn) (void *conn, const char *key);

#endif							/* PGWT_SRV_H */
