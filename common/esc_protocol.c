/*
 * esc_protocol.c
 *		Builders and parsers of the escalation protocol's two messages (see
 *		esc_protocol.h), over the one JSON parser and writer, json_min.c.
 */
#include "common/esc_protocol.h"

#include <stdio.h>
#include <string.h>

#include "common/json_min.h"

/* A string field into out (cut to cap); false when absent or no string. */
static bool
escp_str(const pgwt_json_obj *o, const char *key, char *out, size_t cap)
{
	const pgwt_json_field *f = pgwt_json_get(o, key);

	size_t		n;

	if (f == NULL || f->type != PGWT_JSON_STRING || cap == 0)
		return false;
	n = strnlen(f->str, cap - 1 < sizeof(f->str) ? cap - 1 : sizeof(f->str));
	memcpy(out, f->str, n);
	out[n] = '\0';
	return true;
}

static bool
escp_bool(const pgwt_json_obj *o, const char *key, bool *out)
{
	const pgwt_json_field *f = pgwt_json_get(o, key);

	if (f == NULL || f->type != PGWT_JSON_BOOL)
		return false;
	*out = f->boolean;
	return true;
}

long
pgwt_esc_notice_json(const pgwt_esc_notice *n, const char *const *classes, int nclasses,
					 char *buf, size_t cap)
{
	pgwt_json_out o;
	long		len;
	bool		esc = n->op == PGWT_ESC_OP_ESCALATE;

	pgwt_json_begin(&o, buf, cap);
	pgwt_json_str(&o, PGWT_ESCK_OP, esc ? PGWT_ESC_OP_NAME_ESCALATE : PGWT_ESC_OP_NAME_DEESCALATE);
	pgwt_json_int(&o, PGWT_ESCK_ID, n->id);
	if (esc)
	{
		pgwt_json_int(&o, PGWT_ESCK_SECONDS, n->seconds);
		if (classes == NULL)
			pgwt_json_null(&o, PGWT_ESCK_CLASSES);
		else
			pgwt_json_str_array(&o, PGWT_ESCK_CLASSES, classes, nclasses);
		pgwt_json_str(&o, PGWT_ESCK_REASON, "manual");
	}
	pgwt_json_int(&o, PGWT_ESCK_START, n->start_us);
	pgwt_json_str(&o, PGWT_ESCK_BY, n->by);
	pgwt_json_int(&o, PGWT_ESCK_PID, n->pid);
	len = pgwt_json_end(&o);
	if (len < 1)
		return -1;
	buf[--len] = '\0';			/* no newline: the payload is one SQL value */
	return len;
}

int
pgwt_esc_notice_parse(const char *payload, pgwt_esc_notice *n, char *err, size_t errlen)
{
	pgwt_json_obj obj;
	pgwt_json_obj *o = &obj;
	const pgwt_json_field *f;
	char		why[128];
	char		op[32] = "";
	long long	v;

	memset(n, 0, sizeof(*n));
	n->classes_all = true;
	if (pgwt_json_parse_nested(payload, strlen(payload), o, why, sizeof(why)) != 0)
	{
		snprintf(err, errlen, "payload is not a JSON object of the protocol: %s", why);
		return -1;
	}
	(void) escp_str(o, PGWT_ESCK_OP, op, sizeof(op));
	if (strcmp(op, PGWT_ESC_OP_NAME_ESCALATE) == 0)
		n->op = PGWT_ESC_OP_ESCALATE;
	else if (strcmp(op, PGWT_ESC_OP_NAME_DEESCALATE) == 0)
		n->op = PGWT_ESC_OP_DEESCALATE;
	else
	{
		snprintf(err, errlen, "unknown op \"%s\"", op);
		return -1;
	}
	if (!pgwt_json_get_int(o, PGWT_ESCK_ID, &n->id))
	{
		snprintf(err, errlen, "no whole-number \"%s\"", PGWT_ESCK_ID);
		return -1;
	}
	n->have_start = pgwt_json_get_int(o, PGWT_ESCK_START, &n->start_us);
	if (pgwt_json_get_int(o, PGWT_ESCK_PID, &v))
		n->pid = (v > 0 && v < (1ll << 31)) ? (int) v : 0;
	(void) escp_str(o, PGWT_ESCK_BY, n->by, sizeof(n->by));
	f = pgwt_json_get(o, PGWT_ESCK_CLASSES);
	n->classes_all = f == NULL || f->type == PGWT_JSON_NULL;
	if (n->op == PGWT_ESC_OP_DEESCALATE)
		return 0;
	f = pgwt_json_get(o, PGWT_ESCK_SECONDS);
	if (f == NULL || f->type != PGWT_JSON_NUMBER)
	{
		snprintf(err, errlen, "escalate without a positive \"seconds\"");
		return -1;
	}
	if (f->num > PGWT_ESC_MAX_WINDOW_S)
	{
		snprintf(err, errlen, "\"seconds\" over %d", PGWT_ESC_MAX_WINDOW_S);
		return -1;
	}
	if (!pgwt_json_get_int(o, PGWT_ESCK_SECONDS, &n->seconds) || n->seconds <= 0)
	{
		snprintf(err, errlen, "escalate without a positive whole \"seconds\"");
		return -1;
	}
	return 0;
}

