/*
 * pgconn.c
 *		libpq access to the attached cluster.
 *
 * The connection defaults to user postgres over the cluster's Unix socket
 * (the directory postmaster.pid names), since the tracer runs as root and
 * libpq would otherwise try a role named root.
 *
 * The connection is a superuser's, in a database whose owner may be
 * hostile (CVE-2018-1058): search_path is empty from the startup packet on
 * (and set so again at connect), and every statement names its relations,
 * functions, types and operators with their schema, as pg_dump does, so no
 * object a database owner or role creates is ever resolved in our place.
 * Server messages are escaped before they reach the log.
 *
 * query_id offset: the tracer never trusts a hard-coded layout. It makes
 * its own backend run statements whose query ids it learns from
 * pg_stat_activity, reads its own PgBackendStatus after each, and keeps the
 * offsets that held the expected id every time. Exactly one must survive.
 */
#include "tracer/pgconn.h"
#include "tracer/esc_notify.h"
#include "tracer/memscan.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No role's or database's search_path (or timeout) reaches our session. */
#define PG_OPTIONS	"-c search_path= -c statement_timeout=0 -c idle_session_timeout=0"
/* idle_session_timeout arrived in 14: 13 refuses a connection naming it */
#define PG_OPTIONS_13	"-c search_path= -c statement_timeout=0"

static void
pg_quiet(void *arg, const char *message)
{
	(void) arg;
	(void) message;
}

/* A server's message for our log: its first line, escaped and bounded. */
static void
pg_error_text(const char *what, const char *msg, char *errbuf, size_t errlen)
{
	char		line[256],
				esc[4 * sizeof(line) + 4];

	snprintf(line, sizeof(line), "%.*s", (int) strcspn(msg ? msg : "", "\n"), msg ? msg : "");
	snprintf(errbuf, errlen, "%s: %s", what,
			 pgwt_esc_log_escape(line, sizeof(line), esc, sizeof(esc)));
}

struct pgwt_pgconn
{
	PGconn	   *conn;
	PGresult   *last;			/* keeps query texts alive for callers */
};

pgwt_pgconn *
pgwt_pg_connect(const pgwt_cluster *c, const char *host, const char *user,
				const char *dbname, char *errbuf, size_t errlen)
{
	const char *keys[9];
	const char *vals[9];
	char		port[16];
	int			n = 0;
	pgwt_pgconn *pc;

	snprintf(port, sizeof(port), "%d", c->port);
	keys[n] = "host";
	vals[n++] = host ? host : (c->sockdir[0] ? c->sockdir : "/var/run/postgresql");
	keys[n] = "port";
	vals[n++] = port;
	keys[n] = "user";
	vals[n++] = user ? user : "postgres";
	keys[n] = "dbname";
	vals[n++] = dbname ? dbname : "postgres";
	keys[n] = "application_name";
	vals[n++] = "pg_wait_tracer";
	keys[n] = "connect_timeout";
	vals[n++] = "5";
	keys[n] = "options";
	vals[n++] = c->pg_major >= 14 ? PG_OPTIONS : PG_OPTIONS_13;
	keys[n] = NULL;
	vals[n] = NULL;

	pc = calloc(1, sizeof(*pc));
	if (!pc)
	{
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	pc->conn = PQconnectdbParams(keys, vals, 0);
	if (PQstatus(pc->conn) != CONNECTION_OK)
	{
		pg_error_text("cannot connect to the cluster", PQerrorMessage(pc->conn), errbuf, errlen);
		pgwt_pg_close(pc);
		return NULL;
	}
	PQsetNoticeProcessor(pc->conn, pg_quiet, NULL);
	/* again, should the startup options not have reached the server */
	{
		PGresult   *res = PQexec(pc->conn, "SELECT pg_catalog.set_config('search_path', '', false)");
		bool		ok = PQresultStatus(res) == PGRES_TUPLES_OK;

		PQclear(res);
		if (!ok)
		{
			pg_error_text("cannot empty search_path", PQerrorMessage(pc->conn), errbuf, errlen);
			pgwt_pg_close(pc);
			return NULL;
		}
	}
	return pc;
}

void
pgwt_pg_close(pgwt_pgconn *pc)
{
	if (!pc)
		return;
	if (pc->last)
		PQclear(pc->last);
	PQfinish(pc->conn);
	free(pc);
}

int
pgwt_pg_backend_pid(const pgwt_pgconn *pc)
{
	return PQbackendPID(pc->conn);
}

int
pgwt_pg_server_version(const pgwt_pgconn *pc)
{
	return PQserverVersion(pc->conn);
}

/* Run sql (one row, one column holding a bigint); -1 on failure. */
static int
pg_one_int8(PGconn *conn, const char *sql, int64_t *out)
{
	PGresult   *res = PQexec(conn, sql);
	int			rc = -1;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
		!PQgetisnull(res, 0, 0))
	{
		*out = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		rc = 0;
	}
	PQclear(res);
	return rc;
}

