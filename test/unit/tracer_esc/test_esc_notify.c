/*
 * test_esc_notify.c
 *		Unit tests of the escalation protocol (common/esc_protocol.c: the
 *		NOTIFY payloads as the extension builds them, malformed ones, the
 *		report both ways) and of tracer/esc_notify.c: the
 *		sender's authorization verdict, the escaping of database text for
 *		the log, the reconnect backoff, the size bound of the state report, and the set
 *		of the channel's own backends that capture leaves out.
 */
#include <stdio.h>
#include <string.h>

#include "common/json_min.h"
#include "tracer/esc_notify.h"

static int	failures = 0;

#define CHECK(name, cond) do { \
	if (cond) printf("PASS %s\n", name); \
	else { printf("FAIL %s: %s:%d: %s\n", name, __FILE__, __LINE__, #cond); failures++; } \
} while (0)

static void
test_parse(void)
{
	pgwt_esc_notice n;
	char		err[128];
	int			rc;

	rc = pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":7,\"seconds\":5,\"classes\":null,"
							   "\"reason\":\"manual\",\"by\":\"postgres\",\"pid\":4242}", &n, err, sizeof(err));
	CHECK("esc-parse-escalate", rc == 0 && n.op == PGWT_ESC_OP_ESCALATE && n.id == 7 &&
		  n.seconds == 5 && n.classes_all && n.pid == 4242 && strcmp(n.by, "postgres") == 0);

	rc = pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":8,\"seconds\":30,\"classes\":[\"Lock\",\"LWLock\"],"
							   "\"reason\":\"manual\",\"by\":\"a \\\"quoted\\\" role\",\"pid\":1}", &n, err, sizeof(err));
	CHECK("esc-parse-classes-array-skipped", rc == 0 && n.id == 8 && n.seconds == 30 &&
		  !n.classes_all && strcmp(n.by, "a \"quoted\" role") == 0);

	rc = pgwt_esc_notice_parse(" { \"op\" : \"deescalate\" , \"id\" : 9 , \"by\" : \"x\" , \"pid\" : 3 } ",
							   &n, err, sizeof(err));
	CHECK("esc-parse-deescalate-spaces", rc == 0 && n.op == PGWT_ESC_OP_DEESCALATE && n.id == 9);

	rc = pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":1,\"future\":{\"a\":[1,{\"b\":\"]\"}]},\"seconds\":2}",
							   &n, err, sizeof(err));
	CHECK("esc-parse-unknown-nested-skipped", rc == 0 && n.seconds == 2);

	CHECK("esc-parse-rejects-not-object",
		  pgwt_esc_notice_parse("escalate 5", &n, err, sizeof(err)) == -1 && strstr(err, "object"));
	CHECK("esc-parse-rejects-unknown-op",
		  pgwt_esc_notice_parse("{\"op\":\"explode\",\"id\":1}", &n, err, sizeof(err)) == -1 &&
		  strstr(err, "unknown op"));
	CHECK("esc-parse-rejects-no-seconds",
		  pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":1}", &n, err, sizeof(err)) == -1);
	CHECK("esc-parse-rejects-zero-seconds",
		  pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":1,\"seconds\":0}", &n, err, sizeof(err)) == -1);
	CHECK("esc-parse-rejects-fraction",
		  pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":1,\"seconds\":1.5}", &n, err, sizeof(err)) == -1);
	CHECK("esc-parse-rejects-no-id",
		  pgwt_esc_notice_parse("{\"op\":\"deescalate\"}", &n, err, sizeof(err)) == -1);
	CHECK("esc-parse-rejects-truncated",
		  pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":1,\"seconds\":5", &n, err, sizeof(err)) == -1);
	CHECK("esc-parse-rejects-unterminated-string",
		  pgwt_esc_notice_parse("{\"op\":\"escal", &n, err, sizeof(err)) == -1);
	CHECK("esc-parse-rejects-open-array",
		  pgwt_esc_notice_parse("{\"op\":\"escalate\",\"classes\":[\"Lock\",", &n, err, sizeof(err)) == -1);
	CHECK("esc-parse-rejects-empty", pgwt_esc_notice_parse("", &n, err, sizeof(err)) == -1);
}

