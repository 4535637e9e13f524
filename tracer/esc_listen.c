/*
 * esc_listen.c
 *		The SQL escalation channel of the daemon (see esc_listen.h).
 *
 * NOTIFY is per database, so one connection LISTENs in each database where
 * the extension is installed. Slot 0 is the home connection (--dbname, or
 * postgres): it lists pg_database every ESCL_LIST_NS. Every other database
 * is probed (connect, look for the extension in pg_extension): with the
 * extension its connection stays and LISTENs, without it the connection
 * is closed and the probe repeated after ESCL_PROBE_AGAIN_NS. At most
 * PGWT_ESC_LISTEN_MAX_DBS databases besides home are listened to; the
 * others are counted (status "escalation_listen_capped").
 *
 * Reports go through one listening connection (the first in slot order):
 * the extension keeps the reporting backend's pid and trusts the report
 * while that backend lives.
 *
 * Any role that can connect can NOTIFY on the channel, so a request is
 * acted on only after its sender is authorized, on the connection that
 * received it: the backend PGnotify.be_pid (filled in by the server) must
 * still run in this database with the start time the payload carries (a
 * reused pid fails), and its role must hold EXECUTE on the extension's
 * pgwt_escalate(integer, text[]) or pgwt_deescalate(), the rule of calling
 * them. Requests wait for that look-up in a small queue per slot (looked up
 * in one statement for all of them); one that cannot be looked up is
 * refused, counted and logged, and changes nothing.
 *
 * Every connection is a superuser's in databases whose owners we do not
 * trust: search_path is empty from the start (the startup packet's
 * options, and set again first thing), and every statement names its
 * objects, functions and operators with their schema, as pg_dump does.
 *
 * Every slot is a small state machine advanced by pgwt_esc_listen_step()
 * from the daemon loop; nothing here waits on the server. Single-threaded.
 *
 * Our backends are not the database's sessions: each slot's backend pid
 * (from the start of its connect until it closes) is kept in one
 * process-wide set (escl_own, see pgwt_own_backends), which the capture
 * sources read to leave those backends out. One listener per process.
 */
#include "tracer/esc_listen.h"

#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"

#define ESCL_NSLOTS			(PGWT_ESC_LISTEN_MAX_DBS + 1)
#define ESCL_MAX_DBS		1024	/* databases remembered from pg_database */
#define ESCL_LIST_NS		30000000000ull
#define ESCL_PROBE_AGAIN_NS	60000000000ull
#define ESCL_REPORT_NS		5000000000ull
#define ESCL_CONNECT_NS		10000000000ull	/* connect_timeout of our own */
#define ESCL_QUERY_NS		30000000000ull	/* a statement stuck this long: reconnect */
#define ESCL_NAME_LEN		64
#define ESCL_QNAME_LEN		(2 * ESCL_NAME_LEN + 3)	/* a quoted identifier */
#define ESCL_PENDING_MAX	32	/* requests waiting for a look-up, per slot */
#define ESCL_PENDING_PER_PID 4	/* of which from one backend */
#define ESCL_REFUSAL_LOG_NS 1000000000ull	/* at most one refusal logged a second */

/*
 * No role's or database's search_path reaches our sessions, nor a timeout
 * that a database owner set to cut our idle listeners.
 */
#define ESCL_OPTIONS		"-c search_path= -c statement_timeout=0 -c idle_session_timeout=0"
#define ESCL_PIN_SQL		"SELECT pg_catalog.set_config('search_path', '', false);"

_Static_assert(ESCL_NSLOTS <= PGWT_OWN_SLOTS, "every slot needs a place in the own-backend set");

typedef enum escl_state
{
	ESCL_FREE,					/* slot unused */
	ESCL_DOWN,					/* waiting for retry_ns */
	ESCL_CONNECTING,
	ESCL_CHECKING,				/* is the extension here? */
	ESCL_LISTEN_SENT,
	ESCL_READY,					/* idle: notifications only */
	ESCL_LISTING,				/* home: reading pg_database */
	ESCL_REPORTING,				/* pgwt_tracer_report() in flight */
	ESCL_VERIFYING				/* looking the senders of requests up */
} escl_state;

/* A request waiting for its sender to be looked up. */
typedef struct escl_pending
{
	pgwt_esc_notice n;
	pgwt_esc_sender who;
} escl_pending;

