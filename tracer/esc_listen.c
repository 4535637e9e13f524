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
 * Every slot is a small state machine advanced by pgwt_esc_listen_step()
 * from the daemon loop; nothing here waits on the server. Single-threaded.
 *
 * Our backends are not the database's sessions: each slot's backend pid
 * (from the start of its connect until it closes) is kept in one
 * process-wide set (escl_own, see pgwt_own_backends), which the capture
 * sources read to leave those backends out. One listener per process.
 */
#include "tracer/esc_listen.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ESCL_NSLOTS			(PGWT_ESC_LISTEN_MAX_DBS + 1)
#define ESCL_MAX_DBS		1024	/* databases remembered from pg_database */
#define ESCL_LIST_NS		30000000000ull
#define ESCL_PROBE_AGAIN_NS	60000000000ull
#define ESCL_REPORT_NS		5000000000ull
#define ESCL_CONNECT_NS		10000000000ull	/* connect_timeout of our own */
#define ESCL_QUERY_NS		30000000000ull	/* a statement stuck this long: reconnect */
#define ESCL_NAME_LEN		64

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
	ESCL_REPORTING				/* pgwt_tracer_report() in flight */
} escl_state;

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
	long long	ext_count;		/* CHECKING's answer */
	bool		query_failed;
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
	uint64_t	reports_total;
	uint64_t	errors_total;
	char		last_error[256];
};

/* The backends of our slots' connections (the capture sources read it). */
static pgwt_own_backends escl_own;

static uint64_t
escl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void
escl_quiet(void *arg, const char *message)
{
	(void) arg;
	(void) message;
}

static void
escl_close(pgwt_esc_listen *l, escl_slot *s)
{
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
	const char *keys[] = {"host", "port", "user", "dbname", "application_name", NULL};
	const char *vals[] = {l->host, l->port, l->user, s->db, "pg_wait_tracer escalation", NULL};

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

/* Send a statement; the slot enters state next. */
static bool
escl_send(pgwt_esc_listen *l, escl_slot *s, uint64_t now, escl_state next,
		  const char *sql, const char *param)
{
	int			ok;

	if (param)
		ok = PQsendQueryParams(s->conn, sql, 1, NULL, &param, NULL, NULL, 0);
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
	if (s->state == ESCL_CHECKING && PQntuples(res) == 1)
		s->ext_count = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	else if (s->state == ESCL_LISTING)
		escl_take_listing(l, res, now);
}

/* The statement in flight completed: what the slot does next. */
static void
escl_done(pgwt_esc_listen *l, escl_slot *s, uint64_t now)
{
	switch (s->state)
	{
		case ESCL_CHECKING:
			s->has_ext = !s->query_failed && s->ext_count > 0;
			if (s->has_ext)
				escl_send(l, s, now, ESCL_LISTEN_SENT, "LISTEN " PGWT_ESC_CHANNEL, NULL);
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
		default:
			s->state = ESCL_READY;
			break;
	}
	if (s == &l->slot[0] && s->state == ESCL_READY)
		s->failures = 0;
}

static void
escl_notifications(pgwt_esc_listen *l, escl_slot *s)
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
			if (l->ops.notice)
				l->ops.notice(l->ops.arg, &n, s->db);
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
					s->ext_count = 0;
					escl_send(l, s, now, ESCL_CHECKING,
							  "SELECT count(*) FROM pg_catalog.pg_extension WHERE extname = 'pg_wait_tracer'",
							  NULL);
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
	escl_notifications(l, s);
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
	if (escl_send(l, rep, now, ESCL_REPORTING, "SELECT pgwt_tracer_report($1)", json))
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
				  "WHERE datallowconn AND NOT datistemplate ORDER BY datname", NULL);
	}
	escl_probe(l, now);
	escl_report(l, now);
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
	c->reports_total = l->reports_total;
	c->errors_total = l->errors_total;
}

/* Wait (at most until deadline) for the slot's statement to complete. */
static bool
escl_finish_statement(pgwt_esc_listen *l, escl_slot *s, uint64_t deadline)
{
	while (s->conn && s->state != ESCL_READY && s->state != ESCL_DOWN && s->state != ESCL_FREE)
	{
		uint64_t	now = escl_now();
		struct pollfd p = {PQsocket(s->conn), POLLIN, 0};

		if (now >= deadline)
			return false;
		if (s->want_write)
			p.events |= POLLOUT;
		poll(&p, 1, (int) ((deadline - now) / 1000000ull) + 1);
		escl_step_slot(l, s, escl_now());
	}
	return s->conn && s->state == ESCL_READY;
}

void
pgwt_esc_listen_free(pgwt_esc_listen *l)
{
	uint64_t	deadline;

	if (!l)
		return;
	deadline = escl_now() + 1000000000ull;
	for (int k = 0; k < ESCL_NSLOTS; k++)
	{
		escl_slot  *s = &l->slot[k];

		if (!s->conn || !s->listening)
			continue;
		/* the reporter: NULL says the tracer detached cleanly */
		if (escl_finish_statement(l, s, deadline) &&
			escl_send(l, s, escl_now(), ESCL_REPORTING, "SELECT pgwt_tracer_report(NULL)", NULL))
			escl_finish_statement(l, s, deadline);
		break;
	}
	for (int k = 0; k < ESCL_NSLOTS; k++)
		escl_close(l, &l->slot[k]);
	free(l->dbs);
	free(l);
}