static void
test_backoff(void)
{
	CHECK("esc-backoff-first-1s", pgwt_esc_backoff_ns(1) == 1000000000ull);
	CHECK("esc-backoff-doubles", pgwt_esc_backoff_ns(2) == 2000000000ull &&
		  pgwt_esc_backoff_ns(4) == 8000000000ull);
	CHECK("esc-backoff-capped-60s", pgwt_esc_backoff_ns(7) == 60000000000ull &&
		  pgwt_esc_backoff_ns(1000) == 60000000000ull);
}

static void
test_report(void)
{
	pgwt_esc_report r;
	char		buf[PGWT_ESC_REPORT_MAX];
	char		longr[600];
	long		len;

	memset(&r, 0, sizeof(r));
	r.mode = "tiered";
	r.tier = "escalated";
	r.window_open = true;
	r.window_id = 3;
	r.seconds_left = 4;
	r.budget_left_s = 295;
	r.granted_s = 5;
	r.request_id = 12;
	r.reason = "granted";
	r.listening = 1;
	r.pid = 777;
	r.exact = true;
	len = pgwt_esc_report_json(&r, buf, sizeof(buf));
	CHECK("esc-report-fields", len > 0 && (size_t) len == strlen(buf) &&
		  strcmp(buf, "{\"mode\":\"tiered\",\"tier\":\"escalated\",\"exact\":true,\"window_open\":true,\"window_id\":3,"
				 "\"seconds_left\":4,\"budget_left_s\":295,\"granted_s\":5,\"request_id\":12,\"request_pid\":0,"
				 "\"listening\":1,\"pid\":777,\"reason\":\"granted\"}") == 0);

	memset(longr, 'x', sizeof(longr) - 1);
	longr[sizeof(longr) - 1] = '\0';
	memcpy(longr, "no exact tier: \xc3\xa9\xc3\xa9\xc3\xa9", 21);
	r.reason = longr;
	len = pgwt_esc_report_json(&r, buf, sizeof(buf));
	CHECK("esc-report-long-reason-cut", len > 0 && len < PGWT_ESC_REPORT_MAX &&
		  strstr(buf, "\"reason\":\"no exact tier") != NULL && buf[len - 1] == '}');
	CHECK("esc-report-small-buffer-refused", pgwt_esc_report_json(&r, buf, 16) == -1);

	/* every number at its widest: a reason the reader can hold stays whole */
	{
		pgwt_esc_report_view v;
		char		mid[PGWT_JSON_MAX_STR];

		memset(mid, 'y', sizeof(mid) - 1);
		mid[sizeof(mid) - 1] = '\0';
		r.reason = mid;
		r.window_id = r.seconds_left = r.budget_left_s = r.granted_s = r.request_id = -9223372036854775807LL;
		r.listening = r.pid = -2147483647;
		len = pgwt_esc_report_json(&r, buf, sizeof(buf));
		CHECK("esc-report-widest-reason-whole", len > 0 && pgwt_esc_report_parse(buf, &v) == 0 &&
			  strcmp(v.reason, mid) == 0 && v.has_exact);
		r.reason = longr;
		len = pgwt_esc_report_json(&r, buf, sizeof(buf));
		CHECK("esc-report-too-long-reason-parses", len > 0 && pgwt_esc_report_parse(buf, &v) == 0 &&
			  strlen(v.reason) == PGWT_JSON_MAX_STR - 1 && v.has_exact);
	}
}

