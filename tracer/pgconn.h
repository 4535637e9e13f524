/*
 * pgconn.h
 *		The tracer's libpq side: one superuser connection to the attached
 *		cluster for backend metadata, query texts, and finding (and
 *		verifying) where st_query_id lives in PgBackendStatus.
 */
#ifndef PGWT_TRACER_PGCONN_H
#define PGWT_TRACER_PGCONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer/attach.h"
#include "tracer/target.h"

typedef struct pgwt_pgconn pgwt_pgconn;

typedef struct pgwt_pg_backend
{
	uint32_t	pid;
	uint32_t	leader_pid;
	uint64_t	query_id;
	double		backend_start;	/* epoch seconds */
	bool		no_database;	/* datid is null: never connected to one */
	char		type[64];
	char		user[64];
	char		database[64];
	char		client_addr[64];
	char		application[64];
	const char *query;			/* valid until the next pgwt_pg_backends call */
} pgwt_pg_backend;

/* Connect (host/user/dbname may be NULL: defaults from the cluster). */
extern pgwt_pgconn *pgwt_pg_connect(const pgwt_cluster *c, const char *host,
									const char *user, const char *dbname,
									char *errbuf, size_t errlen);
extern void pgwt_pg_close(pgwt_pgconn *pc);
extern int	pgwt_pg_backend_pid(const pgwt_pgconn *pc);
extern int	pgwt_pg_server_version(const pgwt_pgconn *pc);	/* e.g. 150020 */

/*
 * Find st_query_id's offset: run distinct statements on our own
 * connection, read each one's query_id from pg_stat_activity, and keep the
 * one offset in our PgBackendStatus that held every value. Sets
 * a->qid_offset (or leaves -1 with a reason in errbuf, returning -1).
 * Then st_xact_start_timestamp's the same way, from two transactions'
 * xact_start, for the query-id carry (common/query_carry.h): a->xact_offset,
 * left -1 (the carry off, with a note on stderr) when not found.
 */
extern int	pgwt_pg_calibrate_query_id(pgwt_pgconn *pc, pgwt_attach *a,
									   char *errbuf, size_t errlen);

/*
 * Every row of pg_stat_activity; returns the count (<= max) or -1 when
 * the connection failed (the caller reconnects later).
 */
extern int	pgwt_pg_backends(pgwt_pgconn *pc, pgwt_pg_backend *out, int max);

/*
 * pg_blocking_pids() of each waiter, in one statement; fn is called once
 * per waiter with its blockers (up to max_blockers, the rest counted in
 * nall). Returns the number of waiters answered, or -1.
 */
typedef void (*pgwt_blockers_fn) (void *arg, uint32_t waiter, const uint32_t *blockers,
								  int n, int nall);
extern int	pgwt_pg_blocking_pids(pgwt_pgconn *pc, const uint32_t *waiters, int nwaiters,
								  int max_blockers, pgwt_blockers_fn fn, void *arg);

#endif
