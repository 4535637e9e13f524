/*
 * control.c
 *		The control protocol's pure part (see control.h): the answer to one
 *		request line, for a peer of a given class, the Prometheus text, and
 *		who may use the control socket. No I/O: the sockets are in
 *		ctl_server.c and ctl_sockfile.c.
 */
#include <stdio.h>
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

long
pgwt_control_prometheus(const pgwt_control_ops *ops, char *buf, size_t cap)
{
	pgwt_metric m[CTL_MAX_METRICS];
	size_t		n = ops->metrics(ops->arg, m, CTL_MAX_METRICS);
	size_t		len = 0;

	for (size_t i = 0; i < n; i++)
	{
		int			w = snprintf(buf + len, cap - len,
								 "# HELP pgwt_%s %s\n# TYPE pgwt_%s %s\npgwt_%s %.17g\n",
								 m[i].name, m[i].help, m[i].name,
								 m[i].counter ? "counter" : "gauge", m[i].name, m[i].value);

		if (w < 0 || (size_t) w >= cap - len)
			return -1;
		len += (size_t) w;
	}
	return (long) len;
}

