/*
 * control.c
 *		The control protocol's pure part (see control.h): the answer to one
 *		request line, for a peer of a given class, the Prometheus text
 *		(with its label escaping), and who may use the control socket. No I/O: the sockets are in
 *		ctl_server.c and ctl_sockfile.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "analysis/policy/escalation.h"

#define CTL_MAX_METRICS 80

static void
ctl_error(pgwt_json_out *o, char *buf, size_t cap, const char *msg)
{
	pgwt_json_begin(o, buf, cap);
	pgwt_json_bool(o, "ok", false);
	pgwt_json_str(o, "error", msg);
}

pgwt_peer_class
pgwt_control_peer_class(uid_t uid, const gid_t *gids, int ngids,
						uid_t self_uid, gid_t reader_gid)
{
	if (uid == 0 || uid == self_uid)
		return PGWT_PEER_ADMIN;
	/* root's group is no readers' group: its members are not told apart */
	if (reader_gid == (gid_t) -1 || reader_gid == 0)
		return PGWT_PEER_REFUSED;
	for (int i = 0; i < ngids; i++)
		if (gids[i] == reader_gid)
			return PGWT_PEER_READER;
	return PGWT_PEER_REFUSED;
}

long
pgwt_control_answer(const pgwt_control_ops *ops, const char *line, size_t len,
					char *buf, size_t cap)
{
	return pgwt_control_answer_as(ops, PGWT_PEER_ADMIN, line, len, buf, cap);
}

long
pgwt_control_answer_as(const pgwt_control_ops *ops, pgwt_peer_class cls,
					   const char *line, size_t len, char *buf, size_t cap)
{
	pgwt_json_obj req;
	pgwt_json_out o;
	const pgwt_json_field *cmd;
	char		err[160];
	char		msg[256];

	if (cls != PGWT_PEER_ADMIN && cls != PGWT_PEER_READER)
	{
		ctl_error(&o, buf, cap, "not allowed on this control socket");
		return pgwt_json_end(&o);
	}
	if (pgwt_json_parse(line, len, &req, err, sizeof(err)) != 0)
	{
		snprintf(msg, sizeof(msg), "malformed request: %s", err);
		ctl_error(&o, buf, cap, msg);
		return pgwt_json_end(&o);
	}
	cmd = pgwt_json_get(&req, "cmd");
	if (!cmd || cmd->type != PGWT_JSON_STRING)
	{
		ctl_error(&o, buf, cap, "missing \"cmd\" (status, metrics, escalate, deescalate)");
		return pgwt_json_end(&o);
	}
	if (cls != PGWT_PEER_ADMIN &&
		(strcmp(cmd->str, "escalate") == 0 || strcmp(cmd->str, "deescalate") == 0))
	{
		/* a reader only reads */
		snprintf(msg, sizeof(msg), "%.16s: only root may change the daemon's windows here; "
				 "members of the trace directory's group may ask for status and metrics "
				 "(from SQL: SELECT pgwt_escalate(N))", cmd->str);
		ctl_error(&o, buf, cap, msg);
		return pgwt_json_end(&o);
	}
	if (strcmp(cmd->str, "status") == 0)
	{
		pgwt_json_begin(&o, buf, cap);
		pgwt_json_bool(&o, "ok", true);
		ops->status(ops->arg, &o);
	}
	else if (strcmp(cmd->str, "metrics") == 0)
	{
		pgwt_metric m[CTL_MAX_METRICS];
		size_t		n = ops->metrics(ops->arg, m, CTL_MAX_METRICS);

		pgwt_json_begin(&o, buf, cap);
		pgwt_json_bool(&o, "ok", true);
		for (size_t i = 0; i < n; i++)
			pgwt_json_num(&o, m[i].name, m[i].value);
	}
	else if (strcmp(cmd->str, "escalate") == 0)
	{
		const pgwt_json_field *d = pgwt_json_get(&req, "duration_s");

		if (!d || d->type != PGWT_JSON_NUMBER || d->num < 1 || d->num > PGWT_ESC_MAX_WINDOW_S ||
			d->num != (double) (long long) d->num)
		{
			snprintf(msg, sizeof(msg), "escalate needs \"duration_s\": a whole number of seconds from 1 to %d",
					 (int) PGWT_ESC_MAX_WINDOW_S);
			ctl_error(&o, buf, cap, msg);
			return pgwt_json_end(&o);
		}
		pgwt_json_begin(&o, buf, cap);
		ops->escalate(ops->arg, (long long) d->num, &o);
	}
	else if (strcmp(cmd->str, "deescalate") == 0)
	{
		pgwt_json_begin(&o, buf, cap);
		ops->deescalate(ops->arg, &o);
	}
	else
	{
		snprintf(msg, sizeof(msg), "unknown cmd \"%.64s\" (status, metrics, escalate, deescalate)",
				 cmd->str);
		ctl_error(&o, buf, cap, msg);
	}
	return pgwt_json_end(&o);
}