typedef struct escl_slot
{
	escl_state	state;
	char		db[ESCL_NAME_LEN];
	PGconn	   *conn;
	bool		has_ext;
	bool		listening;
	bool		want_write;		/* connecting, or output not flushed */
	int			failures;
	uint64_t	retry_ns;
	uint64_t	deadline_ns;	/* of the connect or statement in flight */
	bool		ext_found;		/* CHECKING's answer */
	bool		query_failed;
	char		schema[ESCL_QNAME_LEN];	/* the extension's, quoted */
	escl_pending pend[ESCL_PENDING_MAX];
	int			npend;
	int			nverify;		/* the first nverify are being looked up */
} escl_slot;

typedef struct escl_db
{
	char		name[ESCL_NAME_LEN];
	uint64_t	next_probe_ns;
	bool		seen;			/* in the last listing */
} escl_db;

struct pgwt_esc_listen
{
	pgwt_esc_listen_ops ops;
	char		host_opt[4096];
	char		user[ESCL_NAME_LEN];
	char		home_db[ESCL_NAME_LEN];
	bool		attached;
	char		host[4096];
	char		port[16];
	escl_slot	slot[ESCL_NSLOTS];
	escl_db    *dbs;
	int			ndbs;
	uint64_t	next_list_ns;
	bool		report_due;
	uint64_t	next_report_ns;
	int			capped;			/* databases waiting for a slot */
	uint64_t	notices_total;
	uint64_t	bad_notices_total;
	uint64_t	authorized_total;
	uint64_t	refused_total;
	uint64_t	reports_total;
	uint64_t	errors_total;
	char		last_error[256];
	char		last_refusal[704];	/* escaped */
	uint64_t	refusal_logged_ns;	/* the last refusal logged */
	uint64_t	refusals_unlogged;	/* since then */
};

/* The backends of our slots' connections (the capture sources read it). */
static pgwt_own_backends escl_own;

static void
escl_quiet(void *arg, const char *message)
{
	(void) arg;
	(void) message;
}

/*
 * A request refused: it opens, extends and closes nothing and spends no
 * budget. Counted, kept for status, and logged (at most one line a second,
 * so a flood of NOTIFYs cannot flood the log); everything the database or
 * the payload said is escaped.
 */
static void
escl_refuse(pgwt_esc_listen *l, const escl_slot *s, const pgwt_esc_notice *n,
			pgwt_esc_verdict v, uint64_t now)
{
	char		db[4 * PGWT_ESC_LOG_MAX_IN + 4],
				role[4 * PGWT_ESC_LOG_MAX_IN + 4],
				by[4 * PGWT_ESC_LOG_MAX_IN + 4];

	l->refused_total++;
	pgwt_esc_log_escape(s->db, PGWT_ESC_LOG_MAX_IN, db, sizeof(db));
	pgwt_esc_log_escape(n->role, PGWT_ESC_LOG_MAX_IN, role, sizeof(role));
	pgwt_esc_log_escape(n->by, PGWT_ESC_LOG_MAX_IN, by, sizeof(by));
	snprintf(l->last_refusal, sizeof(l->last_refusal),
			 "%s request %lld from database \"%s\", backend %d%s%s%s: %s",
			 n->op == PGWT_ESC_OP_ESCALATE ? "escalate" : "deescalate", n->id, db, n->be_pid,
			 role[0] ? " (role \"" : "", role, role[0] ? "\")" : "", pgwt_esc_verdict_text(v));
	if (l->refusal_logged_ns && now - l->refusal_logged_ns < ESCL_REFUSAL_LOG_NS)
	{
		l->refusals_unlogged++;
		return;
	}
	if (l->refusals_unlogged)
		fprintf(stderr, "pg_wait_tracer: %" PRIu64 " more SQL requests refused (not logged)\n",
				l->refusals_unlogged);
	fprintf(stderr, "pg_wait_tracer: refused SQL %s (the payload says by \"%s\", pid %d)\n",
			l->last_refusal, by, n->pid);
	l->refusal_logged_ns = now;
	l->refusals_unlogged = 0;
}

/* The requests of a slot whose connection closes cannot be looked up. */
static void
escl_drop_pending(pgwt_esc_listen *l, escl_slot *s)
{
	uint64_t	now = pgwt_mono_ns();

	for (int i = 0; i < s->npend; i++)
		escl_refuse(l, s, &s->pend[i].n, PGWT_ESC_REFUSED_UNVERIFIED, now);
	s->npend = 0;
	s->nverify = 0;
}