#define CALIB_SCAN_BYTES 1024

/*
 * st_xact_start_timestamp: in two transactions of our own connection, the
 * one offset of our PgBackendStatus holding xact_start (PostgreSQL
 * microseconds since 2000) both times. Our backend is idle in the
 * transaction when read, so the field is set; the statement and state
 * start times differ from it.
 */
static void
pg_calibrate_xact_start(pgwt_pgconn *pc, pgwt_attach *a)
{
	static const char *const get =
		"SELECT (EXTRACT(epoch FROM xact_start) * 1000000)::int8 - 946684800000000"
		" FROM pg_catalog.pg_stat_activity WHERE pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()";
	int			cand[CALIB_SCAN_BYTES / 8];
	int			ncand = -1;
	int			pid = PQbackendPID(pc->conn);

	a->xact_offset = -1;
	for (int round = 0; round < 2; round++)
	{
		int64_t		xs = 0;
		uint64_t	be_ptr;
		uint8_t		buf[CALIB_SCAN_BYTES];
		int			found[CALIB_SCAN_BYTES / 8];
		int			nfound = 0;
		int			ok;

		PQclear(PQexec(pc->conn, "BEGIN"));
		/* a statement after BEGIN: its start differs from the transaction's */
		PQclear(PQexec(pc->conn, "SELECT pg_catalog.pg_sleep(0.002)"));
		ok = pg_one_int8(pc->conn, get, &xs) == 0 && xs != 0 &&
			pgwt_remote_read(pid, a->be_var, &be_ptr, 8) == 0 && be_ptr != 0 &&
			pgwt_remote_read(pid, be_ptr, buf, sizeof(buf)) == 0;
		if (ok)
			nfound = pgwt_find_u64(buf, sizeof(buf), (uint64_t) xs, found, CALIB_SCAN_BYTES / 8);
		PQclear(PQexec(pc->conn, "COMMIT"));
		if (!ok)
			break;
		if (ncand < 0)
		{
			memcpy(cand, found, sizeof(int) * (size_t) nfound);
			ncand = nfound;
		}
		else
			ncand = pgwt_offsets_intersect(cand, ncand, found, nfound);
	}
	if (ncand == 1)
		a->xact_offset = cand[0];
	else
		fprintf(stderr, "pg_wait_tracer: note: cannot locate st_xact_start_timestamp (%d candidates): "
				"waits without a query id are not carried to their transaction's last statement\n", ncand);
}

