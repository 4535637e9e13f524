/*
 * esc_notify.c
 *		Pure logic of the SQL escalation channel (see esc_notify.h): the
 *		payload parser, the sender's authorization verdict, the log
 *		escaping, the reconnect backoff, the report builder and the set of
 *		the channel's own backends.
 *
 * The payload is a flat JSON object whose "classes" value may be an array;
 * the control socket's parser (json_min) refuses nesting on purpose, so the
 * few keys needed here are read by a small walker that skips any value it
 * does not need, arrays and objects included.
 */
#include "tracer/esc_notify.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/control/json_min.h"

#define ESCN_BACKOFF_FIRST_NS	1000000000ull
#define ESCN_BACKOFF_MAX_NS		60000000000ull

static const char *
escn_ws(const char *p)
{
	while (*p && isspace((unsigned char) *p))
		p++;
	return p;
}

/* A JSON string at p (at its opening quote) into out; returns past it. */
static const char *
escn_string(const char *p, char *out, size_t cap)
{
	size_t		n = 0;

	if (*p != '"')
		return NULL;
	for (p++; *p && *p != '"'; p++)
	{
		char		c = *p;

		if (c == '\\')
		{
			p++;
			if (!*p)
				return NULL;
			if (*p == 'u')
			{
				/* \uXXXX: kept as '?', the names we read are ASCII */
				for (int i = 0; i < 4; i++)
					if (!isxdigit((unsigned char) *++p))
						return NULL;
				c = '?';
			}
			else
				c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
		}
		if (out && n + 1 < cap)
			out[n++] = c;
	}
	if (*p != '"')
		return NULL;
	if (out && cap)
		out[n] = '\0';
	return p + 1;
}

/* Skip one value of any kind; returns past it, NULL when malformed. */
static const char *
escn_skip(const char *p)
{
	int			depth = 0;

	do
	{
		p = escn_ws(p);
		if (*p == '"')
			p = escn_string(p, NULL, 0);
		else if (*p == '[' || *p == '{')
		{
			depth++;
			p++;
		}
		else if ((*p == ']' || *p == '}') && depth > 0)
		{
			depth--;
			p++;
		}
		else if (*p == ',' && depth > 0)
			p++;
		else if (*p == ':' && depth > 0)
			p++;
		else if (*p && strchr("-0123456789tfn", *p))
		{
			while (*p && (isalnum((unsigned char) *p) || strchr("+-.", *p)))
				p++;
		}
		else
			return NULL;
		if (!p)
			return NULL;
	} while (depth > 0);
	return p;
}

/* An integer value; returns past it. */
static const char *
escn_int(const char *p, long long *out)
{
	char	   *end;

	*out = strtoll(p, &end, 10);
	if (end == p || *end == '.' || *end == 'e' || *end == 'E')
		return NULL;
	return end;
}

int
pgwt_esc_notice_parse(const char *payload, pgwt_esc_notice *n, char *err, size_t errlen)
{
	const char *p = escn_ws(payload);
	char		op[32] = "";
	bool		have_id = false,
				have_seconds = false;

	memset(n, 0, sizeof(*n));
	n->classes_all = true;
	if (*p != '{')
	{
		snprintf(err, errlen, "payload is not a JSON object");
		return -1;
	}
	p = escn_ws(p + 1);
	while (*p && *p != '}')
	{
		char		key[64];
		long long	v;

		p = escn_string(p, key, sizeof(key));
		if (!p || *(p = escn_ws(p)) != ':')
		{
			snprintf(err, errlen, "malformed payload");
			return -1;
		}
		p = escn_ws(p + 1);
		if (strcmp(key, "op") == 0)
			p = escn_string(p, op, sizeof(op));
		else if (strcmp(key, "by") == 0)
			p = escn_string(p, n->by, sizeof(n->by));
		else if (strcmp(key, "id") == 0 || strcmp(key, "seconds") == 0 ||
				 strcmp(key, "pid") == 0 || strcmp(key, "backend_start_us") == 0)
		{
			p = escn_int(p, &v);
			if (p && key[0] == 'i')
				n->id = v, have_id = true;
			else if (p && key[0] == 's')
				n->seconds = v, have_seconds = true;
			else if (p && key[0] == 'b')
				n->start_us = v, n->have_start = true;
			else if (p)
				n->pid = (v > 0 && v < (1ll << 31)) ? (int) v : 0;
		}
		else
		{
			if (strcmp(key, "classes") == 0)
				n->classes_all = strncmp(p, "null", 4) == 0;
			p = escn_skip(p);
		}
		if (!p)
		{
			snprintf(err, errlen, "malformed value of \"%s\"", key);
			return -1;
		}
		p = escn_ws(p);
		if (*p == ',')
			p = escn_ws(p + 1);
		else if (*p != '}')
		{
			snprintf(err, errlen, "malformed payload");
			return -1;
		}
	}
	if (*p != '}')
	{
		snprintf(err, errlen, "payload is not closed");
		return -1;
	}
	if (strcmp(op, "escalate") == 0)
		n->op = PGWT_ESC_OP_ESCALATE;
	else if (strcmp(op, "deescalate") == 0)
		n->op = PGWT_ESC_OP_DEESCALATE;
	else
	{
		snprintf(err, errlen, "unknown op \"%s\"", op);
		return -1;
	}
	if (!have_id)
	{
		snprintf(err, errlen, "no id");
		return -1;
	}
	if (n->op == PGWT_ESC_OP_ESCALATE && (!have_seconds || n->seconds <= 0))
	{
		snprintf(err, errlen, "escalate without a positive \"seconds\"");
		return -1;
	}
	if (n->op == PGWT_ESC_OP_ESCALATE && n->seconds > PGWT_ESC_MAX_WINDOW_S)
	{
		snprintf(err, errlen, "\"seconds\" over %d", PGWT_ESC_MAX_WINDOW_S);
		return -1;
	}
	return 0;
}

