/*
 * fuzz_esc_notify.c
 *		libFuzzer target for the escalation channel's untrusted text
 *		(tracer/esc_notify.c): any role that can connect can NOTIFY any
 *		payload, so the payload parser, the log escaping of its fields and
 *		the report built around a reason must hold on arbitrary bytes.
 *
 * Input: byte 0 picks the log buffer's size, byte 1 the input cut of the
 * escaping; the rest is the payload (NOTIFY payloads are text, so it
 * stops at a NUL). Properties beyond "no crash, no sanitizer report":
 *  - a parsed notice is an escalate of 1..PGWT_ESC_MAX_WINDOW_S seconds
 *    or a deescalate, with a terminated "by" and a pid >= 0; a refusal
 *    has a terminated reason;
 *  - the escaped log text is printable ASCII, terminated inside its
 *    buffer, and, when the buffer is big enough, unescapes to exactly the
 *    input's first max_in bytes (then "..." when it was longer);
 *  - a report whose reason is the payload is shorter than
 *    PGWT_ESC_REPORT_MAX and parses back as a flat JSON object.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_min.h"
#include "tracer/esc_notify.h"

static int
fz_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Unescapes a log text into out; returns its length, -1 when malformed. */
static long
fz_unescape(const char *s, char *out)
{
	long		n = 0;

	while (*s)
	{
		if (*s != '\\')
		{
			out[n++] = *s++;
			continue;
		}
		if (s[1] == '\\' || s[1] == '"')
		{
			out[n++] = s[1];
			s += 2;
		}
		else if (s[1] == 'x' && fz_hex(s[2]) >= 0 && fz_hex(s[3]) >= 0)
		{
			out[n++] = (char) (fz_hex(s[2]) * 16 + fz_hex(s[3]));
			s += 4;
		}
		else
			return -1;
	}
	return n;
}

static void
fz_check_escape(const char *in, size_t max_in, size_t cap)
{
	char	   *out = malloc(cap + 1);
	char	   *back;
	size_t		len,
				i,
				want;
	long		n;

	if (!out)
		return;
	out[cap] = 0x5a;			/* guard: nothing is written past cap */
	pgwt_esc_log_escape(in, max_in, out, cap);
	if (out[cap] != 0x5a)
		__builtin_trap();
	if (cap == 0)
	{
		free(out);
		return;
	}
	len = strnlen(out, cap);
	if (len == cap)
		__builtin_trap();
	for (i = 0; i < len; i++)
		if (out[i] < 0x20 || out[i] > 0x7e)
			__builtin_trap();
	want = strnlen(in, max_in);
	if (cap >= 4 * max_in + 4 && (back = malloc(len + 1)) != NULL)
	{
		bool		cut = in[want] != '\0';

		/* "..." marks a cut input */
		if (cut && (len < 3 || strcmp(out + len - 3, "...") != 0))
			__builtin_trap();
		if (cut)
			out[len - 3] = '\0';
		n = fz_unescape(out, back);
		if (n != (long) want || memcmp(back, in, want) != 0)
			__builtin_trap();
		free(back);
	}
	free(out);
}

static void
fz_check_report(const char *reason, int pid)
{
	pgwt_esc_report r = {0};
	char		buf[PGWT_ESC_REPORT_MAX];
	pgwt_json_obj obj;
	char		err[128];
	const pgwt_json_field *f;
	long		len;

	r.mode = "tiered";
	r.tier = "sampled";
	r.window_id = -1;
	r.budget_left_s = -1;
	r.request_id = -1;
	r.reason = reason;
	r.pid = pid;
	len = pgwt_esc_report_json(&r, buf, sizeof(buf));
	if (len < 0)
		return;					/* allowed: nothing fits */
	if ((size_t) len >= PGWT_ESC_REPORT_MAX || strlen(buf) != (size_t) len)
		__builtin_trap();
	if (pgwt_json_parse(buf, (size_t) len, &obj, err, sizeof(err)) != 0)
		__builtin_trap();
	f = pgwt_json_get(&obj, "reason");
	if (!f || f->type != PGWT_JSON_STRING)
		__builtin_trap();
	f = pgwt_json_get(&obj, "pid");
	if (!f || f->type != PGWT_JSON_NUMBER || f->num != pid)
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	pgwt_esc_notice nt;
	char		err[128];
	char	   *payload;
	size_t		cap,
				max_in;

	if (n < 2)
		return 0;
	cap = d[0];
	max_in = d[1] % (PGWT_ESC_LOG_MAX_IN + 8);
	payload = malloc(n - 1);
	if (!payload)
		return 0;
	memcpy(payload, d + 2, n - 2);
	payload[n - 2] = '\0';

	memset(err, 0, sizeof(err));
	if (pgwt_esc_notice_parse(payload, &nt, err, sizeof(err)) == 0)
	{
		if (nt.op == PGWT_ESC_OP_ESCALATE)
		{
			if (nt.seconds < 1 || nt.seconds > PGWT_ESC_MAX_WINDOW_S)
				__builtin_trap();
		}
		else if (nt.op != PGWT_ESC_OP_DEESCALATE)
			__builtin_trap();
		if (strnlen(nt.by, sizeof(nt.by)) == sizeof(nt.by) || nt.pid < 0 ||
			nt.be_pid != 0 || nt.role[0] != '\0')
			__builtin_trap();
		fz_check_escape(nt.by, max_in, cap);
		fz_check_escape(nt.by, PGWT_ESC_LOG_MAX_IN, 4 * PGWT_ESC_LOG_MAX_IN + 4);
	}
	else if (strnlen(err, sizeof(err)) == 0 || strnlen(err, sizeof(err)) == sizeof(err))
		__builtin_trap();
	fz_check_escape(payload, max_in, cap);
	fz_check_report(payload, (int) (n % 100000));
	free(payload);
	return 0;
}
