/*
 * esc_listen.h
 *		The daemon's SQL escalation channel: libpq connections that LISTEN
 *		on pg_wait_tracer_escalation in every database of the cluster where
 *		the extension is installed, hand each pgwt_escalate() /
 *		pgwt_deescalate() request to the tier controller, and report the
 *		daemon's state back with pgwt_tracer_report().
 *
 * A request is handed over only once its sender (PGnotify.be_pid) is
 * authorized by the rule of calling the SQL function (esc_listen.c); the
 * others are refused, counted and logged.
 *
 * Everything is non-blocking (PQconnectStart, PQsendQuery,
 * PQconsumeInput) and driven from the daemon loop: a slow or dead server
 * never stalls sampling; a lost connection is retried with backoff.
 */
#ifndef PGWT_TRACER_ESC_LISTEN_H
#define PGWT_TRACER_ESC_LISTEN_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/json_min.h"
#include "tracer/esc_notify.h"
#include "tracer/target.h"

/* Databases listened to at once; more are counted and said in status. */
#define PGWT_ESC_LISTEN_MAX_DBS		16

typedef struct pgwt_esc_listen pgwt_esc_listen;

typedef struct pgwt_esc_listen_ops
{
	/* An authorized request arrived from database db (n->be_pid, n->role). */
	void		(*notice) (void *arg, const pgwt_esc_notice *n, const char *db);
	/* Fill the state to report (reason and strings owned by the caller). */
	void		(*state) (void *arg, pgwt_esc_report *r);
	void	   *arg;
} pgwt_esc_listen_ops;

/* host/user/home_db may be NULL (the cluster's socket, postgres, postgres). */
pgwt_esc_listen *pgwt_esc_listen_create(const char *host, const char *user,
										const char *home_db,
										const pgwt_esc_listen_ops *ops);

/* The cluster to talk to (its socket and port); NULL: detached. */
void		pgwt_esc_listen_set_cluster(pgwt_esc_listen *l, const pgwt_cluster *c);

/* Connect, discover, read notifications, send reports due. Never blocks. */
void		pgwt_esc_listen_step(pgwt_esc_listen *l, uint64_t now_ns);

/* The sockets to wait on (up to max); returns how many were filled. */
int			pgwt_esc_listen_pollfds(const pgwt_esc_listen *l, struct pollfd *out, int max);

/* A window changed: report at the next step. */
void		pgwt_esc_listen_report_soon(pgwt_esc_listen *l);

/* Status fields: databases listened to, capped, connection errors. */
void		pgwt_esc_listen_status(const pgwt_esc_listen *l, pgwt_json_out *out);

/* Counters for the self-metrics. */
typedef struct pgwt_esc_listen_counts
{
	int			dbs;			/* databases LISTENed to now */
	int			capped;			/* databases waiting for a slot */
	uint64_t	notices_total;	/* well-formed requests received */
	uint64_t	authorized_total;	/* of which acted on: the sender may */
	uint64_t	refused_total;	/* of which refused: see esc_listen.c */
	uint64_t	malformed_total;	/* notifications that did not parse */
	uint64_t	reports_total;	/* pgwt_tracer_report() calls that succeeded */
	uint64_t	errors_total;	/* connections or statements that failed */
} pgwt_esc_listen_counts;

void		pgwt_esc_listen_get_counts(const pgwt_esc_listen *l, pgwt_esc_listen_counts *c);

/*
 * The backends of the listener's connections, probes included (one set per
 * process, empty without a listener): capture leaves them out. Valid for
 * the life of the process.
 */
const pgwt_own_backends *pgwt_esc_listen_own_backends(void);

/* Reports NULL (detached) where it can within a second, then closes. */
void		pgwt_esc_listen_free(pgwt_esc_listen *l);

#endif