int
pgwt_pg_calibrate_query_id(pgwt_pgconn *pc, pgwt_attach *a, char *errbuf, size_t errlen)
{
	/* distinct target lists: distinct query ids */
#define PG_CALIB_FROM " FROM pg_catalog.pg_stat_activity" \
	" WHERE pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()"
	static const char *const stmts[] = {
		"SELECT query_id" PG_CALIB_FROM,
		"SELECT query_id, 1" PG_CALIB_FROM,
		"SELECT query_id, 1, 2" PG_CALIB_FROM,
	};
	int			cand[CALIB_SCAN_BYTES / 8];
	int			ncand = -1;
	int			pid = PQbackendPID(pc->conn);
	uint64_t	be_ptr;
	PGresult   *res;

	a->qid_offset = -1;
	if (PQserverVersion(pc->conn) < 140000)
	{
		snprintf(errbuf, errlen, "PostgreSQL %d has no query ids (pg_stat_activity.query_id arrived in 14)",
				 PQserverVersion(pc->conn) / 10000);
		return -1;
	}
	{
		PGresult   *r = PQexec(pc->conn, "SELECT pg_catalog.current_setting('compute_query_id')");

		if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
			strcmp(PQgetvalue(r, 0, 0), "off") == 0)
			fprintf(stderr, "pg_wait_tracer: note: compute_query_id is off: samples will carry no query id\n");
		PQclear(r);
	}
	if (!a->be_var)
	{
		snprintf(errbuf, errlen, "MyBEEntry not exported: query ids unavailable");
		return -1;
	}
	/* Our session computes ids even when the cluster does not. */
	res = PQexec(pc->conn, "SET compute_query_id = on");
	PQclear(res);

	for (size_t i = 0; i < sizeof(stmts) / sizeof(stmts[0]); i++)
	{
		int64_t		qid;
		uint8_t		buf[CALIB_SCAN_BYTES];
		int			found[CALIB_SCAN_BYTES / 8];
		int			nfound;

		if (pg_one_int8(pc->conn, stmts[i], &qid) != 0 || qid == 0)
		{
			snprintf(errbuf, errlen, "query ids unavailable: pg_stat_activity.query_id is null (compute_query_id)");
			return -1;
		}
		/* Our backend is idle now and still shows that statement's id. */
		if (pgwt_remote_read(pid, a->be_var, &be_ptr, 8) != 0 || be_ptr == 0 ||
			pgwt_remote_read(pid, be_ptr, buf, sizeof(buf)) != 0)
		{
			snprintf(errbuf, errlen, "cannot read backend %d status: %s", pid, strerror(errno));
			return -1;
		}
		nfound = pgwt_find_u64(buf, sizeof(buf), (uint64_t) qid, found, CALIB_SCAN_BYTES / 8);
		if (ncand < 0)
		{
			memcpy(cand, found, sizeof(int) * (size_t) nfound);
			ncand = nfound;
			continue;
		}
		ncand = pgwt_offsets_intersect(cand, ncand, found, nfound);
	}
	if (ncand != 1)
	{
		snprintf(errbuf, errlen, "cannot locate st_query_id in PgBackendStatus (%d candidates): query ids unavailable", ncand);
		return -1;
	}
	a->qid_offset = cand[0];
	pg_calibrate_xact_start(pc, a);
	return 0;
}

static void
pg_copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