static void
escl_close(pgwt_esc_listen *l, escl_slot *s)
{
	escl_drop_pending(l, s);
	/* the backend is no longer ours: a pid reused later is traced again */
	pgwt_own_closed(&escl_own, (int) (s - l->slot));
	if (s->conn)
		PQfinish(s->conn);
	s->conn = NULL;
	s->listening = false;
	s->want_write = false;
}

static escl_db *
escl_db_find(pgwt_esc_listen *l, const char *name)
{
	for (int i = 0; i < l->ndbs; i++)
		if (strcmp(l->dbs[i].name, name) == 0)
			return &l->dbs[i];
	return NULL;
}

/*
 * A connection failed: home and listening databases retry with backoff in
 * their slot; a probe gives its slot back and is probed again later.
 */
static void
escl_fail(pgwt_esc_listen *l, escl_slot *s, uint64_t now, const char *what)
{
	const char *msg = s->conn ? PQerrorMessage(s->conn) : "";
	bool		keep = s == &l->slot[0] || s->has_ext;

	l->errors_total++;
	snprintf(l->last_error, sizeof(l->last_error), "%s: %s: %.*s", s->db, what,
			 (int) strcspn(msg, "\n"), msg);
	if (s->state == ESCL_REPORTING)
		l->report_due = true;
	escl_close(l, s);
	s->failures++;
	if (keep)
	{
		s->state = ESCL_DOWN;
		s->retry_ns = now + pgwt_esc_backoff_ns(s->failures);
	}
	else
	{
		escl_db    *d = escl_db_find(l, s->db);

		if (d)
			d->next_probe_ns = now + (pgwt_esc_backoff_ns(s->failures) > ESCL_PROBE_AGAIN_NS ?
									  pgwt_esc_backoff_ns(s->failures) : ESCL_PROBE_AGAIN_NS);
		s->state = ESCL_FREE;
	}
}

static void
escl_connect(pgwt_esc_listen *l, escl_slot *s, uint64_t now)
{
	const char *keys[] = {"host", "port", "user", "dbname", "application_name", "options", NULL};
	const char *vals[] = {l->host, l->port, l->user, s->db, "pg_wait_tracer escalation",
	ESCL_OPTIONS, NULL};

	s->conn = PQconnectStartParams(keys, vals, 0);
	s->deadline_ns = now + ESCL_CONNECT_NS;
	if (!s->conn || PQstatus(s->conn) == CONNECTION_BAD)
	{
		s->state = ESCL_CONNECTING;
		escl_fail(l, s, now, "cannot connect");
		return;
	}
	PQsetNoticeProcessor(s->conn, escl_quiet, NULL);
	/* its backend may fork any moment: capture holds new ones back */
	pgwt_own_connecting(&escl_own, (int) (s - l->slot), now);
	s->state = ESCL_CONNECTING;
	s->want_write = true;
}

/* Send a statement (with nparams text parameters); the slot enters next. */
static bool
escl_send(pgwt_esc_listen *l, escl_slot *s, uint64_t now, escl_state next,
		  const char *sql, int nparams, const char *const *params)
{
	int			ok;

	if (nparams > 0)
		ok = PQsendQueryParams(s->conn, sql, nparams, NULL, params, NULL, NULL, 0);
	else
		ok = PQsendQuery(s->conn, sql);
	if (!ok)
	{
		escl_fail(l, s, now, "cannot send");
		return false;
	}
	s->state = next;
	s->query_failed = false;
	s->deadline_ns = now + ESCL_QUERY_NS;
	s->want_write = PQflush(s->conn) == 1;
	return true;
}

static void
escl_take_listing(pgwt_esc_listen *l, PGresult *res, uint64_t now)
{
	int			n = PQntuples(res);

	for (int i = 0; i < l->ndbs; i++)
		l->dbs[i].seen = false;
	for (int r = 0; r < n; r++)
	{
		const char *name = PQgetvalue(res, r, 0);
		escl_db    *d;

		if (strlen(name) >= ESCL_NAME_LEN)
			continue;
		d = escl_db_find(l, name);
		if (!d && l->ndbs < ESCL_MAX_DBS)
		{
			d = &l->dbs[l->ndbs++];
			memset(d, 0, sizeof(*d));
			snprintf(d->name, sizeof(d->name), "%s", name);
			d->next_probe_ns = now;
		}
		if (d)
			d->seen = true;
	}
	/* dropped databases: their slots close */
	for (int i = 0; i < l->ndbs;)
	{
		if (l->dbs[i].seen)
		{
			i++;
			continue;
		}
		for (int k = 1; k < ESCL_NSLOTS; k++)
			if (l->slot[k].state != ESCL_FREE && strcmp(l->slot[k].db, l->dbs[i].name) == 0)
			{
				escl_close(l, &l->slot[k]);
				l->slot[k].state = ESCL_FREE;
			}
		l->dbs[i] = l->dbs[--l->ndbs];
	}
}

