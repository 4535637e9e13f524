/*
 * escalation.c
 *		SQL surface of escalation windows: pgwt_escalate(), pgwt_deescalate(),
 *		pgwt_escalation_status(), and pgwt_tracer_report() through which an
 *		external tracer reports its state back.
 *
 * With the server's wait-event hooks, a window makes every collecting
 * process append its waits (of the window's classes) to its trace ring.
 * On a server without them the extension cannot trace, but an external
 * tracer can: each request is announced with NOTIFY on the channel
 * PGWT_ESC_CHANNEL (payload below), which the tracer LISTENs to through
 * its own libpq connection, so the database's OS user never needs access
 * to the tracer's control socket. The tracer answers by calling
 * pgwt_tracer_report(state), shown by pgwt_escalation_status(). The
 * budget (pg_wait_tracer.escalation_budget) is applied here in both
 * cases, so what SQL grants is what a tracer is asked for.
 *
 * The payload and the report are the protocol of common/esc_protocol.h
 * (built and parsed there). id grows by one per window opened or closed
 * (escwin.published.generation); backend_start_us is this backend's start
 * (pg_stat_activity.backend_start) in microseconds since the Unix epoch.
 * Anyone who can connect can NOTIFY, so the tracer trusts no field: it
 * looks the sender (the notification's pid, which the server fills in) up
 * and acts only when that backend still runs with that start time and its
 * role may execute the function, the rule of calling it here. "by" and
 * "pid" are only shown. Since psql -c exits right after the commit that
 * sends the notification, a backend that notified waits at exit (before
 * it leaves pg_stat_activity) until the tracer reports the request handled,
 * at most PGWT_ESC_ACK_WAIT_MS.
 *
 * seconds is 1 to PGWT_ESC_MAX_WINDOW_S; beyond it pgwt_escalate() is an
 * error.
 *
 * pgwt_esc_answering() (escalation.h) tells pgwt_status which tier answers
 * a request: the hooks' own window, an external tracer whose report is
 * fresh and whose reporting backend lives, or the sampler (no exact tier).
 *
 * Shared state: PgwtTraceShared.escwin under esc_lock (trace_capture.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "commands/async.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "common/esc_protocol.h"
#include "extension/escalation.h"
#include "extension/sampler.h"
#include "extension/trace_capture.h"

/* How long an exiting backend waits for the tracer to take its request. */
#define PGWT_ESC_ACK_WAIT_MS 1000

PG_FUNCTION_INFO_V1(pgwt_escalate);
PG_FUNCTION_INFO_V1(pgwt_deescalate);
PG_FUNCTION_INFO_V1(pgwt_escalation_status);
PG_FUNCTION_INFO_V1(pgwt_tracer_report);

static void
pgwt_esc_require_shared(void)
{
	if (pgwt_trace_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_wait_tracer must be loaded via \"shared_preload_libraries\"")));
}

/*
 * Does the external tracer's report say it runs sampled only (its exact
 * tier failed its self-test: hardware watchpoints that never fire)? Its
 * reason goes to why. A report without the key is from a tracer that
 * predates the self-test: taken as exact.
 */
static bool
pgwt_esc_state_sampled_only(const char *state, char *why, size_t cap)
{
	pgwt_esc_report_view v;

	if (pgwt_esc_report_parse(state, &v) != 0 || !v.has_exact || v.exact)
		return false;
	if (why)
		strlcpy(why, v.reason[0] ? v.reason : "its exact tier is not available", cap);
	return true;
}

/*
 * "coop" with the hooks; "external" when a tracer that reported is still
 * connected, "external_sampled" when that tracer cannot open exact windows
 * (why, when asked, says so); else "none".
 */
