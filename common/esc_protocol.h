/*
 * esc_protocol.h
 *		The escalation protocol between the extension and an external
 *		tracer, in one place: the NOTIFY channel, the request payload's keys
 *		and bounds, the state report's keys and bound, and the one builder
 *		and one parser of each message. The extension (escalation.c) builds
 *		requests and parses reports; the tracer (esc_notify.c,
 *		esc_listen.c) parses requests and builds reports.
 *
 * Request, NOTIFY on PGWT_ESC_CHANNEL, one JSON object:
 *   {"op":"escalate","id":N,"seconds":S,"classes":["Lock",...] or null,
 *    "reason":"manual","backend_start_us":T,"by":"role","pid":P}
 *   {"op":"deescalate","id":N,"backend_start_us":T,"by":"role","pid":P}
 * id is the extension's window generation; T the sender's backend start
 * in Unix microseconds. Anyone who can connect can NOTIFY, so the tracer
 * trusts no field: it acts only after looking the sender up (esc_notify.h,
 * pgwt_esc_authorize). Unknown keys are ignored, structured ones included.
 *
 * Report, the argument of pgwt_tracer_report(), one JSON object shorter
 * than PGWT_ESC_REPORT_MAX bytes: mode, tier, exact, window_open,
 * window_id, seconds_left, budget_left_s, granted_s, request_id,
 * request_pid, listening, pid, reason. A sender knows its request was
 * looked up once request_pid is its own and request_id at or past its id
 * (ids are per sender's window generation, so an id alone proves nothing).
 *
 * Both are parsed by common/json_min.c (bounded, fuzzed by
 * test/fuzz/fuzz_esc_notify.c). Pure: no I/O, no allocation.
 */
#ifndef PGWT_COMMON_ESC_PROTOCOL_H
#define PGWT_COMMON_ESC_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

#define PGWT_ESC_CHANNEL		"pg_wait_tracer_escalation"

/* Longest window one request may ask for: one day. */
#define PGWT_ESC_MAX_WINDOW_S	86400

/*
 * A report is shorter than this (pgwt_tracer_report() refuses longer):
 * room for every field at its widest and a reason of up to
 * PGWT_JSON_MAX_STR - 1 bytes, so a reason is cut only when escaping
 * makes it long, never by how many digits a pid has.
 */
#define PGWT_ESC_REPORT_MAX		640

/* Request keys. */
#define PGWT_ESCK_OP			"op"
#define PGWT_ESCK_ID			"id"
#define PGWT_ESCK_SECONDS		"seconds"
#define PGWT_ESCK_CLASSES		"classes"
#define PGWT_ESCK_REASON		"reason"
#define PGWT_ESCK_START			"backend_start_us"
#define PGWT_ESCK_BY			"by"
#define PGWT_ESCK_PID			"pid"
#define PGWT_ESC_OP_NAME_ESCALATE	"escalate"
#define PGWT_ESC_OP_NAME_DEESCALATE	"deescalate"

/* Report keys. */
#define PGWT_ESCR_MODE			"mode"
#define PGWT_ESCR_TIER			"tier"
#define PGWT_ESCR_EXACT			"exact"
#define PGWT_ESCR_WINDOW_OPEN	"window_open"
#define PGWT_ESCR_WINDOW_ID		"window_id"
#define PGWT_ESCR_SECONDS_LEFT	"seconds_left"
#define PGWT_ESCR_BUDGET_LEFT	"budget_left_s"
#define PGWT_ESCR_GRANTED		"granted_s"
#define PGWT_ESCR_REQUEST_ID	"request_id"
#define PGWT_ESCR_REQUEST_PID	"request_pid"
#define PGWT_ESCR_LISTENING		"listening"
#define PGWT_ESCR_PID			"pid"
#define PGWT_ESCR_REASON		"reason"

typedef enum pgwt_esc_op
{
	PGWT_ESC_OP_ESCALATE,
	PGWT_ESC_OP_DEESCALATE
} pgwt_esc_op;

/* One request, as built by the extension and parsed by the tracer. */
typedef struct pgwt_esc_notice
{
	pgwt_esc_op op;
	long long	id;				/* the extension's window generation */
	long long	seconds;		/* escalate: 1 to PGWT_ESC_MAX_WINDOW_S */
	bool		classes_all;	/* escalate: "classes":null */
	bool		have_start;		/* "backend_start_us" was there */
	long long	start_us;		/* the sender's backend start, Unix us */
	int			pid;			/* claimed requesting backend, 0 unknown */
	char		by[64];			/* claimed requesting role */
	/* filled by the listener, not from the payload */
	int			be_pid;			/* the sending backend (PGnotify.be_pid) */
	char		role[64];		/* its role, from pg_stat_activity */
} pgwt_esc_notice;

/*
 * The payload of n into buf (no newline). classes: the wait class names of
 * an escalate limited to some classes (nclasses of them), or NULL for all
 * (then n->classes_all is not looked at). Returns the length, or -1 when
 * cap is too small.
 */
long		pgwt_esc_notice_json(const pgwt_esc_notice *n, const char *const *classes,
								 int nclasses, char *buf, size_t cap);

/*
 * Parses one payload. Unknown keys are skipped (arrays and objects
 * included, bounded); an id or seconds that is not a whole number, an
 * escalate without positive seconds or with more than PGWT_ESC_MAX_WINDOW_S
 * is refused. Returns 0, or -1 with a reason in err.
 */
int			pgwt_esc_notice_parse(const char *payload, pgwt_esc_notice *n,
								  char *err, size_t errlen);

/* What a tracer reports after each window change and periodically. */
typedef struct pgwt_esc_report
{
	const char *mode;			/* tiered, sampled, full */
	const char *tier;			/* sampled, escalated, full */
	bool		window_open;
	long long	window_id;		/* the daemon's window counter, 0 none yet */
	long long	seconds_left;
	long long	budget_left_s;	/* -1 unlimited */
	long long	granted_s;		/* to the last request (0 refused) */
	long long	request_id;		/* the last request's id, -1 none */
	int			request_pid;	/* the backend that sent it, 0 none */
	const char *reason;			/* what the last change was, and why */
	int			listening;		/* databases LISTENed to */
	int			pid;			/* the daemon's process */
	bool		exact;			/* an exact window can open (self-test) */
} pgwt_esc_report;

/*
 * The report as one JSON object, always shorter than PGWT_ESC_REPORT_MAX:
 * a long reason is cut. Returns the length, or -1 when cap is too small.
 */
long		pgwt_esc_report_json(const pgwt_esc_report *r, char *buf, size_t cap);

/* A report as the extension reads it back; has_* false: key absent. */
typedef struct pgwt_esc_report_view
{
	char		mode[32];
	char		tier[32];
	char		reason[PGWT_ESC_REPORT_MAX];
	bool		has_exact;
	bool		exact;
	bool		window_open;
	bool		has_window_id;
	long long	window_id;
	bool		has_seconds_left;
	long long	seconds_left;
	bool		has_budget_left;
	long long	budget_left_s;
	bool		has_request_id;
	long long	request_id;
	bool		has_request_pid;
	long long	request_pid;
} pgwt_esc_report_view;

/*
 * Reads a report. Text that is not such an object gives an empty view
 * (every has_* false, strings empty) and -1; else 0.
 */
int			pgwt_esc_report_parse(const char *state, pgwt_esc_report_view *v);

#endif							/* PGWT_COMMON_ESC_PROTOCOL_H */