/* CHECKING found the extension in schema name: keep it quoted. */
static void
escl_take_schema(escl_slot *s, const char *name)
{
	char	   *q = PQescapeIdentifier(s->conn, name, strlen(name));

	if (q && strlen(q) < sizeof(s->schema))
	{
		snprintf(s->schema, sizeof(s->schema), "%s", q);
		s->ext_found = true;
	}
	if (q)
		PQfreemem(q);
}

/* VERIFYING's rows: what the server says about each request's sender. */
static void
escl_take_senders(escl_slot *s, PGresult *res)
{
	if (PQnfields(res) != 5)
		return;
	for (int r = 0; r < PQntuples(res); r++)
	{
		int			pid = (int) strtol(PQgetvalue(res, r, 0), NULL, 10);

		for (int i = 0; i < s->nverify; i++)
		{
			pgwt_esc_sender *w = &s->pend[i].who;

			if (s->pend[i].n.be_pid != pid)
				continue;
			w->found = !PQgetisnull(res, r, 1);
			w->start_us = strtoll(PQgetvalue(res, r, 1), NULL, 10);
			w->may_escalate = strcmp(PQgetvalue(res, r, 2), "t") == 0;
			w->may_deescalate = strcmp(PQgetvalue(res, r, 3), "t") == 0;
			snprintf(w->role, sizeof(w->role), "%s", PQgetvalue(res, r, 4));
		}
	}
}

static void
escl_take_result(pgwt_esc_listen *l, escl_slot *s, PGresult *res, uint64_t now)
{
	ExecStatusType st = PQresultStatus(res);

	if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
	{
		const char *msg = PQresultErrorMessage(res);

		s->query_failed = true;
		l->errors_total++;
		snprintf(l->last_error, sizeof(l->last_error), "%s: %.*s", s->db,
				 (int) strcspn(msg, "\n"), msg);
		return;
	}
	/* the pinning statement's row before it has another column name */
	if (s->state == ESCL_CHECKING && PQntuples(res) == 1 && PQnfields(res) == 1 &&
		strcmp(PQfname(res, 0), "nspname") == 0)
		escl_take_schema(s, PQgetvalue(res, 0, 0));
	else if (s->state == ESCL_LISTING)
		escl_take_listing(l, res, now);
	else if (s->state == ESCL_VERIFYING)
		escl_take_senders(s, res);
}

/*
 * The senders of the first nverify requests were looked up: act on those
 * authorized, in the order they came, and refuse the others.
 */
static void
escl_decide(pgwt_esc_listen *l, escl_slot *s, uint64_t now)
{
	int			k = s->nverify;

	for (int i = 0; i < k; i++)
	{
		escl_pending *p = &s->pend[i];
		pgwt_esc_verdict v = s->query_failed ? PGWT_ESC_REFUSED_UNVERIFIED :
			pgwt_esc_authorize(&p->n, &p->who);

		snprintf(p->n.role, sizeof(p->n.role), "%s", p->who.role);
		if (v != PGWT_ESC_AUTHORIZED)
		{
			escl_refuse(l, s, &p->n, v, now);
			continue;
		}
		l->authorized_total++;
		if (l->ops.notice)
			l->ops.notice(l->ops.arg, &p->n, s->db);
	}
	memmove(s->pend, s->pend + k, (size_t) (s->npend - k) * sizeof(s->pend[0]));
	s->npend -= k;
	s->nverify = 0;
}