pgwt_esc_verdict
pgwt_esc_authorize(const pgwt_esc_notice *n, const pgwt_esc_sender *s)
{
	if (!n->have_start)
		return PGWT_ESC_REFUSED_NO_START;
	if (!s || !s->found)
		return PGWT_ESC_REFUSED_GONE;
	if (s->start_us != n->start_us)
		return PGWT_ESC_REFUSED_START;
	if (!(n->op == PGWT_ESC_OP_ESCALATE ? s->may_escalate : s->may_deescalate))
		return PGWT_ESC_REFUSED_PRIVILEGE;
	return PGWT_ESC_AUTHORIZED;
}

const char *
pgwt_esc_verdict_text(pgwt_esc_verdict v)
{
	switch (v)
	{
		case PGWT_ESC_AUTHORIZED:
			return "authorized";
		case PGWT_ESC_REFUSED_NO_START:
			return "not authorized: the payload has no backend_start_us";
		case PGWT_ESC_REFUSED_GONE:
			return "not authorized: the sending backend is gone (or in another database)";
		case PGWT_ESC_REFUSED_START:
			return "not authorized: the sending backend's start time differs from the payload's";
		case PGWT_ESC_REFUSED_PRIVILEGE:
			return "not authorized: the sender's role may not execute the function";
		case PGWT_ESC_REFUSED_UNVERIFIED:
			return "not authorized: the sender could not be looked up";
		case PGWT_ESC_REFUSED_BUSY:
			return "not authorized: too many requests waiting for a look-up";
	}
	return "not authorized";
}

char *
pgwt_esc_log_escape(const char *in, size_t max_in, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t		n = 0,
				i;

	if (cap == 0)
		return out;
	if (!in)
		in = "";
	for (i = 0; in[i] && i < max_in; i++)
	{
		unsigned char c = (unsigned char) in[i];
		char		e[4];
		size_t		len;

		if (c == '\\' || c == '"')
		{
			e[0] = '\\';
			e[1] = (char) c;
			len = 2;
		}
		else if (c >= 0x20 && c < 0x7f)
		{
			e[0] = (char) c;
			len = 1;
		}
		else
		{
			e[0] = '\\';
			e[1] = 'x';
			e[2] = hex[c >> 4];
			e[3] = hex[c & 15];
			len = 4;
		}
		/* room for this, "..." and the terminator, else stop here */
		if (n + len + 4 > cap)
			break;
		memcpy(out + n, e, len);
		n += len;
	}
	if (in[i] && cap >= 4 && n + 4 <= cap)
	{
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n < cap ? n : cap - 1] = '\0';
	return out;
}

uint64_t
pgwt_esc_backoff_ns(int failures)
{
	uint64_t	d = ESCN_BACKOFF_FIRST_NS;

	for (int i = 1; i < failures && d < ESCN_BACKOFF_MAX_NS; i++)
		d *= 2;
	return d < ESCN_BACKOFF_MAX_NS ? d : ESCN_BACKOFF_MAX_NS;
}