static const char *
pgwt_esc_tier_why(char *why, size_t cap)
{
	char		state[PGWT_ESC_REPORT_MAX];
	int			tracer_pid;

	if (pgwt_trace_shared->nrings > 0)
		return "coop";
	SpinLockAcquire(&pgwt_trace_shared->esc_lock);
	tracer_pid = pgwt_trace_shared->tracer_pid;
	memcpy(state, pgwt_trace_shared->tracer_state, sizeof(state));
	SpinLockRelease(&pgwt_trace_shared->esc_lock);
	state[sizeof(state) - 1] = '\0';
	if (tracer_pid != 0 && BackendPidGetProc(tracer_pid) != NULL)
		return pgwt_esc_state_sampled_only(state, why, cap) ? "external_sampled" : "external";
	return "none";
}

static const char *
pgwt_esc_tier(void)
{
	return pgwt_esc_tier_why(NULL, 0);
}

/* text[] of the classes of a mask (NULL when every class). */
static Datum
pgwt_esc_classes_datum(uint32 mask, bool *isnull)
{
	Datum		elems[PGWT_ESCWIN_NCLASSES];
	int			n = 0;

	*isnull = (mask == PGWT_ESCWIN_ALL_CLASSES || mask == 0);
	if (*isnull)
		return (Datum) 0;
	for (unsigned c = 1; c < PGWT_ESCWIN_NCLASSES; c++)
		if ((mask >> c) & 1 && pgwt_escwin_class_name(c) != NULL)
			elems[n++] = CStringGetTextDatum(pgwt_escwin_class_name(c));
	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* The last request this backend announced, for the wait at exit. */
static uint32 pgwt_esc_sent_id;
static TimestampTz pgwt_esc_sent_at;
static bool pgwt_esc_exit_hooked;

/*
 * before_shmem_exit: while the tracer that listens has not reported a
 * request id at or past ours, stay in pg_stat_activity a little (the
 * tracer refuses a request whose sender it cannot look up). Only on a
 * clean exit, and never longer than PGWT_ESC_ACK_WAIT_MS after the request.
 */
static void
pgwt_esc_exit_wait(int code, Datum arg)
{
	(void) arg;
	if (code != 0 || pgwt_esc_sent_at == 0 || pgwt_trace_shared == NULL)
		return;
	for (;;)
	{
		char		state[PGWT_ESC_REPORT_MAX];
		int			tracer_pid;
		pgwt_esc_report_view v;

		if (TimestampDifferenceExceeds(pgwt_esc_sent_at, GetCurrentTimestamp(),
									   PGWT_ESC_ACK_WAIT_MS))
			return;
		SpinLockAcquire(&pgwt_trace_shared->esc_lock);
		tracer_pid = pgwt_trace_shared->tracer_pid;
		memcpy(state, pgwt_trace_shared->tracer_state, sizeof(state));
		SpinLockRelease(&pgwt_trace_shared->esc_lock);
		state[sizeof(state) - 1] = '\0';
		if (tracer_pid == 0 || BackendPidGetProc(tracer_pid) == NULL)
			return;
		if (pgwt_esc_report_parse(state, &v) == 0 && v.has_request_id &&
			v.request_id >= (long long) pgwt_esc_sent_id &&
			(!v.has_request_pid || v.request_pid == MyProcPid))
			return;
		pg_usleep(10000L);
	}
}

static void
pgwt_esc_notify(pgwt_esc_op op, uint32 id, int64 seconds, uint32 mask)
{
	const char *role = GetUserNameFromId(GetUserId(), true);
	const char *classes[PGWT_ESCWIN_NCLASSES];
	int			nclasses = 0;
	pgwt_esc_notice n;
	char		payload[1024];

	memset(&n, 0, sizeof(n));
	n.op = op;
	n.id = id;
	n.seconds = seconds;
	/* backend_start as pg_stat_activity shows it, in Unix microseconds */
	n.start_us = (int64) MyStartTimestamp +
		(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
	n.pid = MyProcPid;
	strlcpy(n.by, role ? role : "", sizeof(n.by));
	if (op == PGWT_ESC_OP_ESCALATE && mask != PGWT_ESCWIN_ALL_CLASSES)
		for (unsigned c = 1; c < PGWT_ESCWIN_NCLASSES; c++)
			if ((mask >> c) & 1 && pgwt_escwin_class_name(c) != NULL)
				classes[nclasses++] = pgwt_escwin_class_name(c);
	if (pgwt_esc_notice_json(&n, op == PGWT_ESC_OP_ESCALATE && mask != PGWT_ESCWIN_ALL_CLASSES ?
							 classes : NULL, nclasses, payload, sizeof(payload)) < 0)
		elog(ERROR, "pg_wait_tracer: escalation payload does not fit in %zu bytes", sizeof(payload));
	Async_Notify(PGWT_ESC_CHANNEL, payload);
	pgwt_esc_sent_id = id;
	pgwt_esc_sent_at = GetCurrentTimestamp();
	if (!pgwt_esc_exit_hooked)
	{
		before_shmem_exit(pgwt_esc_exit_wait, (Datum) 0);
		pgwt_esc_exit_hooked = true;
	}
}

static const char *
pgwt_esc_result_text(pgwt_esc_result r)
{
	switch (r)
	{
		case PGWT_ESC_GRANTED:
			return "granted";
		case PGWT_ESC_CLAMPED:
			return "clamped";
		case PGWT_ESC_DENIED_DISABLED:
			return "refused: escalation_budget is 0";
		case PGWT_ESC_DENIED_EXHAUSTED:
			return "refused: budget exhausted";
		case PGWT_ESC_DENIED_BAD_REQUEST:
			return "refused: seconds must be positive";
		case PGWT_ESC_DENIED_NO_EXACT:
			return "refused: no exact tier";
	}
	return "unknown";
}

static const char *
pgwt_esc_close_text(pgwt_esc_close c)
{
	switch (c)
	{
		case PGWT_ESC_STILL_OPEN:
			return "open";
		case PGWT_ESC_NOT_OPEN:
			return NULL;
		case PGWT_ESC_CLOSED_EXPIRED:
			return "expired";
		case PGWT_ESC_CLOSED_BUDGET:
			return "budget";
		case PGWT_ESC_CLOSED_BY_REQUEST:
			return "deescalated";
	}
	return NULL;
}

/* Wall-clock time of a monotonic instant. */
static TimestampTz
pgwt_esc_wall(uint64 mono_ns, uint64 now_ns)
{
	int64		delta_us = ((int64) mono_ns - (int64) now_ns) / 1000;

	return GetCurrentTimestamp() + delta_us;
}

/*
 * pgwt_escalate(seconds int, classes text[] DEFAULT NULL)
 *   RETURNS (result text, granted_s int, classes text[], window_end
 *            timestamptz, budget_left_s int, tier text)
 */
Datum
pgwt_escalate(PG_FUNCTION_ARGS)
{
	int32		seconds = PG_GETARG_INT32(0);
	uint32		mask = PGWT_ESCWIN_ALL_CLASSES;
	pgwt_escwin_grant g;
	uint32		generation;
	uint64		now,
				end_ns;
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false};
	const char *tier;
	char		why[PGWT_ESC_REPORT_MAX];

	pgwt_esc_require_shared();
	/* 0 or less is refused below as before, with nothing spent */
	if (seconds > PGWT_ESC_MAX_WINDOW_S)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("seconds must be at most %d", PGWT_ESC_MAX_WINDOW_S),
				 errdetail("An escalation window lasts one day at most.")));
	if (!PG_ARGISNULL(1))
	{
		ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
		Datum	   *elems;
		bool	   *enulls;
		int			n;
		const char **names;
		const char *bad = NULL;

		deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &enulls, &n);
		names = palloc(sizeof(char *) * Max(n, 1));
		for (int i = 0; i < n; i++)
			names[i] = enulls[i] ? NULL : TextDatumGetCString(elems[i]);
		if (n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("classes must name at least one wait class"),
					 errhint("NULL means every class.")));
		if (!pgwt_escwin_parse_classes(names, n, &mask, &bad))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown wait class \"%s\"", bad),
					 errhint("Classes are LWLock, Lock, BufferPin, Activity, Client, Extension, IPC, Timeout, IO, InjectionPoint; NULL means all.")));
	}
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	now = pgwt_trace_now_ns();
	tier = pgwt_esc_tier_why(why, sizeof(why));
	if (strcmp(tier, "external_sampled") == 0)
	{
		int64		left;

		/*
		 * The tracer that would capture cannot see: refuse here, spending
		 * nothing and asking the tracer nothing.
		 */
		SpinLockAcquire(&pgwt_trace_shared->esc_lock);
		pgwt_trace_esc_sync_budget();
		pgwt_trace_shared->escwin.esc.denied_total++;
		left = pgwt_esc_budget_remaining_s(&pgwt_trace_shared->escwin.esc, now);
		SpinLockRelease(&pgwt_trace_shared->esc_lock);
		values[0] = CStringGetTextDatum(psprintf("refused: no exact tier: the external tracer runs sampled only (%s)",
												 why));
		values[1] = Int32GetDatum(0);
		nulls[2] = nulls[3] = true;
		if (left < 0)
			nulls[4] = true;
		else
			values[4] = Int32GetDatum((int32) left);
		values[5] = CStringGetTextDatum(tier);
		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
	}
	SpinLockAcquire(&pgwt_trace_shared->esc_lock);
	pgwt_trace_esc_sync_budget();
	g = pgwt_escwin_request(&pgwt_trace_shared->escwin, now, seconds, mask,
							PGWT_ESC_MANUAL);
	generation = pgwt_trace_shared->escwin.published.generation;
	end_ns = pgwt_trace_shared->escwin.esc.win_end_ns;
	SpinLockRelease(&pgwt_trace_shared->esc_lock);

	if (g.granted_s > 0 && pgwt_trace_shared->nrings == 0)
		pgwt_esc_notify(PGWT_ESC_OP_ESCALATE, generation, g.granted_s, g.class_mask);

	values[0] = CStringGetTextDatum(pgwt_esc_result_text(g.result));
	values[1] = Int32GetDatum((int32) g.granted_s);
	values[2] = pgwt_esc_classes_datum(g.class_mask, &nulls[2]);
	if (g.granted_s > 0)
		values[3] = TimestampTzGetDatum(pgwt_esc_wall(end_ns, now));
	else
		nulls[3] = true;
	if (g.budget_left_s < 0)
		nulls[4] = true;
	else
		values[4] = Int32GetDatum((int32) g.budget_left_s);
	values[5] = CStringGetTextDatum(tier);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* pgwt_deescalate() RETURNS text: what was closed ("deescalated" or NULL). */