/* The statement in flight completed: what the slot does next. */
static void
escl_done(pgwt_esc_listen *l, escl_slot *s, uint64_t now)
{
	switch (s->state)
	{
		case ESCL_CHECKING:
			s->has_ext = !s->query_failed && s->ext_found;
			if (s->has_ext)
				escl_send(l, s, now, ESCL_LISTEN_SENT, "LISTEN " PGWT_ESC_CHANNEL, 0, NULL);
			else if (s == &l->slot[0])
				s->state = ESCL_READY;
			else
			{
				escl_db    *d = escl_db_find(l, s->db);

				if (d)
					d->next_probe_ns = now + ESCL_PROBE_AGAIN_NS;
				escl_close(l, s);
				s->state = ESCL_FREE;
			}
			break;
		case ESCL_LISTEN_SENT:
			s->state = ESCL_READY;
			s->listening = !s->query_failed;
			if (s->listening)
			{
				s->failures = 0;
				/* the extension learns at once that a tracer listens */
				l->report_due = true;
			}
			break;
		case ESCL_REPORTING:
			s->state = ESCL_READY;
			if (!s->query_failed)
			{
				l->reports_total++;
				break;
			}
			/*
			 * The extension was dropped here (or its function refuses):
			 * stop listening; the database is probed again later and
			 * another listening database reports meanwhile.
			 */
			l->report_due = true;
			escl_close(l, s);
			s->has_ext = false;
			if (s == &l->slot[0])
			{
				s->state = ESCL_DOWN;
				s->retry_ns = now + ESCL_PROBE_AGAIN_NS;
			}
			else
			{
				escl_db    *d = escl_db_find(l, s->db);

				if (d)
					d->next_probe_ns = now + ESCL_PROBE_AGAIN_NS;
				s->state = ESCL_FREE;
			}
			break;
		case ESCL_VERIFYING:
			s->state = ESCL_READY;
			escl_decide(l, s, now);
			break;
		default:
			s->state = ESCL_READY;
			break;
	}
	if (s == &l->slot[0] && s->state == ESCL_READY)
		s->failures = 0;
}

/*
 * A request waits for its sender's look-up. The queue is bounded, and so
 * is one backend's share of it: a flood from one connection is refused
 * without delaying the others.
 */
static void
escl_enqueue(pgwt_esc_listen *l, escl_slot *s, const pgwt_esc_notice *n, uint64_t now)
{
	int			same = 0;

	for (int i = 0; i < s->npend; i++)
		if (s->pend[i].n.be_pid == n->be_pid)
			same++;
	if (s->npend == ESCL_PENDING_MAX || same >= ESCL_PENDING_PER_PID)
	{
		escl_refuse(l, s, n, PGWT_ESC_REFUSED_BUSY, now);
		return;
	}
	memset(&s->pend[s->npend], 0, sizeof(s->pend[0]));
	s->pend[s->npend++].n = *n;
}

static void
escl_notifications(pgwt_esc_listen *l, escl_slot *s, uint64_t now)
{
	PGnotify   *nf;

	while (s->conn && (nf = PQnotifies(s->conn)) != NULL)
	{
		pgwt_esc_notice n;
		char		err[128];

		if (strcmp(nf->relname, PGWT_ESC_CHANNEL) == 0 &&
			pgwt_esc_notice_parse(nf->extra, &n, err, sizeof(err)) == 0)
		{
			l->notices_total++;
			/* the server's word for who sent it, never the payload's */
			n.be_pid = nf->be_pid;
			escl_enqueue(l, s, &n, now);
		}
		else
		{
			l->bad_notices_total++;
			snprintf(l->last_error, sizeof(l->last_error), "%s: ignored notification: %s",
					 s->db, err);
		}
		PQfreemem(nf);
	}
}

/*
 * One statement looks up the senders of every waiting request: the
 * backend's row in this database, its start time (Unix microseconds, exact:
 * EXTRACT gives numeric), and whether its role may execute the extension's
 * two functions (to_regprocedure of the quoted, schema-qualified
 * signatures: NULL, so false, if they are not there).
 */
#define ESCL_VERIFY_SQL \
	"SELECT a.pid," \
	" pg_catalog.trunc(EXTRACT(epoch FROM a.backend_start)" \
	"   OPERATOR(pg_catalog.*) 1000000::pg_catalog.numeric)::pg_catalog.int8," \
	" pg_catalog.has_function_privilege(a.usesysid, pg_catalog.to_regprocedure($2), 'EXECUTE')," \
	" pg_catalog.has_function_privilege(a.usesysid, pg_catalog.to_regprocedure($3), 'EXECUTE')," \
	" a.usename" \
	" FROM pg_catalog.pg_stat_activity a" \
	" WHERE a.pid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.int4[])" \
	" AND a.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()"

