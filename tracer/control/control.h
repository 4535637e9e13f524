/*
 * control.h
 *		The daemon's control socket ({trace_dir}/pgwt.sock) and its optional
 *		Prometheus endpoint (--metrics-listen 127.0.0.1:PORT).
 *
 * Protocol: newline-delimited JSON, one request object per line, one
 * response object per line: {"cmd":"status"}, {"cmd":"metrics"},
 * {"cmd":"escalate","duration_s":N}, {"cmd":"deescalate"}. Malformed or
 * oversized requests get {"ok":false,"error":...}; an oversized line also
 * closes that connection. All sockets are non-blocking and serviced from
 * the daemon's own loop (pgwt_control_service), so no client can stall it.
 *
 * Who may talk (checked with SO_PEERCRED at accept, on top of the socket
 * file's mode):
 *   - root and the daemon's own user: every command;
 *   - members of the trace directory's group, when that group is not root's
 *     and may enter the directory (g+x): status and metrics only (the same
 *     people read the trace files); the socket file is then 0660 in that
 *     group, else 0600;
 *   - anyone else gets one error line naming the rule, and is closed.
 * The metrics endpoint is loopback TCP, open to every local user.
 *
 * Bounds: each listener has its own pool of PGWT_CONTROL_MAX_CLIENTS
 * connections, so TCP clients never take a slot of the control socket. A
 * full pool makes room by closing its least recently active connection (on
 * the control socket: never one of root for someone else). A request line
 * or HTTP head is at most PGWT_CONTROL_MAX_LINE bytes; a connection must
 * bring a complete request within the idle bound (counted from its connect
 * or its last answer, not from its last byte) and read each answer within
 * the write bound, else it is closed.
 */
#ifndef PGWT_CONTROL_H
#define PGWT_CONTROL_H

#include <poll.h>
#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/json_min.h"

#define PGWT_CONTROL_MAX_LINE		4096
#define PGWT_CONTROL_MAX_CLIENTS	16	/* per listener */
#define PGWT_CONTROL_IDLE_MS		10000	/* control socket: a request within */
#define PGWT_CONTROL_HTTP_MS		5000	/* metrics: the request head within */
#define PGWT_CONTROL_WRITE_MS		5000	/* an answer read within */

/* One self-metric, for both the JSON "metrics" answer and Prometheus. */
typedef struct pgwt_metric
{
	const char *name;			/* Prometheus-ready: events_total, ... */
	const char *help;
	bool		counter;		/* counter, or gauge */
	double		value;
	/*
	 * The Prometheus name when it differs from the JSON one (base units:
	 * _seconds, not _s); "" keeps the metric out of Prometheus (a rate since
	 * start, which rate() over the counter replaces); NULL: name.
	 */
	const char *prom_name;
} pgwt_metric;

/*
 * One wait event's totals since start, for the labelled Prometheus series
 * pgwt_wait_seconds_total, pgwt_wait_samples_total and pgwt_waits_total.
 * The labels are names that may come from the database: the renderer
 * escapes them; they are cut to these sizes.
 */
#define PGWT_SERIES_LABEL_MAX		128
#define PGWT_CONTROL_MAX_SERIES		257	/* analysis/wait_totals.h: 256 + Other */
typedef struct pgwt_wait_series
{
	char		wait_event_type[PGWT_SERIES_LABEL_MAX];
	char		wait_event[PGWT_SERIES_LABEL_MAX];
	double		seconds;
	uint64_t	samples;
	uint64_t	waits;
} pgwt_wait_series;

typedef struct pgwt_control_ops
{
	/* Add the status fields to a response being built. */
	void		(*status) (void *arg, pgwt_json_out *out);
	/* Fill up to max metrics; return how many. */
	size_t		(*metrics) (void *arg, pgwt_metric *out, size_t max);
	/* Fill up to max wait event rows; return how many (NULL: none). */
	size_t		(*series) (void *arg, pgwt_wait_series *out, size_t max);
	/* Open or extend a window; add the result fields (ok, granted_s, ...). */
	void		(*escalate) (void *arg, long long duration_s, pgwt_json_out *out);
	void		(*deescalate) (void *arg, pgwt_json_out *out);
	void	   *arg;
} pgwt_control_ops;

typedef struct pgwt_control pgwt_control;

/*
 * Creates the socket at path and, when metrics_listen is non-NULL, the HTTP
 * listener ("127.0.0.1:PORT" or "[::1]:PORT": loopback only). The socket is
 * made in the directory opened once (never through a symlink at path); a
 * stale socket there is replaced, a live one (another daemon) or any other
 * kind of file is refused and left alone.
 */