Datum
pgwt_deescalate(PG_FUNCTION_ARGS)
{
	pgwt_esc_close c;
	uint32		generation;

	pgwt_esc_require_shared();
	SpinLockAcquire(&pgwt_trace_shared->esc_lock);
	c = pgwt_escwin_deescalate(&pgwt_trace_shared->escwin, pgwt_trace_now_ns());
	generation = pgwt_trace_shared->escwin.published.generation;
	SpinLockRelease(&pgwt_trace_shared->esc_lock);
	if (c == PGWT_ESC_NOT_OPEN)
		PG_RETURN_NULL();
	if (pgwt_trace_shared->nrings == 0)
		pgwt_esc_notify(PGWT_ESC_OP_DEESCALATE, generation, 0, 0);
	PG_RETURN_TEXT_P(cstring_to_text(pgwt_esc_close_text(c)));
}

#define PGWT_ESC_STATUS_COLS 19

/* pgwt_escalation_status(): one row, see the SQL script for the columns. */
Datum
pgwt_escalation_status(PG_FUNCTION_ARGS)
{
	PgwtTraceShared *ts = pgwt_trace_shared;
	pgwt_escwin w;
	uint64		now = pgwt_trace_now_ns();
	int			worker_pid,
				tracer_pid;
	uint64		drained,
				written,
				lost,
				errors;
	char		tracer_state[PGWT_ESC_REPORT_MAX];
	TupleDesc	tupdesc;
	Datum		values[PGWT_ESC_STATUS_COLS];
	bool		nulls[PGWT_ESC_STATUS_COLS] = {false};
	const char *close_text;
	int			i = 0;

	pgwt_esc_require_shared();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != PGWT_ESC_STATUS_COLS)
		elog(ERROR, "pgwt_escalation_status: expected %d columns, got %d",
			 PGWT_ESC_STATUS_COLS, tupdesc->natts);

	SpinLockAcquire(&ts->esc_lock);
	pgwt_trace_esc_sync_budget();
	(void) pgwt_escwin_tick(&ts->escwin, now, NULL);
	w = ts->escwin;
	worker_pid = ts->worker_pid;
	drained = ts->drained_records;
	written = ts->written_records;
	lost = ts->lost_records;
	errors = ts->write_errors;
	tracer_pid = ts->tracer_pid;
	memcpy(tracer_state, ts->tracer_state, sizeof(tracer_state));
	SpinLockRelease(&ts->esc_lock);

	values[i++] = CStringGetTextDatum(pgwt_esc_tier());
	values[i++] = BoolGetDatum(w.esc.active);
	if (w.esc.active)
	{
		values[i++] = CStringGetTextDatum(pgwt_esc_reason_name(w.esc.reason));
		values[i] = pgwt_esc_classes_datum(w.class_mask, &nulls[i]);
		i++;
		values[i++] = TimestampTzGetDatum(pgwt_esc_wall(w.esc.win_end_ns, now));
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
		nulls[i++] = true;
	}
	values[i++] = Int32GetDatum((int32) pgwt_esc_seconds_remaining(&w.esc, now));
	values[i++] = Int32GetDatum(pgwt_escalation_budget);
	if (pgwt_escalation_budget < 0)
		nulls[i++] = true;
	else
		values[i++] = Int32GetDatum((int32) pgwt_esc_budget_remaining_s(&w.esc, now));
	close_text = pgwt_esc_close_text(w.last_close);
	if (close_text && !w.esc.active)
		values[i++] = CStringGetTextDatum(close_text);
	else
		nulls[i++] = true;
	values[i++] = Int64GetDatum((int64) w.esc.windows_total);
	values[i++] = Int64GetDatum((int64) w.esc.denied_total);
	values[i++] = Int64GetDatum((int64) w.esc.clamped_total);
	values[i++] = Int64GetDatum((int64) w.esc.closed_by_budget_total);
	if (worker_pid != 0)
		values[i++] = Int32GetDatum(worker_pid);
	else
		nulls[i++] = true;
	values[i++] = Int64GetDatum((int64) drained);
	values[i++] = Int64GetDatum((int64) written);
	values[i++] = Int64GetDatum((int64) (lost + errors));
	if (tracer_pid != 0)
	{
		values[i++] = Int32GetDatum(tracer_pid);
		values[i++] = CStringGetTextDatum(tracer_state);
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	Assert(i == PGWT_ESC_STATUS_COLS);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * pgwt_tracer_report(state text) RETURNS void: the external tracer's state
 * (free text, by convention a JSON object such as {"mode":"full",
 * "window_end":"...","budget_left_s":N}), kept with the reporting
 * backend's pid. NULL clears it (the tracer detached).
 */
Datum
pgwt_tracer_report(PG_FUNCTION_ARGS)
{
	char	   *state = PG_ARGISNULL(0) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(0));
	TimestampTz now = GetCurrentTimestamp();

	pgwt_esc_require_shared();
	if (state != NULL && strlen(state) >= PGWT_ESC_REPORT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
				 errmsg("tracer state is longer than %d bytes", PGWT_ESC_REPORT_MAX - 1)));
	SpinLockAcquire(&pgwt_trace_shared->esc_lock);
	pgwt_trace_shared->tracer_pid = state ? MyProcPid : 0;
	pgwt_trace_shared->tracer_reported_at = now;
	strlcpy(pgwt_trace_shared->tracer_state, state ? state : "",
			PGWT_ESC_REPORT_MAX);
	SpinLockRelease(&pgwt_trace_shared->esc_lock);
	PG_RETURN_VOID();
}