static void
escl_verify(pgwt_esc_listen *l, escl_slot *s, uint64_t now)
{
	char		pids[ESCL_PENDING_MAX * 12 + 4];
	char		esc[ESCL_QNAME_LEN + 64],
				desc[ESCL_QNAME_LEN + 32];
	const char *params[3] = {pids, esc, desc};
	size_t		len = 0;

	if (!s->conn || s->state != ESCL_READY || s->npend == 0)
		return;
	pids[len++] = '{';
	for (int i = 0; i < s->npend; i++)
	{
		len += (size_t) snprintf(pids + len, sizeof(pids) - len, "%s%d", i ? "," : "",
								 s->pend[i].n.be_pid);
		memset(&s->pend[i].who, 0, sizeof(s->pend[i].who));
	}
	snprintf(pids + len, sizeof(pids) - len, "}");
	snprintf(esc, sizeof(esc), "%s.\"pgwt_escalate\"(pg_catalog.int4, pg_catalog.text[])", s->schema);
	snprintf(desc, sizeof(desc), "%s.\"pgwt_deescalate\"()", s->schema);
	s->nverify = s->npend;
	escl_send(l, s, now, ESCL_VERIFYING, ESCL_VERIFY_SQL, 3, params);
}

static void
escl_step_slot(pgwt_esc_listen *l, escl_slot *s, uint64_t now)
{
	PGresult   *res;

	switch (s->state)
	{
		case ESCL_FREE:
			return;
		case ESCL_DOWN:
			if (l->attached && now >= s->retry_ns)
				escl_connect(l, s, now);
			return;
		case ESCL_CONNECTING:
			switch (PQconnectPoll(s->conn))
			{
				case PGRES_POLLING_OK:
					pgwt_own_connected(&escl_own, (int) (s - l->slot),
									   (uint32_t) PQbackendPID(s->conn));
					PQsetnonblocking(s->conn, 1);
					s->want_write = false;
					s->ext_found = false;
					s->schema[0] = '\0';
					escl_send(l, s, now, ESCL_CHECKING, ESCL_PIN_SQL
							  " SELECT n.nspname FROM pg_catalog.pg_extension e"
							  " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace"
							  " WHERE e.extname OPERATOR(pg_catalog.=) 'pg_wait_tracer'::pg_catalog.name",
							  0, NULL);
					return;
				case PGRES_POLLING_FAILED:
					escl_fail(l, s, now, "cannot connect");
					return;
				case PGRES_POLLING_WRITING:
					s->want_write = true;
					break;
				default:
					s->want_write = false;
					break;
			}
			if (now > s->deadline_ns)
				escl_fail(l, s, now, "connection timed out");
			return;
		default:
			break;
	}
	if (!PQconsumeInput(s->conn) || PQstatus(s->conn) == CONNECTION_BAD)
	{
		escl_fail(l, s, now, "connection lost");
		return;
	}
	if (s->want_write)
	{
		int			f = PQflush(s->conn);

		if (f < 0)
		{
			escl_fail(l, s, now, "connection lost");
			return;
		}
		s->want_write = f == 1;
	}
	if (s->state != ESCL_READY)
	{
		bool		done = false;

		while (!PQisBusy(s->conn))
		{
			res = PQgetResult(s->conn);
			if (!res)
			{
				done = true;
				break;
			}
			escl_take_result(l, s, res, now);
			PQclear(res);
		}
		if (done)
			escl_done(l, s, now);
		else if (now > s->deadline_ns)
		{
			escl_fail(l, s, now, "statement timed out");
			return;
		}
	}
	escl_notifications(l, s, now);
}

/* Databases due for a probe get a free slot, as far as slots go. */
static void
escl_probe(pgwt_esc_listen *l, uint64_t now)
{
	l->capped = 0;
	for (int i = 0; i < l->ndbs; i++)
	{
		escl_db    *d = &l->dbs[i];
		bool		in_slot = strcmp(d->name, l->slot[0].db) == 0;
		escl_slot  *freeslot = NULL;

		for (int k = 1; k < ESCL_NSLOTS && !in_slot; k++)
		{
			if (l->slot[k].state == ESCL_FREE)
			{
				if (!freeslot)
					freeslot = &l->slot[k];
			}
			else if (strcmp(l->slot[k].db, d->name) == 0)
				in_slot = true;
		}
		if (in_slot || now < d->next_probe_ns)
			continue;
		if (!freeslot)
		{
			l->capped++;
			continue;
		}
		memset(freeslot, 0, sizeof(*freeslot));
		snprintf(freeslot->db, sizeof(freeslot->db), "%s", d->name);
		escl_connect(l, freeslot, now);
	}
}

