/*
 * control.h
 *		The daemon's control socket ({trace_dir}/pgwt.sock, mode 0600) and
 *		its optional Prometheus endpoint (--metrics-listen 127.0.0.1:PORT).
 *
 * Protocol: newline-delimited JSON, one request object per line, one
 * response object per line: {"cmd":"status"}, {"cmd":"metrics"},
 * {"cmd":"escalate","duration_s":N}, {"cmd":"deescalate"}. Malformed or
 * oversized requests get {"ok":false,"error":...}; an oversized line also
 * closes that connection. All sockets are non-blocking and serviced from
 * the daemon's own loop (pgwt_control_service), so no client can stall it.
 */
#ifndef PGWT_CONTROL_H
#define PGWT_CONTROL_H

#include <poll.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json_min.h"

#define PGWT_CONTROL_MAX_LINE		4096
#define PGWT_CONTROL_MAX_CLIENTS	16

/* One self-metric, for both the JSON "metrics" answer and Prometheus. */
typedef struct pgwt_metric
{
	const char *name;			/* Prometheus-ready: events_total, ... */
	const char *help;
	bool		counter;		/* counter, or gauge */
	double		value;
} pgwt_metric;

typedef struct pgwt_control_ops
{
	/* Add the status fields to a response being built. */
	void		(*status) (void *arg, pgwt_json_out *out);
	/* Fill up to max metrics; return how many. */
	size_t		(*metrics) (void *arg, pgwt_metric *out, size_t max);
	/* Open or extend a window; add the result fields (ok, granted_s, ...). */
	void		(*escalate) (void *arg, long long duration_s, pgwt_json_out *out);
	void		(*deescalate) (void *arg, pgwt_json_out *out);
	void	   *arg;
} pgwt_control_ops;

typedef struct pgwt_control pgwt_control;

/*
 * Creates the socket at path (replacing a stale socket file, refusing any
 * other kind of file) and, when metrics_listen is non-NULL, the HTTP
 * listener ("127.0.0.1:PORT" or "[::1]:PORT": loopback only).
 */
int			pgwt_control_open(pgwt_control **out, const char *path,
							  const char *metrics_listen,
							  const pgwt_control_ops *ops,
							  char *err, size_t errlen);

/* Services every ready socket; waits at most timeout_ms for one. */
int			pgwt_control_service(pgwt_control *c, int timeout_ms);

/*
 * The same in two steps, for a loop that polls other sockets too: the
 * sockets to poll for input (at most PGWT_CONTROL_MAX_POLLFDS), then the
 * handling of those poll() marked ready.
 */
#define PGWT_CONTROL_MAX_POLLFDS	(PGWT_CONTROL_MAX_CLIENTS + 2)
int			pgwt_control_pollfds(const pgwt_control *c, struct pollfd *pfd, int max);
void		pgwt_control_handle(pgwt_control *c, const struct pollfd *pfd, int n);

void		pgwt_control_close(pgwt_control *c);

/* Pure: answers one request line (without its '\n') into buf. */
long		pgwt_control_answer(const pgwt_control_ops *ops, const char *line,
								size_t len, char *buf, size_t cap);

/* Pure: the Prometheus text exposition of the metrics. */
long		pgwt_control_prometheus(const pgwt_control_ops *ops, char *buf, size_t cap);

#endif							/* PGWT_CONTROL_H */