static void
test_own_backends(void)
{
	pgwt_own_backends o;
	uint64_t	g;

	memset(&o, 0, sizeof(o));
	CHECK("own-empty", !pgwt_own_has(&o, 0) && !pgwt_own_has(&o, 42) &&
		  pgwt_own_hold_since(&o, 1000) == UINT64_MAX);

	/* slot 3 connects at t=1000: backends seen from then on are held */
	pgwt_own_connecting(&o, 3, 1000);
	CHECK("own-connecting-holds", pgwt_own_hold_since(&o, 1500) == 1000 && o.npids == 0);
	CHECK("own-hold-bounded",
		  pgwt_own_hold_since(&o, 1000 + PGWT_OWN_HOLD_MAX_NS) == UINT64_MAX &&
		  pgwt_own_hold_since(&o, 999 + PGWT_OWN_HOLD_MAX_NS) == 1000);
	g = o.generation;
	pgwt_own_connected(&o, 3, 500);
	CHECK("own-connected-known", pgwt_own_has(&o, 500) && o.generation != g &&
		  pgwt_own_hold_since(&o, 1500) == UINT64_MAX);

	/* more slots: kept sorted, the oldest connect in flight holds */
	pgwt_own_connecting(&o, 0, 2000);
	pgwt_own_connected(&o, 0, 900);
	pgwt_own_connecting(&o, 7, 3000);
	pgwt_own_connected(&o, 7, 100);
	pgwt_own_connecting(&o, 9, 5000);
	pgwt_own_connecting(&o, 8, 4000);
	CHECK("own-sorted", o.npids == 3 && o.pids[0] == 100 && o.pids[1] == 500 && o.pids[2] == 900);
	CHECK("own-oldest-connect-holds", pgwt_own_hold_since(&o, 6000) == 4000);
	CHECK("own-lookup", pgwt_own_has(&o, 100) && pgwt_own_has(&o, 900) &&
		  !pgwt_own_has(&o, 101) && !pgwt_own_has(&o, 0) && !pgwt_own_has(&o, 4000000000u));

	/* a reconnect replaces the pid; a closed slot forgets it */
	pgwt_own_closed(&o, 3);
	CHECK("own-closed-forgets", !pgwt_own_has(&o, 500) && o.npids == 2);
	pgwt_own_connecting(&o, 3, 7000);
	CHECK("own-reconnect-no-old-pid", !pgwt_own_has(&o, 500));
	pgwt_own_connected(&o, 3, 600);
	CHECK("own-reconnect-new-pid", pgwt_own_has(&o, 600) && !pgwt_own_has(&o, 500) && o.npids == 3);
	pgwt_own_closed(&o, 8);
	pgwt_own_closed(&o, 9);
	CHECK("own-no-connect-in-flight", pgwt_own_hold_since(&o, 7001) == UINT64_MAX);

	/* the same pid in two slots (a stale slot) is listed once */
	pgwt_own_connecting(&o, 12, 8000);
	pgwt_own_connected(&o, 12, 600);
	CHECK("own-duplicate-once", o.npids == 3 && o.pids[0] == 100 && o.pids[1] == 600 && o.pids[2] == 900);
	pgwt_own_closed(&o, 12);
	CHECK("own-duplicate-still-held-by-other-slot", pgwt_own_has(&o, 600));

	/* every slot at once; bad slots change nothing */
	memset(&o, 0, sizeof(o));
	for (int k = 0; k < PGWT_OWN_SLOTS; k++)
	{
		pgwt_own_connecting(&o, k, 10 + (uint64_t) k);
		pgwt_own_connected(&o, k, (uint32_t) (1000 - k));
	}
	g = o.generation;
	pgwt_own_connecting(&o, -1, 5);
	pgwt_own_connecting(&o, PGWT_OWN_SLOTS, 5);
	pgwt_own_connected(&o, PGWT_OWN_SLOTS, 5);
	pgwt_own_closed(&o, -1);
	CHECK("own-full-and-bad-slots", o.npids == PGWT_OWN_SLOTS && o.pids[0] == 1000 - PGWT_OWN_SLOTS + 1 &&
		  o.pids[PGWT_OWN_SLOTS - 1] == 1000 && o.generation == g && !pgwt_own_has(&o, 5));
	/* connected without connecting first: not a slot in use */
	memset(&o, 0, sizeof(o));
	pgwt_own_connected(&o, 1, 77);
	CHECK("own-connected-needs-connecting", !pgwt_own_has(&o, 77));
}