void
pgwt_esc_answering(pgwt_esc_answer *a)
{
	PgwtTraceShared *ts = pgwt_trace_shared;
	uint64		now;
	pgwt_escwin w;
	int			tracer_pid;
	TimestampTz reported_at;
	char		state[PGWT_ESC_REPORT_MAX];
	long		age_s = 0;
	int			age_us = 0;

	memset(a, 0, sizeof(*a));
	a->window_id_null = a->seconds_left_null = a->budget_left_null = true;
	if (ts == NULL)
	{
		a->tier = "none";
		snprintf(a->note, sizeof(a->note), "no exact tier: the library is not in shared_preload_libraries");
		return;
	}
	now = pgwt_trace_now_ns();
	SpinLockAcquire(&ts->esc_lock);
	pgwt_trace_esc_sync_budget();
	(void) pgwt_escwin_tick(&ts->escwin, now, NULL);
	w = ts->escwin;
	tracer_pid = ts->tracer_pid;
	reported_at = ts->tracer_reported_at;
	memcpy(state, ts->tracer_state, sizeof(state));
	SpinLockRelease(&ts->esc_lock);
	state[sizeof(state) - 1] = '\0';

	if (ts->nrings > 0)
	{
		a->tier = "coop";
		a->window_open = w.esc.active;
		a->window_id_null = w.esc.windows_total == 0;
		a->window_id = (int64) w.esc.windows_total;
		a->seconds_left_null = false;
		a->seconds_left = (int32) pgwt_esc_seconds_remaining(&w.esc, now);
		a->budget_left_null = pgwt_escalation_budget < 0;
		if (!a->budget_left_null)
			a->budget_left_s = (int32) pgwt_esc_budget_remaining_s(&w.esc, now);
		snprintf(a->note, sizeof(a->note), "exact windows through the server's wait-event hooks");
		return;
	}
	if (tracer_pid != 0)
		TimestampDifference(reported_at, GetCurrentTimestamp(), &age_s, &age_us);
	if (tracer_pid != 0 && age_s < PGWT_TRACER_FRESH_S && BackendPidGetProc(tracer_pid) != NULL)
	{
		pgwt_esc_report_view v;

		(void) pgwt_esc_report_parse(state, &v);
		a->tier = pgwt_esc_state_sampled_only(state, NULL, 0) ? "external_sampled" : "external";
		a->tracer_pid = tracer_pid;
		a->window_open = v.window_open;
		if (v.has_window_id && v.window_id > 0)
		{
			a->window_id_null = false;
			a->window_id = v.window_id;
		}
		if (v.has_seconds_left)
		{
			/* counted down since the report */
			long long	left = v.seconds_left - age_s;

			a->seconds_left_null = false;
			a->seconds_left = (int32) (a->window_open && left > 0 ? Min(left, PGWT_ESC_MAX_WINDOW_S) : 0);
		}
		if (v.has_budget_left && v.budget_left_s >= 0)
		{
			a->budget_left_null = false;
			a->budget_left_s = (int32) Min(v.budget_left_s, PG_INT32_MAX);
		}
		if (strcmp(a->tier, "external_sampled") == 0)
			snprintf(a->note, sizeof(a->note), "no exact tier: the external tracer (backend %d, mode %s, reported %ld s ago) runs sampled only: %s",
					 tracer_pid, v.mode, age_s, v.reason);
		else
			snprintf(a->note, sizeof(a->note), "external tracer (backend %d, mode %s, tier %s, reported %ld s ago): %s",
					 tracer_pid, v.mode, v.tier, age_s, v.reason);
		return;
	}
	a->tier = pgwt_sampler_answers() ? "sampler" : "none";
	if (tracer_pid != 0 && BackendPidGetProc(tracer_pid) == NULL)
		snprintf(a->note, sizeof(a->note), "no exact tier: this server has no wait-event hooks and the external tracer's connection (backend %d) is gone",
				 tracer_pid);
	else if (tracer_pid != 0)
		snprintf(a->note, sizeof(a->note), "no exact tier: this server has no wait-event hooks and the external tracer last reported %ld s ago",
				 age_s);
	else
		snprintf(a->note, sizeof(a->note), "no exact tier: this server has no wait-event hooks and no external tracer reports (run pg_wait_tracer --daemon)");
}