size_t
pgwt_control_prom_escape(const char *v, char *buf, size_t cap)
{
	size_t		len = 0;

	if (cap == 0)
		return 0;
	for (; *v; v++)
	{
		const char *esc = *v == '\\' ? "\\\\" : *v == '"' ? "\\\"" : *v == '\n' ? "\\n" : NULL;
		unsigned char ch = (unsigned char) *v;
		size_t		w = esc ? 2 : 1;

		if (len + w >= cap)
			break;
		if (esc)
			memcpy(buf + len, esc, 2);
		else
			/* control bytes and non-ASCII (maybe not UTF-8): never raw */
			buf[len] = ch < 0x20 || ch >= 0x7F ? '?' : *v;
		len += w;
	}
	buf[len] = '\0';
	return len;
}

/* Appends to buf at *len; false when it does not fit. */
static bool __attribute__((format(printf, 4, 5)))
ctl_prom_put(char *buf, size_t cap, size_t *len, const char *fmt,...)
{
	va_list		ap;
	int			w;

	va_start(ap, fmt);
	w = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t) w >= cap - *len)
		return false;
	*len += (size_t) w;
	return true;
}

/* The wait event families: one HELP/TYPE each, a line per event. */
static bool
ctl_prom_series(const pgwt_wait_series *s, size_t n, char *buf, size_t cap, size_t *len)
{
	static const struct
	{
		const char *name;
		const char *help;
	}			fam[3] = {
		{"pgwt_wait_seconds_total", "Time backends spent in each wait event since the tracer started (CPU: no wait event)"},
		{"pgwt_wait_samples_total", "Samples that found a backend in each wait event"},
		{"pgwt_waits_total", "Exact waits that ended in each wait event (exact tier: full mode or escalation windows)"},
	};
	char		ty[2 * PGWT_SERIES_LABEL_MAX];
	char		ev[2 * PGWT_SERIES_LABEL_MAX];

	for (int f = 0; f < 3; f++)
	{
		if (!ctl_prom_put(buf, cap, len, "# HELP %s %s\n# TYPE %s counter\n",
						  fam[f].name, fam[f].help, fam[f].name))
			return false;
		for (size_t i = 0; i < n; i++)
		{
			pgwt_control_prom_escape(s[i].wait_event_type, ty, sizeof(ty));
			pgwt_control_prom_escape(s[i].wait_event, ev, sizeof(ev));
			if (f == 0 ? !ctl_prom_put(buf, cap, len, "%s{wait_event_type=\"%s\",wait_event=\"%s\"} %.17g\n",
									   fam[f].name, ty, ev, s[i].seconds) :
				!ctl_prom_put(buf, cap, len, "%s{wait_event_type=\"%s\",wait_event=\"%s\"} %llu\n",
							  fam[f].name, ty, ev,
							  (unsigned long long) (f == 1 ? s[i].samples : s[i].waits)))
				return false;
		}
	}
	return true;
}

long
pgwt_control_prometheus(const pgwt_control_ops *ops, char *buf, size_t cap)
{
	pgwt_metric m[CTL_MAX_METRICS];
	size_t		n = ops->metrics(ops->arg, m, CTL_MAX_METRICS);
	size_t		len = 0;

	if (cap == 0)
		return -1;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
	{
		const char *nm = m[i].prom_name ? m[i].prom_name : m[i].name;

		if (nm[0] == '\0')
			continue;
		if (!ctl_prom_put(buf, cap, &len, "# HELP pgwt_%s %s\n# TYPE pgwt_%s %s\npgwt_%s %.17g\n",
						  nm, m[i].help, nm, m[i].counter ? "counter" : "gauge", nm, m[i].value))
			return -1;
	}
	if (ops->series)
	{
		pgwt_wait_series *s = malloc(PGWT_CONTROL_MAX_SERIES * sizeof(*s));
		bool		ok;

		if (!s)
			return -1;
		n = ops->series(ops->arg, s, PGWT_CONTROL_MAX_SERIES);
		ok = ctl_prom_series(s, n, buf, cap, &len);
		free(s);
		if (!ok)
			return -1;
	}
	return (long) len;
}