/* The bound on seconds, and the sender's start time in the payload. */
static void
test_parse_bounds(void)
{
	pgwt_esc_notice n;
	char		err[128];
	int			rc;

	rc = pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":7,\"seconds\":86400,\"classes\":null,"
							   "\"reason\":\"manual\",\"backend_start_us\":1765432109876543,"
							   "\"by\":\"dba\",\"pid\":42}", &n, err, sizeof(err));
	CHECK("esc-parse-start-and-max-seconds", rc == 0 && n.seconds == 86400 && n.have_start &&
		  n.start_us == 1765432109876543ll && n.be_pid == 0 && n.role[0] == '\0');
	rc = pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":7,\"seconds\":86401,\"backend_start_us\":1}",
							   &n, err, sizeof(err));
	CHECK("esc-parse-rejects-over-max-seconds", rc == -1 && strstr(err, "86400"));
	rc = pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":7,\"seconds\":99999999999999999999999}",
							   &n, err, sizeof(err));
	CHECK("esc-parse-rejects-overflowing-seconds", rc == -1);
	rc = pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":7,\"seconds\":9223372036854775807}",
							   &n, err, sizeof(err));
	CHECK("esc-parse-rejects-int64-max-seconds", rc == -1);
	rc = pgwt_esc_notice_parse("{\"op\":\"deescalate\",\"id\":8,\"by\":\"x\",\"pid\":3}", &n, err, sizeof(err));
	CHECK("esc-parse-no-start", rc == 0 && !n.have_start);
}

static void
test_authorize(void)
{
	pgwt_esc_notice n;
	pgwt_esc_sender w;
	char		err[128];

	pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":1,\"seconds\":5,\"backend_start_us\":1000,"
						  "\"by\":\"postgres\",\"pid\":1}", &n, err, sizeof(err));
	n.be_pid = 4242;
	memset(&w, 0, sizeof(w));
	w.found = true;
	w.start_us = 1000;
	w.may_escalate = true;
	CHECK("esc-auth-granted-role", pgwt_esc_authorize(&n, &w) == PGWT_ESC_AUTHORIZED);
	/* the payload's "by" and "pid" name postgres: the sender's role decides */
	w.may_escalate = false;
	w.may_deescalate = true;
	CHECK("esc-auth-plain-role-refused", pgwt_esc_authorize(&n, &w) == PGWT_ESC_REFUSED_PRIVILEGE);
	w.may_escalate = true;
	w.start_us = 1001;
	CHECK("esc-auth-pid-reused-refused", pgwt_esc_authorize(&n, &w) == PGWT_ESC_REFUSED_START);
	w.start_us = 1000;
	w.found = false;
	CHECK("esc-auth-sender-gone-refused", pgwt_esc_authorize(&n, &w) == PGWT_ESC_REFUSED_GONE &&
		  pgwt_esc_authorize(&n, NULL) == PGWT_ESC_REFUSED_GONE);
	w.found = true;
	n.have_start = false;
	CHECK("esc-auth-no-start-refused", pgwt_esc_authorize(&n, &w) == PGWT_ESC_REFUSED_NO_START);
	/* deescalate needs EXECUTE on pgwt_deescalate(), not on pgwt_escalate() */
	pgwt_esc_notice_parse("{\"op\":\"deescalate\",\"id\":2,\"backend_start_us\":1000}", &n, err, sizeof(err));
	w.may_escalate = true;
	w.may_deescalate = false;
	CHECK("esc-auth-deescalate-needs-its-grant", pgwt_esc_authorize(&n, &w) == PGWT_ESC_REFUSED_PRIVILEGE);
	w.may_deescalate = true;
	CHECK("esc-auth-deescalate-granted", pgwt_esc_authorize(&n, &w) == PGWT_ESC_AUTHORIZED);
	CHECK("esc-auth-texts", strstr(pgwt_esc_verdict_text(PGWT_ESC_REFUSED_PRIVILEGE), "not authorized") &&
		  strcmp(pgwt_esc_verdict_text(PGWT_ESC_AUTHORIZED), "authorized") == 0 &&
		  strstr(pgwt_esc_verdict_text(PGWT_ESC_REFUSED_BUSY), "waiting"));
}