int
pgwt_pg_backends(pgwt_pgconn *pc, pgwt_pg_backend *out, int max)
{
	PGresult   *res;
	int			n;

	if (pc->last)
	{
		PQclear(pc->last);
		pc->last = NULL;
	}
	if (PQstatus(pc->conn) != CONNECTION_OK)
		PQreset(pc->conn);
	/* pg_stat_activity.query_id arrived in 14: 13's rows carry 0 */
	res = PQexec(pc->conn, PQserverVersion(pc->conn) >= 140000 ?
				 "SELECT pid, coalesce(leader_pid, 0), coalesce(backend_type, ''),"
				 " coalesce(usename::pg_catalog.text, ''), coalesce(datname::pg_catalog.text, ''),"
				 " coalesce(pg_catalog.host(client_addr), ''), coalesce(application_name, ''),"
				 " coalesce(query_id, 0), coalesce(query, ''),"
				 " coalesce(EXTRACT(epoch FROM backend_start)::pg_catalog.float8, 0),"
				 " datid IS NULL"
				 " FROM pg_catalog.pg_stat_activity" :
				 "SELECT pid, coalesce(leader_pid, 0), coalesce(backend_type, ''),"
				 " coalesce(usename::pg_catalog.text, ''), coalesce(datname::pg_catalog.text, ''),"
				 " coalesce(pg_catalog.host(client_addr), ''), coalesce(application_name, ''),"
				 " 0, coalesce(query, ''),"
				 " coalesce(EXTRACT(epoch FROM backend_start)::pg_catalog.float8, 0),"
				 " datid IS NULL"
				 " FROM pg_catalog.pg_stat_activity");
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		PQclear(res);
		return -1;
	}
	n = PQntuples(res);
	if (n > max)
		n = max;
	for (int i = 0; i < n; i++)
	{
		pgwt_pg_backend *b = &out[i];

		memset(b, 0, sizeof(*b));
		b->pid = (uint32_t) strtoul(PQgetvalue(res, i, 0), NULL, 10);
		b->leader_pid = (uint32_t) strtoul(PQgetvalue(res, i, 1), NULL, 10);
		pg_copy(b->type, sizeof(b->type), PQgetvalue(res, i, 2));
		pg_copy(b->user, sizeof(b->user), PQgetvalue(res, i, 3));
		pg_copy(b->database, sizeof(b->database), PQgetvalue(res, i, 4));
		pg_copy(b->client_addr, sizeof(b->client_addr), PQgetvalue(res, i, 5));
		pg_copy(b->application, sizeof(b->application), PQgetvalue(res, i, 6));
		b->query_id = (uint64_t) strtoll(PQgetvalue(res, i, 7), NULL, 10);
		b->query = PQgetvalue(res, i, 8);
		b->backend_start = strtod(PQgetvalue(res, i, 9), NULL);
		b->no_database = PQgetvalue(res, i, 10)[0] == 't';
	}
	pc->last = res;
	return n;
}

int
pgwt_pg_blocking_pids(pgwt_pgconn *pc, const uint32_t *waiters, int nwaiters,
					  int max_blockers, pgwt_blockers_fn fn, void *arg)
{
	char	   *sql;
	size_t		cap = 128 + (size_t) nwaiters * 12,
				len;
	PGresult   *res;
	int			n;

	if (nwaiters <= 0)
		return 0;
	if (PQstatus(pc->conn) != CONNECTION_OK)
		return -1;
	sql = malloc(cap);
	if (!sql)
		return -1;
	/* integers only: no quoting needed */
	len = (size_t) snprintf(sql, cap, "SELECT w, pg_catalog.pg_blocking_pids(w)"
							" FROM pg_catalog.unnest('{");
	for (int i = 0; i < nwaiters; i++)
		len += (size_t) snprintf(sql + len, cap - len, "%s%u", i ? "," : "", waiters[i]);
	snprintf(sql + len, cap - len, "}'::pg_catalog.int4[]) AS w");
	res = PQexec(pc->conn, sql);
	free(sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		PQclear(res);
		return -1;
	}
	n = PQntuples(res);
	for (int i = 0; i < n; i++)
	{
		uint32_t	blockers[64];
		int			nb = 0,
					nall = 0;
		const char *p = PQgetvalue(res, i, 1);

		/* a text int[]: {}, {123} or {123,456} */
		while (*p)
		{
			if (*p >= '0' && *p <= '9')
			{
				uint32_t	v = (uint32_t) strtoul(p, (char **) &p, 10);

				if (nb < max_blockers && nb < 64)
					blockers[nb++] = v;
				nall++;
			}
			else
				p++;
		}
		fn(arg, (uint32_t) strtoul(PQgetvalue(res, i, 0), NULL, 10), blockers, nb, nall);
	}
	PQclear(res);
	return n;
}