static long
escp_report_build(const pgwt_esc_report *r, const char *reason, char *buf, size_t cap)
{
	pgwt_json_out o;

	pgwt_json_begin(&o, buf, cap);
	pgwt_json_str(&o, PGWT_ESCR_MODE, r->mode ? r->mode : "");
	pgwt_json_str(&o, PGWT_ESCR_TIER, r->tier ? r->tier : "");
	pgwt_json_bool(&o, PGWT_ESCR_EXACT, r->exact);
	pgwt_json_bool(&o, PGWT_ESCR_WINDOW_OPEN, r->window_open);
	pgwt_json_int(&o, PGWT_ESCR_WINDOW_ID, r->window_id);
	pgwt_json_int(&o, PGWT_ESCR_SECONDS_LEFT, r->seconds_left);
	pgwt_json_int(&o, PGWT_ESCR_BUDGET_LEFT, r->budget_left_s);
	pgwt_json_int(&o, PGWT_ESCR_GRANTED, r->granted_s);
	pgwt_json_int(&o, PGWT_ESCR_REQUEST_ID, r->request_id);
	pgwt_json_int(&o, PGWT_ESCR_REQUEST_PID, r->request_pid);
	pgwt_json_int(&o, PGWT_ESCR_LISTENING, r->listening);
	pgwt_json_int(&o, PGWT_ESCR_PID, r->pid);
	pgwt_json_str(&o, PGWT_ESCR_REASON, reason);
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
	/* the reader keeps strings shorter than PGWT_JSON_MAX_STR bytes */
	if (rlen > PGWT_JSON_MAX_STR - 1)
	{
		rlen = PGWT_JSON_MAX_STR - 1;
		while (rlen > 0 && ((unsigned char) reason[rlen] & 0xC0) == 0x80)
			rlen--;
		reason[rlen] = '\0';
	}
	/* cut the reason until the object (without its '\n') fits */
	for (;;)
	{
		len = escp_report_build(r, reason, tmp, sizeof(tmp));
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

int
pgwt_esc_report_parse(const char *state, pgwt_esc_report_view *v)
{
	pgwt_json_obj obj;
	char		why[128];

	memset(v, 0, sizeof(*v));
	if (state == NULL ||
		pgwt_json_parse_nested(state, strlen(state), &obj, why, sizeof(why)) != 0)
		return -1;
	(void) escp_str(&obj, PGWT_ESCR_MODE, v->mode, sizeof(v->mode));
	(void) escp_str(&obj, PGWT_ESCR_TIER, v->tier, sizeof(v->tier));
	(void) escp_str(&obj, PGWT_ESCR_REASON, v->reason, sizeof(v->reason));
	v->has_exact = escp_bool(&obj, PGWT_ESCR_EXACT, &v->exact);
	(void) escp_bool(&obj, PGWT_ESCR_WINDOW_OPEN, &v->window_open);
	v->has_window_id = pgwt_json_get_int(&obj, PGWT_ESCR_WINDOW_ID, &v->window_id);
	v->has_seconds_left = pgwt_json_get_int(&obj, PGWT_ESCR_SECONDS_LEFT, &v->seconds_left);
	v->has_budget_left = pgwt_json_get_int(&obj, PGWT_ESCR_BUDGET_LEFT, &v->budget_left_s);
	v->has_request_id = pgwt_json_get_int(&obj, PGWT_ESCR_REQUEST_ID, &v->request_id);
	v->has_request_pid = pgwt_json_get_int(&obj, PGWT_ESCR_REQUEST_PID, &v->request_pid);
	return 0;
}