static void
test_log_escape(void)
{
	char		out[4 * PGWT_ESC_LOG_MAX_IN + 4];
	char		big[1000];
	char		small[8];

	pgwt_esc_log_escape("postgres\npg_wait_tracer: exact window opened\r\x1b[2J", PGWT_ESC_LOG_MAX_IN,
						out, sizeof(out));
	CHECK("esc-log-escape-controls", strcmp(out, "postgres\\x0apg_wait_tracer: exact window opened\\x0d\\x1b[2J") == 0 &&
		  strchr(out, '\n') == NULL);
	pgwt_esc_log_escape("a\"b\\c \xc3\xa9", PGWT_ESC_LOG_MAX_IN, out, sizeof(out));
	CHECK("esc-log-escape-quotes-high-bytes", strcmp(out, "a\\\"b\\\\c \\xc3\\xa9") == 0);
	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pgwt_esc_log_escape(big, PGWT_ESC_LOG_MAX_IN, out, sizeof(out));
	CHECK("esc-log-escape-bounded", strlen(out) == 4 * PGWT_ESC_LOG_MAX_IN + 3 &&
		  strcmp(out + strlen(out) - 3, "...") == 0);
	pgwt_esc_log_escape(big, sizeof(big), small, sizeof(small));
	CHECK("esc-log-escape-small-buffer", strcmp(small, "\\x0a...") == 0);
	pgwt_esc_log_escape(NULL, 10, out, sizeof(out));
	CHECK("esc-log-escape-null", out[0] == '\0');
	pgwt_esc_log_escape("abc", 10, small, 1);
	CHECK("esc-log-escape-one-byte", small[0] == '\0');
}