static int
escl_listening(const pgwt_esc_listen *l)
{
	int			n = 0;

	for (int k = 0; k < ESCL_NSLOTS; k++)
		if (l->slot[k].conn && l->slot[k].listening)
			n++;
	return n;
}

static void
escl_report(pgwt_esc_listen *l, uint64_t now)
{
	escl_slot  *rep = NULL;
	pgwt_esc_report r;
	char		json[PGWT_ESC_REPORT_MAX];
	char		sql[ESCL_QNAME_LEN + 64];
	const char *param = json;

	if (!l->report_due && now < l->next_report_ns)
		return;
	for (int k = 0; k < ESCL_NSLOTS && !rep; k++)
		if (l->slot[k].conn && l->slot[k].listening)
			rep = &l->slot[k];
	/* the one reporter is busy: report when it is idle again */
	if (!rep || rep->state != ESCL_READY || !l->ops.state)
		return;
	memset(&r, 0, sizeof(r));
	r.request_id = -1;
	l->ops.state(l->ops.arg, &r);
	r.listening = escl_listening(l);
	r.pid = (int) getpid();
	if (pgwt_esc_report_json(&r, json, sizeof(json)) < 0)
		return;
	snprintf(sql, sizeof(sql), "SELECT %s.\"pgwt_tracer_report\"($1::pg_catalog.text)", rep->schema);
	if (escl_send(l, rep, now, ESCL_REPORTING, sql, 1, &param))
	{
		l->report_due = false;
		l->next_report_ns = now + ESCL_REPORT_NS;
	}
}

pgwt_esc_listen *
pgwt_esc_listen_create(const char *host, const char *user, const char *home_db,
					   const pgwt_esc_listen_ops *ops)
{
	pgwt_esc_listen *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->dbs = calloc(ESCL_MAX_DBS, sizeof(escl_db));
	if (!l->dbs)
	{
		free(l);
		return NULL;
	}
	l->ops = *ops;
	snprintf(l->host_opt, sizeof(l->host_opt), "%s", host ? host : "");
	snprintf(l->user, sizeof(l->user), "%s", user ? user : "postgres");
	snprintf(l->home_db, sizeof(l->home_db), "%s", home_db ? home_db : "postgres");
	l->slot[0].state = ESCL_DOWN;
	snprintf(l->slot[0].db, sizeof(l->slot[0].db), "%s", l->home_db);
	return l;
}

void
pgwt_esc_listen_set_cluster(pgwt_esc_listen *l, const pgwt_cluster *c)
{
	for (int k = 0; k < ESCL_NSLOTS; k++)
	{
		escl_slot  *s = &l->slot[k];

		escl_close(l, s);
		if (k == 0)
		{
			s->state = ESCL_DOWN;
			s->failures = 0;
			s->retry_ns = 0;
		}
		else
			s->state = ESCL_FREE;
	}
	l->ndbs = 0;
	l->next_list_ns = 0;
	l->attached = c != NULL;
	if (!c)
		return;
	snprintf(l->host, sizeof(l->host), "%s", l->host_opt[0] ? l->host_opt :
			 c->sockdir[0] ? c->sockdir : "/var/run/postgresql");
	snprintf(l->port, sizeof(l->port), "%d", c->port);
}

void
pgwt_esc_listen_step(pgwt_esc_listen *l, uint64_t now)
{
	escl_slot  *home = &l->slot[0];

	for (int k = 0; k < ESCL_NSLOTS; k++)
		escl_step_slot(l, &l->slot[k], now);
	if (!l->attached)
		return;
	if (home->state == ESCL_READY && now >= l->next_list_ns)
	{
		l->next_list_ns = now + ESCL_LIST_NS;
		escl_send(l, home, now, ESCL_LISTING,
				  "SELECT datname FROM pg_catalog.pg_database "
				  "WHERE datallowconn AND NOT datistemplate ORDER BY datname", 0, NULL);
	}
	escl_probe(l, now);
	escl_report(l, now);
	/* after the report: a flood of requests cannot starve it */
	for (int k = 0; k < ESCL_NSLOTS; k++)
		escl_verify(l, &l->slot[k], now);
}