static long
escn_report_build(const pgwt_esc_report *r, const char *reason, char *buf, size_t cap)
{
	pgwt_json_out o;

	pgwt_json_begin(&o, buf, cap);
	pgwt_json_str(&o, "mode", r->mode ? r->mode : "");
	pgwt_json_str(&o, "tier", r->tier ? r->tier : "");
	pgwt_json_bool(&o, "exact", r->exact);
	pgwt_json_bool(&o, "window_open", r->window_open);
	pgwt_json_int(&o, "window_id", r->window_id);
	pgwt_json_int(&o, "seconds_left", r->seconds_left);
	pgwt_json_int(&o, "budget_left_s", r->budget_left_s);
	pgwt_json_int(&o, "granted_s", r->granted_s);
	pgwt_json_int(&o, "request_id", r->request_id);
	pgwt_json_int(&o, "listening", r->listening);
	pgwt_json_int(&o, "pid", r->pid);
	pgwt_json_str(&o, "reason", reason);
	return pgwt_json_end(&o);
}

long
pgwt_esc_report_json(const pgwt_esc_report *r, char *buf, size_t cap)
{
	char		tmp[PGWT_ESC_REPORT_MAX + 8];
	char		reason[PGWT_ESC_REPORT_MAX];
	size_t		rlen;
	long		len;

	snprintf(reason, sizeof(reason), "%s", r->reason ? r->reason : "");
	rlen = strlen(reason);
	/* cut the reason until the object (without its '\n') fits */
	for (;;)
	{
		len = escn_report_build(r, reason, tmp, sizeof(tmp));
		if (len > 0 && (size_t) len - 1 < PGWT_ESC_REPORT_MAX)
			break;
		if (rlen == 0)
			return -1;
		rlen = rlen > 16 ? rlen - 16 : 0;
		/* never in the middle of a UTF-8 sequence */
		while (rlen > 0 && ((unsigned char) reason[rlen] & 0xC0) == 0x80)
			rlen--;
		reason[rlen] = '\0';
	}
	len--;						/* no newline: the report is one SQL value */
	if ((size_t) len + 1 > cap)
		return -1;
	memcpy(buf, tmp, (size_t) len);
	buf[len] = '\0';
	return len;
}

/* Rebuild the derived fields after a slot changed. */
static void
escn_own_update(pgwt_own_backends *o)
{
	o->npids = 0;
	o->connecting_since_ns = 0;
	for (int k = 0; k < PGWT_OWN_SLOTS; k++)
	{
		uint32_t	pid = o->slot_pid[k];
		int			i;

		if (o->slot_since_ns[k] == 0)
			continue;
		if (pid == 0)
		{
			if (o->connecting_since_ns == 0 || o->slot_since_ns[k] < o->connecting_since_ns)
				o->connecting_since_ns = o->slot_since_ns[k];
			continue;
		}
		/* insertion keeps pids sorted; a pid twice is kept once */
		for (i = o->npids; i > 0 && o->pids[i - 1] > pid; i--)
			o->pids[i] = o->pids[i - 1];
		if (i > 0 && o->pids[i - 1] == pid)
		{
			memmove(&o->pids[i], &o->pids[i + 1], (size_t) (o->npids - i) * sizeof(uint32_t));
			continue;
		}
		o->pids[i] = pid;
		o->npids++;
	}
	o->generation++;
}

void
pgwt_own_connecting(pgwt_own_backends *o, int slot, uint64_t now_ns)
{
	if (slot < 0 || slot >= PGWT_OWN_SLOTS)
		return;
	o->slot_pid[slot] = 0;
	o->slot_since_ns[slot] = now_ns ? now_ns : 1;
	escn_own_update(o);
}

void
pgwt_own_connected(pgwt_own_backends *o, int slot, uint32_t pid)
{
	if (slot < 0 || slot >= PGWT_OWN_SLOTS || o->slot_since_ns[slot] == 0)
		return;
	o->slot_pid[slot] = pid;
	escn_own_update(o);
}

void
pgwt_own_closed(pgwt_own_backends *o, int slot)
{
	if (slot < 0 || slot >= PGWT_OWN_SLOTS || o->slot_since_ns[slot] == 0)
		return;
	o->slot_pid[slot] = 0;
	o->slot_since_ns[slot] = 0;
	escn_own_update(o);
}

bool
pgwt_own_has(const pgwt_own_backends *o, uint32_t pid)
{
	int			lo = 0,
				hi = o->npids;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (o->pids[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->npids && o->pids[lo] == pid;
}

uint64_t
pgwt_own_hold_since(const pgwt_own_backends *o, uint64_t now_ns)
{
	uint64_t	since = o->connecting_since_ns;

	if (since == 0 || (now_ns > since && now_ns - since >= PGWT_OWN_HOLD_MAX_NS))
		return UINT64_MAX;
	return since;
}