/* The extension's builder and the tracer's parser agree (one protocol). */
static void
test_protocol_round_trip(void)
{
	pgwt_esc_notice in,
				out;
	const char *classes[] = {"Lock", "LWLock"};
	char		buf[1024];
	char		err[128];
	long		len;
	pgwt_esc_report r = {0};
	pgwt_esc_report_view v;

	memset(&in, 0, sizeof(in));
	in.op = PGWT_ESC_OP_ESCALATE;
	in.id = 4294967295ll;
	in.seconds = 30;
	in.start_us = 1764633600123456ll;
	in.pid = 4242;
	snprintf(in.by, sizeof(in.by), "ro\"le\n\\x");
	len = pgwt_esc_notice_json(&in, classes, 2, buf, sizeof(buf));
	CHECK("esc-proto-payload-built", len > 0 && (size_t) len == strlen(buf) &&
		  strncmp(buf, "{\"op\":\"escalate\",\"id\":4294967295,\"seconds\":30,\"classes\":[\"Lock\",\"LWLock\"],"
				  "\"reason\":\"manual\",\"backend_start_us\":1764633600123456,", 113) == 0 &&
		  buf[len - 1] == '}');
	CHECK("esc-proto-payload-parsed",
		  pgwt_esc_notice_parse(buf, &out, err, sizeof(err)) == 0 &&
		  out.op == in.op && out.id == in.id && out.seconds == 30 && !out.classes_all &&
		  out.have_start && out.start_us == in.start_us && out.pid == 4242 &&
		  strcmp(out.by, in.by) == 0);
	in.op = PGWT_ESC_OP_DEESCALATE;
	len = pgwt_esc_notice_json(&in, NULL, 0, buf, sizeof(buf));
	CHECK("esc-proto-deescalate", len > 0 && strstr(buf, "seconds") == NULL &&
		  pgwt_esc_notice_parse(buf, &out, err, sizeof(err)) == 0 &&
		  out.op == PGWT_ESC_OP_DEESCALATE && out.id == in.id);
	in.op = PGWT_ESC_OP_ESCALATE;
	len = pgwt_esc_notice_json(&in, NULL, 0, buf, sizeof(buf));
	CHECK("esc-proto-all-classes-null", len > 0 && strstr(buf, "\"classes\":null") &&
		  pgwt_esc_notice_parse(buf, &out, err, sizeof(err)) == 0 && out.classes_all);
	CHECK("esc-proto-small-buffer", pgwt_esc_notice_json(&in, NULL, 0, buf, 20) == -1);
	/* what psql's json_build_object writes (spaces) parses the same */
	CHECK("esc-proto-json-build-object",
		  pgwt_esc_notice_parse("{\"op\" : \"escalate\", \"id\" : 900, \"seconds\" : 30, \"classes\" : null, "
								"\"reason\" : \"manual\", \"backend_start_us\" : 1764633600123456, "
								"\"by\" : \"x\", \"pid\" : 7}", &out, err, sizeof(err)) == 0 &&
		  out.id == 900 && out.seconds == 30 && out.start_us == 1764633600123456ll);
	CHECK("esc-proto-rejects-duplicate-key",
		  pgwt_esc_notice_parse("{\"op\":\"escalate\",\"id\":1,\"seconds\":5,\"seconds\":50}",
								&out, err, sizeof(err)) == -1);
	CHECK("esc-proto-rejects-deep-nesting",
		  pgwt_esc_notice_parse("{\"op\":\"deescalate\",\"id\":1,\"x\":[[[[[[[[[[1]]]]]]]]]]}",
								&out, err, sizeof(err)) == -1);

	/* the report: the tracer's builder, the extension's parser */
	r.mode = "tiered";
	r.tier = "sampled";
	r.exact = false;
	r.window_id = 3;
	r.seconds_left = 12;
	r.budget_left_s = -1;
	r.request_id = 9;
	r.reason = "self-test: \"exact\":true never fired";
	len = pgwt_esc_report_json(&r, buf, sizeof(buf));
	CHECK("esc-proto-report-parsed",
		  len > 0 && pgwt_esc_report_parse(buf, &v) == 0 &&
		  strcmp(v.mode, "tiered") == 0 && strcmp(v.tier, "sampled") == 0 &&
		  v.has_exact && !v.exact && v.has_window_id && v.window_id == 3 &&
		  v.has_seconds_left && v.seconds_left == 12 && v.has_budget_left && v.budget_left_s == -1 &&
		  v.has_request_id && v.request_id == 9 && strcmp(v.reason, r.reason) == 0);
	/*
	 * A key's name inside another value is no key: the extension's old
	 * reader (strstr of "\"exact\":") took a reason quoting it for the key.
	 */
	CHECK("esc-proto-report-key-in-string",
		  pgwt_esc_report_parse("{\"mode\":\"full\",\"reason\":\"peer said \\\"exact\\\":false\"}", &v) == 0 &&
		  !v.has_exact && strcmp(v.mode, "full") == 0);
	CHECK("esc-proto-report-not-json",
		  pgwt_esc_report_parse("mode=full", &v) == -1 && v.mode[0] == '\0' && !v.has_exact);
	CHECK("esc-proto-channel", strcmp(PGWT_ESC_CHANNEL, "pg_wait_tracer_escalation") == 0);
}

int
main(void)
{
	test_protocol_round_trip();
	test_parse();
	test_parse_bounds();
	test_authorize();
	test_log_escape();
	test_backoff();
	test_report();
	test_own_backends();
	return failures ? 1 : 0;
}