int
pgwt_esc_listen_pollfds(const pgwt_esc_listen *l, struct pollfd *out, int max)
{
	int			n = 0;

	for (int k = 0; k < ESCL_NSLOTS && n < max; k++)
	{
		const escl_slot *s = &l->slot[k];

		if (!s->conn || s->state == ESCL_DOWN || s->state == ESCL_FREE || PQsocket(s->conn) < 0)
			continue;
		out[n].fd = PQsocket(s->conn);
		out[n].events = (short) (s->want_write ? POLLOUT : POLLIN);
		if (s->state != ESCL_CONNECTING)
			out[n].events |= POLLIN;
		out[n].revents = 0;
		n++;
	}
	return n;
}

void
pgwt_esc_listen_report_soon(pgwt_esc_listen *l)
{
	if (l)
		l->report_due = true;
}

void
pgwt_esc_listen_status(const pgwt_esc_listen *l, pgwt_json_out *out)
{
	pgwt_json_int(out, "escalation_listen_dbs", escl_listening(l));
	pgwt_json_int(out, "escalation_listen_max", PGWT_ESC_LISTEN_MAX_DBS);
	pgwt_json_int(out, "escalation_listen_capped", l->capped);
	pgwt_json_int(out, "escalation_notices_total", (long long) l->notices_total);
	pgwt_json_int(out, "escalation_notices_authorized_total", (long long) l->authorized_total);
	pgwt_json_int(out, "escalation_notices_refused_total", (long long) l->refused_total);
	pgwt_json_int(out, "escalation_notices_malformed_total", (long long) l->bad_notices_total);
	pgwt_json_str(out, "escalation_last_refusal", l->last_refusal);
	pgwt_json_int(out, "escalation_reports_total", (long long) l->reports_total);
	pgwt_json_int(out, "escalation_listen_errors_total", (long long) l->errors_total);
	pgwt_json_str(out, "escalation_listen_last_error", l->last_error);
}

const pgwt_own_backends *
pgwt_esc_listen_own_backends(void)
{
	return &escl_own;
}

void
pgwt_esc_listen_get_counts(const pgwt_esc_listen *l, pgwt_esc_listen_counts *c)
{
	c->dbs = escl_listening(l);
	c->capped = l->capped;
	c->notices_total = l->notices_total;
	c->authorized_total = l->authorized_total;
	c->refused_total = l->refused_total;
	c->malformed_total = l->bad_notices_total;
	c->reports_total = l->reports_total;
	c->errors_total = l->errors_total;
}

/* Wait (at most until deadline) for the slot's statement to complete. */
static bool
escl_finish_statement(pgwt_esc_listen *l, escl_slot *s, uint64_t deadline)
{
	while (s->conn && s->state != ESCL_READY && s->state != ESCL_DOWN && s->state != ESCL_FREE)
	{
		uint64_t	now = pgwt_mono_ns();
		struct pollfd p = {PQsocket(s->conn), POLLIN, 0};

		if (now >= deadline)
			return false;
		if (s->want_write)
			p.events |= POLLOUT;
		poll(&p, 1, (int) ((deadline - now) / 1000000ull) + 1);
		escl_step_slot(l, s, pgwt_mono_ns());
	}
	return s->conn && s->state == ESCL_READY;
}

void
pgwt_esc_listen_free(pgwt_esc_listen *l)
{
	uint64_t	deadline;
	char		sql[ESCL_QNAME_LEN + 64];

	if (!l)
		return;
	deadline = pgwt_mono_ns() + 1000000000ull;
	for (int k = 0; k < ESCL_NSLOTS; k++)
	{
		escl_slot  *s = &l->slot[k];

		if (!s->conn || !s->listening)
			continue;
		/* the reporter: NULL says the tracer detached cleanly */
		snprintf(sql, sizeof(sql), "SELECT %s.\"pgwt_tracer_report\"(NULL)", s->schema);
		if (escl_finish_statement(l, s, deadline) &&
			escl_send(l, s, pgwt_mono_ns(), ESCL_REPORTING, sql, 0, NULL))
			escl_finish_statement(l, s, deadline);
		break;
	}
	for (int k = 0; k < ESCL_NSLOTS; k++)
		escl_close(l, &l->slot[k]);
	free(l->dbs);
	free(l);
}