int			pgwt_control_open(pgwt_control **out, const char *path,
							  const char *metrics_listen,
							  const pgwt_control_ops *ops,
							  char *err, size_t errlen);

/*
 * The same in a directory the caller has opened and checked (the trace
 * directory's descriptor, tracefmt's safe_dir): the socket is name in it;
 * path is only for messages. dirfd stays the caller's.
 */
int			pgwt_control_open_at(pgwt_control **out, int dirfd, const char *name,
								 const char *path, const char *metrics_listen,
								 const pgwt_control_ops *ops, char *err, size_t errlen);

/* Services every ready socket; waits at most timeout_ms for one. */
int			pgwt_control_service(pgwt_control *c, int timeout_ms);

/*
 * The same in two steps, for a loop that polls other sockets too: the
 * sockets to poll (at most PGWT_CONTROL_MAX_POLLFDS), then the handling of
 * those poll() marked ready. Call handle after every poll, ready or not: it
 * also closes the connections past their bounds.
 */
#define PGWT_CONTROL_MAX_POLLFDS	(2 * PGWT_CONTROL_MAX_CLIENTS + 2)
int			pgwt_control_pollfds(const pgwt_control *c, struct pollfd *pfd, int max);
void		pgwt_control_handle(pgwt_control *c, const struct pollfd *pfd, int n);

/* Removes the socket file only while it is still the one we made. */
void		pgwt_control_close(pgwt_control *c);

/* Bounds, for tests and tuning; zero fields keep their value. */
typedef struct pgwt_control_limits
{
	int			unix_clients;	/* 1..PGWT_CONTROL_MAX_CLIENTS */
	int			http_clients;	/* 1..PGWT_CONTROL_MAX_CLIENTS */
	int			idle_ms;
	int			http_ms;
	int			write_ms;
} pgwt_control_limits;
void		pgwt_control_set_limits(pgwt_control *c, const pgwt_control_limits *l);

/* What the pools did since open, for metrics and tests. */
typedef struct pgwt_control_counters
{
	uint64_t	accepted;
	uint64_t	refused_peer;	/* not allowed on the control socket */
	uint64_t	refused_full;	/* no connection could be closed for it */
	uint64_t	evicted;		/* closed to make room */
	uint64_t	idle_timeouts;	/* no complete request in time */
	uint64_t	write_timeouts; /* answer not read in time */
	uint64_t	oversized;		/* request longer than the bound */
} pgwt_control_counters;
void		pgwt_control_get_counters(const pgwt_control *c, pgwt_control_counters *out);

/* Who is talking on the control socket. */
typedef enum pgwt_peer_class
{
	PGWT_PEER_REFUSED = 0,
	PGWT_PEER_READER,			/* status, metrics */
	PGWT_PEER_ADMIN				/* every command */
} pgwt_peer_class;

/*
 * Pure: the class of a peer with uid and groups (its primary and
 * supplementary gids), for a daemon running as self_uid whose readers'
 * group is reader_gid ((gid_t) -1: none).
 */
pgwt_peer_class pgwt_control_peer_class(uid_t uid, const gid_t *gids, int ngids,
										uid_t self_uid, gid_t reader_gid);

/* Pure: answers one request line (without its '\n') into buf, as root. */
long		pgwt_control_answer(const pgwt_control_ops *ops, const char *line,
								size_t len, char *buf, size_t cap);

/* Pure: the same for a peer of the given class (a reader may not escalate). */
long		pgwt_control_answer_as(const pgwt_control_ops *ops, pgwt_peer_class cls,
								   const char *line, size_t len, char *buf, size_t cap);

/*
 * Pure: the Prometheus text exposition (format 0.0.4) of the metrics and
 * the wait event series, or -1 when it does not fit in cap.
 */
#define PGWT_CONTROL_PROM_CAP		(256 * 1024)	/* enough for MAX_SERIES */
long		pgwt_control_prometheus(const pgwt_control_ops *ops, char *buf, size_t cap);

/*
 * Pure: v as a label value into buf: backslash, double quote and newline
 * escaped, other control bytes and bytes past ASCII as '?' (a name from
 * the database need not be UTF-8); cut, never inside an escape, when too
 * long. Returns the length written.
 */
size_t		pgwt_control_prom_escape(const char *v, char *buf, size_t cap);

#endif							/* PGWT_CONTROL_H */
