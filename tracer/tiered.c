/*
 * tiered.c
 *		The tier controller (see tiered.h): turns escalation requests and
 *		anomaly fires into exact windows through the rolling-hour budget,
 *		starts and stops the watchpoints of all backends, writes the
 *		ESC_START/ESC_END markers, and answers the control socket.
 *
 * A window: ESC_START (reason code, granted length) is emitted, then every
 * backend is traced by the exact source; at the end its records are drained
 * and the backends released, then ESC_END (reason code, actual length).
 * Samples inside the window are superseded by the exact transitions in the
 * analysis engine.
 *
 * The exact source is the session's (--exact-source: watchpoints, or the
 * scheduler's tracepoints where those never fire). Each window's source is
 * said in the log and the status, and one windows.tsv line per window
 * opened records it beside the trace (docs/TRACE_FORMAT.md 8.5).
 *
 * A request while a window is open extends it: a new ESC_START marker
 * (the request's reason, the length granted from now) inside the open
 * window, and still one ESC_END for the whole window (docs/TRACE_FORMAT.md).
 *
 * SQL requests: esc_listen.c LISTENs for pgwt_escalate()/pgwt_deescalate()
 * in the cluster's databases; they take the control socket's path through
 * this module's budget, and the daemon's state is reported back with
 * pgwt_tracer_report() after every window change and every few seconds.
 *
 * The Prometheus endpoint also serves the totals per wait event since start
 * (analysis/wait_totals.h), fed every record the daemon emits.
 *
 * Single-threaded: the control socket and the listener connections are
 * serviced from the daemon loop, so their callbacks run on the same thread
 * as the ticks.
 */
#include "tracer/tiered.h"

#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/policy/anomaly.h"
#include "analysis/policy/escalation.h"
#include "analysis/wait_totals.h"
#include "common/clock.h"
#include "tracer/control/control.h"
#include "tracer/esc_listen.h"
#include "tracer/tier_stats.h"
#include "tracer/watch_source.h"
#include "tracefmt/tracefmt.h"

struct pgwt_tiered
{
	const pgwt_options *o;
	pgwt_self_metrics *m;
	pgwt_emit_fn emit;
	void	   *emit_arg;
	pgwt_escalation esc;
	pgwt_anomaly anom;
	bool		anom_on;
	pgwt_control *ctl;
	pgwt_control_ops ops;
	pgwt_capture_source *watch;
	pgwt_tf_exact_source source;	/* watch's kind */
	int			dirfd;			/* the trace directory (windows.tsv), or -1 */
	const pgwt_tf_file_opts *side_opts;
	uint64_t	windows_tsv_errors;
	bool		exact_ok;		/* watch passed its last self-test */
	char		why_no_watch[256];
	uint64_t	self_test_ns;	/* when the last one ran (0 never) */
	uint64_t	self_tests_total;
	uint64_t	self_test_failures_total;
	uint64_t	no_exact_denied_total;	/* requests refused: cannot see */
	int			pg_pid;
	int			pg_major;
	/* the current window */
	bool		window_open;
	uint32_t	window_code;
	uint64_t	window_start_ns;
	/* the last sampler tick, waiting for the rules */
	bool		tick_pending;
	pgwt_tick_load load;
	uint64_t	faults_seen;
	bool		tick_complete;
	uint64_t	anomaly_dropped_budget;
	uint64_t	start_ns;
	/* SQL requests and the state reported back (esc_listen.c) */
	pgwt_esc_listen *listen;
	uint64_t	window_id;		/* windows opened since start */
	int64_t		last_granted_s;
	long long	last_request_id;
	int			last_request_pid;	/* its sending backend */
	char		last_reason[300];
	uint64_t	listen_step_ns; /* next timer step of the listener */
	/* --exact-source auto: the source chosen again before each window */
	pgwt_tiered_reselect_fn reselect;
	void	   *reselect_arg;
	uint64_t	reprobes_total; /* preferred source probed before a window */
	uint64_t	reselects_total;	/* sources chosen again */
	char		probe_why[256]; /* the last probe's answer */
	/* per wait event since start, for the Prometheus series */
	pgwt_wait_totals *totals;
	const pgwt_names *names;	/* the session's (live.c), or NULL */
};

/*
 * The listener's timers (retries, listing, reports) need no finer step.
 * They are stepped from pgwt_tiered_step(), which runs after each sampler
 * tick: a timer of its own would wake the daemon a second time per tick.
 */
#define TIERED_LISTEN_STEP_NS 100000000ull

/* A window changed: the listener reports at once, not at its next timer. */
static void
tiered_report_soon(pgwt_tiered *t)
{
	pgwt_esc_listen_report_soon(t->listen);
	t->listen_step_ns = 0;
}

static uint32_t
tiered_code(pgwt_esc_reason r)
{
	switch (r)
	{
		case PGWT_ESC_MANUAL:
			return PGWT_ESC_CODE_MANUAL;
		case PGWT_ESC_ANOMALY_LOCK:
			return PGWT_ESC_CODE_ANOMALY_LOCK;
		case PGWT_ESC_ANOMALY_CPU:
			return PGWT_ESC_CODE_ANOMALY_CPU;
		default:
			return PGWT_ESC_CODE_ANOMALY;
	}
}

/* windows.tsv: this window's source, keyed by its ESC_START's time. */
static void
tiered_note_window(pgwt_tiered *t, uint64_t now)
{
	struct timespec rt;
	pgwt_tf_window w;
	int			rc;

	if (t->dirfd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &rt);
	w.start_mono_ns = now;
	w.start_rt_ns = (uint64_t) rt.tv_sec * 1000000000ull + (uint64_t) rt.tv_nsec -
		(pgwt_mono_ns() - now);
	w.source = t->source;
	rc = pgwt_tf_window_append_at(t->dirfd, t->side_opts, &w);
	if (rc < 0 && t->windows_tsv_errors++ == 0)
		fprintf(stderr, "pg_wait_tracer: %s: %s: the windows' exact source is not recorded\n",
				PGWT_TF_WINDOWS_NAME, pgwt_tf_strerror(rc));
}

static void
tiered_open_window(pgwt_tiered *t, uint64_t now, pgwt_esc_reason reason, int64_t granted_s)
{
	pgwt_record mk;

	t->window_open = true;
	t->window_code = tiered_code(reason);
	t->window_start_ns = now;
	t->window_id++;
	tiered_report_soon(t);
	pgwt_esc_marker(&mk, true, now, t->window_code, (uint64_t) granted_s * 1000000000ull);
	t->emit(t->emit_arg, &mk, 1);
	tiered_note_window(t, now);
	pgwt_watch_source_enable(t->watch, true, now, t->emit, t->emit_arg);
	if (t->o->verbose || t->o->daemon)
		fprintf(stderr, "pg_wait_tracer: exact window opened (%s, %lld s, source %s), %d backends watched\n",
				pgwt_esc_reason_name(reason), (long long) granted_s,
				pgwt_tf_exact_source_name(t->source), t->m ? (int) t->m->backends_watched : -1);
}

static void
tiered_close_window(pgwt_tiered *t, uint64_t now, const char *why)
{
	pgwt_record mk;
	uint64_t	end;

	if (!t->window_open)
		return;
	if (t->watch)
		pgwt_watch_source_enable(t->watch, false, now, t->emit, t->emit_arg);
	/* the drained transitions may end a little after now */
	end = pgwt_mono_ns();
	pgwt_esc_marker(&mk, false, end, t->window_code, end - t->window_start_ns);
	t->emit(t->emit_arg, &mk, 1);
	t->window_open = false;
	snprintf(t->last_reason, sizeof(t->last_reason), "window closed: %s", why);
	tiered_report_soon(t);
	if (t->o->verbose || t->o->daemon)
		fprintf(stderr, "pg_wait_tracer: exact window closed (%s) after %.1f s\n", why,
				(double) (end - t->window_start_ns) / 1e9);
}

/*
 * Can a window open now? The self-test runs before every window (the
 * hardware may stop firing, say after a migration to another host); a
 * source that failed is tried again at most every TIERED_RETEST_NS, so a
 * flood of requests cannot turn into a flood of traps.
 */
#define TIERED_RETEST_NS 5000000000ull
/* Without requests, a source that failed is tried again once a minute. */
#define TIERED_IDLE_RETEST_NS 60000000000ull

/*
 * --exact-source auto, before a window: where the scheduler's tracepoints
 * stand in for the watchpoints, probe the watchpoints again (one
 * breakpoint, 64 writes: a few milliseconds) and take them back when they
 * fire; the answer is kept for the status. Where the source in use fails
 * its self-test, the order is tried again. Returns true when the source
 * was chosen again (its self-test has just run).
 */
static bool
tiered_auto_reselect(pgwt_tiered *t, uint64_t now)
{
	pgwt_watch_self_test r;

	if (t->o->exact_source != PGWT_EXACT_AUTO || !t->reselect || t->window_open)
		return false;
	if (t->exact_ok && t->source != PGWT_TF_XSRC_WATCH)
	{
		t->reprobes_total++;
		if (pgwt_exact_probe(&r) != 0)
		{
			snprintf(t->probe_why, sizeof(t->probe_why), "watch: %.240s", r.why);
			return false;
		}
		snprintf(t->probe_why, sizeof(t->probe_why), "watch: the self-test passes again");
	}
	else if (t->exact_ok || (t->self_test_ns && now - t->self_test_ns < TIERED_RETEST_NS))
		return false;
	t->reselects_total++;
	t->reselect(t->reselect_arg);
	if (t->o->verbose || t->o->daemon)
		fprintf(stderr, "pg_wait_tracer: escalation windows' source chosen again: %s\n",
				t->exact_ok ? pgwt_tf_exact_source_name(t->source) : t->why_no_watch);
	return true;
}

static bool
tiered_exact_ready(pgwt_tiered *t, uint64_t now)
{
	pgwt_watch_self_test r;
	bool		was = t->exact_ok;

	if (t->o->mode != PGWT_MODE_TIERED || !t->watch)
		return false;
	if (t->window_open)
		return true;
	if (tiered_auto_reselect(t, now))
		return t->exact_ok;
	if (!t->exact_ok && t->self_test_ns && now - t->self_test_ns < TIERED_RETEST_NS)
		return false;
	t->self_test_ns = now;
	t->self_tests_total++;
	t->exact_ok = pgwt_watch_source_self_test(t->watch, &r) == 0;
	if (!t->exact_ok)
	{
		t->self_test_failures_total++;
		snprintf(t->why_no_watch, sizeof(t->why_no_watch), "%s", r.why);
	}
	else
		t->why_no_watch[0] = '\0';
	if (was != t->exact_ok)
		fprintf(stderr, "pg_wait_tracer: %s%s%s\n", pgwt_tf_exact_source_name(t->source),
				t->exact_ok ? " self-test passes again: exact windows are available" :
				": exact windows are no longer available, sampled only: ",
				t->exact_ok ? "" : r.why);
	return t->exact_ok;
}

/*
 * Ask the budget; open (or extend) a window. Returns the policy's answer,
 * or PGWT_ESC_DENIED_NO_EXACT (nothing spent) when the exact tier cannot
 * see.
 */
static pgwt_esc_result
tiered_request(pgwt_tiered *t, uint64_t now, int64_t duration_s, pgwt_esc_reason reason,
			   int64_t *granted)
{
	pgwt_esc_result r;

	*granted = 0;
	if (duration_s > 0 && t->esc.budget_s != 0 && !tiered_exact_ready(t, now))
	{
		t->no_exact_denied_total++;
		return PGWT_ESC_DENIED_NO_EXACT;
	}
	r = pgwt_esc_request(&t->esc, now, duration_s, reason, granted);
	if (r != PGWT_ESC_GRANTED && r != PGWT_ESC_CLAMPED)
		return r;
	if (!t->window_open)
		tiered_open_window(t, now, reason, *granted);
	else
	{
		pgwt_record mk;

		/* extended: a new start marker with the new remaining length */
		pgwt_esc_marker(&mk, true, now, tiered_code(reason), (uint64_t) *granted * 1000000000ull);
		t->emit(t->emit_arg, &mk, 1);
		tiered_report_soon(t);
		if (t->o->verbose || t->o->daemon)
			fprintf(stderr, "pg_wait_tracer: exact window extended (%s, %lld s from now)\n",
					pgwt_esc_reason_name(reason), (long long) *granted);
	}
	return r;
}

/* ---- control socket callbacks ----------------------------------------- */

static void
ctl_status(void *arg, pgwt_json_out *out)
{
	pgwt_tiered *t = arg;
	uint64_t	now = pgwt_mono_ns();

	pgwt_json_str(out, "mode", pgwt_mode_name(t->o->mode));
	pgwt_json_str(out, "tier", pgwt_tiered_tier(t));
	if (t->o->mode == PGWT_MODE_TIERED)
	{
		/* the windows' source: the one chosen and tested, or none */
		pgwt_json_str(out, "exact_source_choice", pgwt_exact_choice_name(t->o->exact_source));
		pgwt_json_str(out, "exact_source_probe", t->probe_why);
		pgwt_json_str(out, "exact_source", pgwt_tiered_exact_available(t) ?
					  pgwt_tf_exact_source_name(t->source) : "none");
	}
	pgwt_json_bool(out, "escalation_supported", pgwt_tiered_exact_available(t));
	/* tiered whose exact tier cannot see: it says so, and why */
	pgwt_json_bool(out, "sampled_only", t->o->mode == PGWT_MODE_TIERED && !pgwt_tiered_exact_available(t));
	if (t->o->mode == PGWT_MODE_TIERED && !pgwt_tiered_exact_available(t))
		pgwt_json_str(out, "escalation_unavailable", t->why_no_watch[0] ? t->why_no_watch :
					  "the exact tier is not available");
	pgwt_json_int(out, "escalation_seconds_remaining", pgwt_esc_seconds_remaining(&t->esc, now));
	pgwt_json_int(out, "escalation_budget_remaining_s", pgwt_esc_budget_remaining_s(&t->esc, now));
	pgwt_json_bool(out, "escalation_budget_unlimited", t->esc.budget_s == PGWT_BUDGET_UNLIMITED);
	pgwt_json_str(out, "escalation_reason", t->esc.active ? pgwt_esc_reason_name(t->esc.reason) : "");
	pgwt_json_num(out, "uptime_s", (double) (now - t->start_ns) / 1e9);
	pgwt_json_int(out, "backends", t->m ? (long long) t->m->backends_tracked : 0);
	pgwt_json_int(out, "backends_watched", t->m ? (long long) t->m->backends_watched : 0);
	pgwt_json_int(out, "pg_pid", t->pg_pid);
	pgwt_json_int(out, "version", t->pg_major);
	if (t->listen)
		pgwt_esc_listen_status(t->listen, out);
}

static size_t
ctl_metrics(void *arg, pgwt_metric *out, size_t max)
{
	pgwt_tiered *t = arg;
	const pgwt_self_metrics *m = t->m;
	uint64_t	now = pgwt_mono_ns();
	double		up = (double) (now - t->start_ns) / 1e9;
	size_t		n = 0;

#define METP(nm, prom, hp, ctr, val) do { if (n < max) out[n++] = (pgwt_metric) {nm, hp, ctr, (double) (val), prom}; } while (0)
#define MET(nm, hp, ctr, val) METP(nm, NULL, hp, ctr, val)
	MET("events_total", "exact transitions recorded", true, m->events_total);
	/* rates since start stay out of Prometheus: rate() over the counter */
	METP("events_per_sec", "", "exact transitions per second since start", false, up > 0 ? (double) m->events_total / up : 0);
	MET("lifecycle_events_total", "backends seen starting or exiting", true, m->backends_seen_total + m->backends_exited_total);
	MET("samples_total", "samples taken", true, m->samples_total);
	METP("samples_per_sec", "", "samples per second since start", false, up > 0 ? (double) m->samples_total / up : 0);
	MET("sample_read_faults_total", "sample reads failed or not trusted", true, m->sample_read_faults_total);
	MET("wp_attach_failures_total", "watchpoints that could not be set", true, m->wp_attach_failures_total);
	MET("ringbuf_drops_total", "exact transitions lost: ring buffer full", true, m->ringbuf_drops_total);
	MET("backends_tracked", "backends followed now", false, m->backends_tracked);
	MET("backends_watched", "backends with a watchpoint now", false, m->backends_watched);
	MET("trace_events_written_total", "records written to trace files", true, m->trace_records_written_total);
	MET("trace_bytes_written_total", "bytes written to trace files", true, m->trace_bytes_written_total);
	MET("tier", "0 sampled, 1 escalated, 2 full", false,
		pgwt_mode_always_exact(t->o->mode) ? 2 : t->window_open ? 1 : 0);
	MET("escalation_active", "an exact window is open", false, t->window_open ? 1 : 0);
	MET("exact_available", "1 when the watchpoint self-test passed: exact windows can open", false,
		pgwt_mode_always_exact(t->o->mode) || pgwt_tiered_exact_available(t) ? 1 : 0);
	MET("exact_source", "the escalation windows' exact source: 0 none, 1 watchpoints, 2 the scheduler's tracepoints", false,
		pgwt_tiered_exact_available(t) ? (int) t->source : 0);
	if (m->sched_on)
	{
		/* between windows the scheduler's programs are detached: 0 */
		MET("sched_attached", "1 while the scheduler's tracepoint programs are attached", false, m->sched_attached);
		MET("sched_attaches_total", "times the scheduler's tracepoint programs were attached", true, m->sched_attaches_total);
		MET("sched_missed_run_total", "switch-outs of a backend the scheduler program had off the CPU (its switch-in unseen)", true, m->sched_missed_run_total);
		MET("sched_missed_wake_total", "switch-ins of a backend whose wakeup the scheduler program did not see", true, m->sched_missed_wake_total);
		MET("sched_missed_off_total", "switch-ins of a backend the scheduler program had on the CPU (its switch-out unseen)", true, m->sched_missed_off_total);
		MET("sched_switch_recursion_misses_total", "sched_switch program runs the kernel skipped (one already running on the CPU)", true, m->sched_recursion_misses[0]);
		MET("sched_wakeup_recursion_misses_total", "sched_wakeup and sched_wakeup_new program runs the kernel skipped", true,
			m->sched_recursion_misses[1] + m->sched_recursion_misses[2]);
	}
	MET("exact_self_tests_total", "exact-source self-tests run", true, t->self_tests_total);
	MET("exact_reprobes_total", "--exact-source auto: watchpoint probes before a window while the scheduler stood in", true, t->reprobes_total);
	MET("exact_reselects_total", "--exact-source auto: windows' source chosen again", true, t->reselects_total);
	MET("exact_self_test_failures_total", "exact-source self-tests that saw nothing", true, t->self_test_failures_total);
	MET("escalation_no_exact_total", "escalation requests refused: the exact tier cannot see", true, t->no_exact_denied_total);
	MET("escalation_seconds_remaining", "seconds left in the open window", false, pgwt_esc_seconds_remaining(&t->esc, now));
	METP("escalation_budget_remaining_s", "escalation_budget_remaining_seconds",
		 "exact seconds left this rolling hour (-1 unlimited)", false, pgwt_esc_budget_remaining_s(&t->esc, now));
	MET("escalation_windows_total", "exact windows opened", true, t->esc.windows_total);
	MET("escalation_denied_total", "escalation requests denied", true, t->esc.denied_total);
	MET("escalation_clamped_total", "escalation requests shortened by the budget", true, t->esc.clamped_total);
	MET("anomaly_fires_total", "anomaly rules fired", true, t->anom.fires_total);
	MET("anomaly_near_total", "ticks over a threshold, not sustained yet", true, t->anom.near_total);
	MET("anomaly_dropped_budget_total", "anomaly fires denied by the budget", true, t->anomaly_dropped_budget);
	MET("anomaly_dropped_cooldown_total", "anomaly fires suppressed by the cooldown", true, t->anom.suppressed_cooldown_total);
	MET("anomaly_baseline_aas", "rolling AAS baseline", false, t->anom.baseline);
	if (t->ctl)
	{
		pgwt_control_counters cc;

		pgwt_control_get_counters(t->ctl, &cc);
		MET("control_clients_accepted_total", "control and metrics connections accepted", true, cc.accepted);
		MET("control_clients_refused_total", "control connections refused: peer not allowed, or no room", true,
			cc.refused_peer + cc.refused_full);
		MET("control_clients_closed_total", "connections closed: evicted, idle, or not reading", true,
			cc.evicted + cc.idle_timeouts + cc.write_timeouts);
		MET("control_requests_oversized_total", "requests over the size bound", true, cc.oversized);
	}
	if (t->listen)
	{
		pgwt_esc_listen_counts lc;

		pgwt_esc_listen_get_counts(t->listen, &lc);
		MET("sql_listen_dbs", "databases whose pgwt_escalate() requests are listened to", false, lc.dbs);
		MET("sql_listen_capped", "databases with the extension not listened to: too many", false, lc.capped);
		MET("sql_requests_total", "pgwt_escalate()/pgwt_deescalate() requests received", true, lc.notices_total);
		MET("sql_requests_authorized_total", "requests whose sender may call the function: acted on", true, lc.authorized_total);
		MET("sql_requests_refused_total", "requests refused: sender not authorized, gone or not looked up", true, lc.refused_total);
		MET("sql_requests_malformed_total", "notifications on the channel that did not parse", true, lc.malformed_total);
		MET("sql_reports_total", "states reported with pgwt_tracer_report()", true, lc.reports_total);
		MET("sql_listen_errors_total", "listener connections or statements that failed", true, lc.errors_total);
	}
#undef MET
#undef METP
	return n;
}

static size_t
ctl_series(void *arg, pgwt_wait_series *out, size_t max)
{
	pgwt_tiered *t = arg;
	const pgwt_wait_totals *w = t->totals;
	size_t		n = 0;

	if (!w)
		return 0;
	for (size_t i = 0; i <= w->n && n < max; i++)
	{
		const pgwt_wait_total *r = i < w->n ? &w->row[i] : &w->other;

		if (!r->used)
			continue;
		if (r == &w->other)
		{
			snprintf(out[n].wait_event_type, sizeof(out[n].wait_event_type), "Other");
			snprintf(out[n].wait_event, sizeof(out[n].wait_event), "Other");
		}
		else
			pgwt_wait_totals_labels(t->names, r->id, out[n].wait_event_type, sizeof(out[n].wait_event_type),
									out[n].wait_event, sizeof(out[n].wait_event));
		out[n].seconds = (double) r->ns / 1e9;
		out[n].samples = r->samples;
		out[n].waits = r->waits;
		n++;
	}
	return n;
}

static void
ctl_escalate(void *arg, long long duration_s, pgwt_json_out *out)
{
	pgwt_tiered *t = arg;
	uint64_t	now = pgwt_mono_ns();
	int64_t		granted = 0;
	pgwt_esc_result r;

	if (t->o->mode != PGWT_MODE_TIERED)
	{
		pgwt_json_bool(out, "ok", false);
		pgwt_json_str(out, "error", "escalation needs --mode tiered");
		pgwt_json_int(out, "budget_remaining_s", pgwt_esc_budget_remaining_s(&t->esc, now));
		return;
	}
	r = tiered_request(t, now, duration_s, PGWT_ESC_MANUAL, &granted);
	if (r == PGWT_ESC_GRANTED || r == PGWT_ESC_CLAMPED)
	{
		pgwt_json_bool(out, "ok", true);
		pgwt_json_bool(out, "escalated", true);
		pgwt_json_bool(out, "clamped", r == PGWT_ESC_CLAMPED);
		pgwt_json_int(out, "granted_s", granted);
		pgwt_json_int(out, "seconds_remaining", pgwt_esc_seconds_remaining(&t->esc, now));
	}
	else if (r == PGWT_ESC_DENIED_NO_EXACT)
	{
		char		msg[320];

		pgwt_json_bool(out, "ok", false);
		snprintf(msg, sizeof(msg), "no exact tier, sampled only: %s",
				 t->why_no_watch[0] ? t->why_no_watch : "the exact tier is not available");
		pgwt_json_str(out, "error", msg);
	}
	else
	{
		pgwt_json_bool(out, "ok", false);
		pgwt_json_str(out, "error", r == PGWT_ESC_DENIED_DISABLED ?
					  "escalation is disabled (--escalation-budget 0)" :
					  r == PGWT_ESC_DENIED_EXHAUSTED ? "escalation budget exhausted for this hour" :
					  "bad duration");
	}
	pgwt_json_int(out, "budget_remaining_s", pgwt_esc_budget_remaining_s(&t->esc, now));
}

static void
ctl_deescalate(void *arg, pgwt_json_out *out)
{
	pgwt_tiered *t = arg;
	uint64_t	now = pgwt_mono_ns();

	if (t->o->mode != PGWT_MODE_TIERED)
	{
		pgwt_json_bool(out, "ok", false);
		pgwt_json_str(out, "error", "deescalation needs --mode tiered");
		return;
	}
	pgwt_esc_deescalate(&t->esc, now);
	tiered_close_window(t, now, "deescalated");
	pgwt_json_bool(out, "ok", true);
	pgwt_json_bool(out, "escalated", false);
	pgwt_json_int(out, "budget_remaining_s", pgwt_esc_budget_remaining_s(&t->esc, now));
}

/* ---- SQL requests (esc_listen.c) ----------------------------------------- */

static const char *
tiered_result_text(pgwt_esc_result r)
{
	switch (r)
	{
		case PGWT_ESC_GRANTED:
			return "granted";
		case PGWT_ESC_CLAMPED:
			return "clamped by the tracer's budget";
		case PGWT_ESC_DENIED_DISABLED:
			return "refused: the tracer's escalation budget is 0";
		case PGWT_ESC_DENIED_EXHAUSTED:
			return "refused: the tracer's budget is exhausted for this hour";
		case PGWT_ESC_DENIED_BAD_REQUEST:
			return "refused: bad duration";
		case PGWT_ESC_DENIED_NO_EXACT:
			return "refused: no exact tier, sampled only";
	}
	return "unknown";
}

static void
tiered_on_notice(void *arg, const pgwt_esc_notice *n, const char *db)
{
	pgwt_tiered *t = arg;
	uint64_t	now = pgwt_mono_ns();

	t->last_request_id = n->id;
	t->last_request_pid = n->be_pid;
	if (n->op == PGWT_ESC_OP_DEESCALATE)
	{
		t->last_granted_s = 0;
		if (t->o->mode == PGWT_MODE_TIERED && t->window_open)
		{
			pgwt_esc_deescalate(&t->esc, now);
			tiered_close_window(t, now, "deescalated");
		}
		else
			snprintf(t->last_reason, sizeof(t->last_reason), "%s",
					 t->o->mode == PGWT_MODE_FULL ? "already exact: --mode full" :
					 t->o->mode == PGWT_MODE_SCHED ? "already exact: --mode sched" :
					 "deescalate: no window open");
	}
	else if (pgwt_mode_always_exact(t->o->mode))
	{
		t->last_granted_s = 0;
		snprintf(t->last_reason, sizeof(t->last_reason), "already exact: --mode %s traces %s",
				 pgwt_mode_name(t->o->mode), t->o->mode == PGWT_MODE_FULL ?
				 "every transition" : "every wait that blocks");
	}
	else if (t->o->mode != PGWT_MODE_TIERED)
	{
		t->last_granted_s = 0;
		snprintf(t->last_reason, sizeof(t->last_reason),
				 "refused: no exact tier: the daemon runs --mode sampled");
	}
	else
	{
		int64_t		granted = 0;
		pgwt_esc_result r = tiered_request(t, now, n->seconds, PGWT_ESC_MANUAL, &granted);

		t->last_granted_s = granted;
		if (r == PGWT_ESC_DENIED_NO_EXACT)
			snprintf(t->last_reason, sizeof(t->last_reason), "%s: %.220s", tiered_result_text(r),
					 t->why_no_watch[0] ? t->why_no_watch : "the exact tier is not available");
		else
			snprintf(t->last_reason, sizeof(t->last_reason), "%s%s", tiered_result_text(r),
					 (r == PGWT_ESC_GRANTED || r == PGWT_ESC_CLAMPED) && !n->classes_all ?
					 "; every class is traced" : "");
	}
	tiered_report_soon(t);
	if (t->o->verbose || t->o->daemon)
	{
		/* names from the database: escaped, bounded */
		char		edb[4 * PGWT_ESC_LOG_MAX_IN + 4],
					erole[4 * PGWT_ESC_LOG_MAX_IN + 4];

		fprintf(stderr, "pg_wait_tracer: SQL %s request %lld (%lld s) from database \"%s\", backend %d (role \"%s\"): %s\n",
				n->op == PGWT_ESC_OP_ESCALATE ? "escalate" : "deescalate", n->id,
				n->op == PGWT_ESC_OP_ESCALATE ? n->seconds : 0,
				pgwt_esc_log_escape(db, PGWT_ESC_LOG_MAX_IN, edb, sizeof(edb)), n->be_pid,
				pgwt_esc_log_escape(n->role, PGWT_ESC_LOG_MAX_IN, erole, sizeof(erole)),
				t->last_reason);
	}
}

static void
tiered_report_state(void *arg, pgwt_esc_report *r)
{
	pgwt_tiered *t = arg;
	uint64_t	now = pgwt_mono_ns();

	r->mode = pgwt_mode_name(t->o->mode);
	r->tier = pgwt_tiered_tier(t);
	r->window_open = t->window_open;
	r->window_id = (long long) t->window_id;
	r->seconds_left = t->window_open ? pgwt_esc_seconds_remaining(&t->esc, now) : 0;
	r->budget_left_s = pgwt_esc_budget_remaining_s(&t->esc, now);
	r->granted_s = t->last_granted_s;
	r->request_id = t->last_request_id;
	r->request_pid = t->last_request_pid;
	r->exact = pgwt_mode_always_exact(t->o->mode) || pgwt_tiered_exact_available(t);
	/* sampled only: the reason that stays true is why */
	r->reason = r->exact || !t->why_no_watch[0] ? t->last_reason : t->why_no_watch;
}

/* ---- the loop's side ---------------------------------------------------- */

int
pgwt_tiered_create(pgwt_tiered **out, const pgwt_options *o, int trace_dirfd,
				   pgwt_self_metrics *metrics, pgwt_emit_fn emit, void *arg, char *err,
				   size_t errlen)
{
	pgwt_tiered *t = calloc(1, sizeof(*t));
	pgwt_anomaly_cfg ac;

	*out = NULL;
	if (!t)
	{
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->o = o;
	t->m = metrics;
	t->emit = emit;
	t->emit_arg = arg;
	t->dirfd = o->trace_dir ? trace_dirfd : -1;
	t->start_ns = pgwt_mono_ns();
	pgwt_esc_init(&t->esc, o->mode == PGWT_MODE_TIERED ?
				  (o->escalation_budget < 0 ? PGWT_BUDGET_UNLIMITED : o->escalation_budget) : 0);

	pgwt_anomaly_defaults(&ac);
#define AN(k, field) do { if (o->anomaly_set & (1u << (k))) ac.field = o->anomaly[k]; } while (0)
	AN(PGWT_CLI_AN_AAS_FACTOR, aas_factor);
	AN(PGWT_CLI_AN_AAS_MIN, aas_min_aas);
	AN(PGWT_CLI_AN_LOCK_FRACTION, lock_fraction);
	AN(PGWT_CLI_AN_LOCK_MIN_AAS, lock_min_aas);
	AN(PGWT_CLI_AN_COOLDOWN_S, cooldown_s);
	AN(PGWT_CLI_AN_WINDOW_S, window_s);
	AN(PGWT_CLI_AN_CPU_MIN_AAS, cpu_min_aas);
	AN(PGWT_CLI_AN_CPU_MARGIN, cpu_margin);
	AN(PGWT_CLI_AN_CPU_K, cpu_k);
	AN(PGWT_CLI_AN_CPU_H, cpu_h);
	AN(PGWT_CLI_AN_CPU_CAP, cpu_cap);
	AN(PGWT_CLI_AN_CPU_GAP_S, cpu_gap_s);
#undef AN
	if (o->anomaly_set & (1u << PGWT_CLI_AN_AAS_TICKS))
		ac.aas_ticks = (int) o->anomaly[PGWT_CLI_AN_AAS_TICKS];
	if (o->anomaly_set & (1u << PGWT_CLI_AN_CPU_CAPACITY))
	{
		ac.cpu_capacity = o->anomaly[PGWT_CLI_AN_CPU_CAPACITY];
		ac.cpu_capacity_exact = true;
	}
	if (o->anomaly_cpu_disable)
		ac.cpu_enabled = false;
	pgwt_anomaly_init(&t->anom, &ac);
	t->anom_on = o->mode == PGWT_MODE_TIERED;

	t->ops = (pgwt_control_ops) {ctl_status, ctl_metrics, ctl_series, ctl_escalate, ctl_deescalate, t};
	/* the time of the sampled tier where it runs, else the exact tier's */
	t->totals = malloc(sizeof(*t->totals));
	if (t->totals)
		pgwt_wait_totals_init(t->totals, pgwt_mode_always_exact(o->mode));
	t->last_request_id = -1;
	snprintf(t->last_reason, sizeof(t->last_reason), "started");
	if (o->mode == PGWT_MODE_SAMPLED)
		snprintf(t->why_no_watch, sizeof(t->why_no_watch), "the daemon runs --mode sampled");
	{
		pgwt_esc_listen_ops lo = {tiered_on_notice, tiered_report_state, t};

		/* the daemon only: a one-off run has no one to answer */
		t->listen = o->daemon ? pgwt_esc_listen_create(o->host, o->user, o->dbname, &lo) : NULL;
		/* without it SQL requests go unanswered, but tracing goes on */
		if (o->daemon && !t->listen)
			fprintf(stderr, "pg_wait_tracer: out of memory: pgwt_escalate() requests are not listened to\n");
	}
	if (o->trace_dir)
	{
		char		path[4096];

		snprintf(path, sizeof(path), "%s/pgwt.sock", o->trace_dir);
		if ((trace_dirfd >= 0 ?
			 pgwt_control_open_at(&t->ctl, trace_dirfd, "pgwt.sock", path, o->metrics_listen,
								  &t->ops, err, errlen) :
			 pgwt_control_open(&t->ctl, path, o->metrics_listen, &t->ops, err, errlen)) != 0)
		{
			pgwt_esc_listen_free(t->listen);
			free(t);
			return -1;
		}
	}
	*out = t;
	return 0;
}

void
pgwt_tiered_set_session(pgwt_tiered *t, pgwt_capture_source *watch, bool exact_ok,
						const char *why, int pg_pid, int pg_major, uint64_t now_ns)
{
	if (!watch)
	{
		if (t->window_open)
		{
			/* the cluster went away: the window ends with it */
			pgwt_esc_deescalate(&t->esc, now_ns);
			tiered_close_window(t, now_ns, "cluster gone");
		}
	}
	if (t->listen && pg_pid != t->pg_pid)
	{
		pgwt_cluster cl;
		char		err[256];

		/* a new postmaster: listen again in its databases */
		if (pg_pid && pgwt_cluster_from_pid(pg_pid, &cl, err, sizeof(err)) == 0)
			pgwt_esc_listen_set_cluster(t->listen, &cl);
		else
			pgwt_esc_listen_set_cluster(t->listen, NULL);
	}
	t->watch = watch;
	t->source = watch ? pgwt_exact_source_of(watch->name) : PGWT_TF_XSRC_UNKNOWN;
	t->exact_ok = watch != NULL && exact_ok;
	if (watch && exact_ok)
		t->why_no_watch[0] = '\0';
	else if (t->o->mode == PGWT_MODE_SAMPLED)
		snprintf(t->why_no_watch, sizeof(t->why_no_watch), "the daemon runs --mode sampled");
	else
		snprintf(t->why_no_watch, sizeof(t->why_no_watch), "%s", why && *why ? why :
				 "the exact tier is not available");
	if (pg_pid && t->o->mode == PGWT_MODE_TIERED && !t->window_open)
		snprintf(t->last_reason, sizeof(t->last_reason), "%s%.250s",
				 t->exact_ok ? "attached: exact windows on request, source " : "attached, sampled only: ",
				 t->exact_ok ? pgwt_tf_exact_source_name(t->source) : t->why_no_watch);
	/* tested at attach: the next test is due before a window or in a minute */
	if (watch)
	{
		t->self_test_ns = now_ns;
		t->self_tests_total++;
		if (!exact_ok)
			t->self_test_failures_total++;
	}
	t->pg_pid = pg_pid;
	t->pg_major = pg_major;
	if (pg_pid && !(t->o->anomaly_set & (1u << PGWT_CLI_AN_CPU_CAPACITY)))
	{
		cpu_set_t	cs;

		/* affinity-only capacity: the rules add their margin */
		if (sched_getaffinity(pg_pid, sizeof(cs), &cs) == 0)
			pgwt_anomaly_set_capacity(&t->anom, CPU_COUNT(&cs), false);
	}
}

void
pgwt_tiered_note_records(pgwt_tiered *t, const pgwt_record *recs, size_t n)
{
	if (t->totals)
		pgwt_wait_totals_add(t->totals, recs, n);
}

void
pgwt_tiered_set_names(pgwt_tiered *t, const pgwt_names *names)
{
	t->names = names;
}

void
pgwt_tiered_on_samples(pgwt_tiered *t, const pgwt_record *recs, size_t n)
{
	pgwt_tick_load l;

	pgwt_tick_load_of(recs, n, t->pg_major, &l);
	t->load = l;
	t->tick_pending = true;
}

void
pgwt_tiered_step(pgwt_tiered *t, uint64_t now_ns)
{
	if (t->listen && now_ns >= t->listen_step_ns)
	{
		pgwt_esc_listen_step(t->listen, now_ns);
		t->listen_step_ns = now_ns + TIERED_LISTEN_STEP_NS;
	}
	if (t->o->mode == PGWT_MODE_TIERED && t->watch && !t->exact_ok &&
		now_ns - t->self_test_ns >= TIERED_IDLE_RETEST_NS && tiered_exact_ready(t, now_ns))
		tiered_report_soon(t);
	if (t->window_open)
	{
		pgwt_esc_close c = pgwt_esc_tick(&t->esc, now_ns);

		if (c == PGWT_ESC_CLOSED_EXPIRED || c == PGWT_ESC_CLOSED_BUDGET ||
			c == PGWT_ESC_NOT_OPEN)
			tiered_close_window(t, now_ns, c == PGWT_ESC_CLOSED_BUDGET ? "budget spent" : "expired");
	}
	else
		pgwt_esc_tick(&t->esc, now_ns);

	if (t->anom_on && t->tick_pending && t->m)
	{
		pgwt_anomaly_tick at;
		pgwt_anomaly_verdict v;

		t->tick_pending = false;
		memset(&at, 0, sizeof(at));
		at.now_ns = now_ns;
		at.dt_s = 1.0 / t->o->sample_rate;
		at.complete = t->m->sample_read_faults_total == t->faults_seen;
		t->faults_seen = t->m->sample_read_faults_total;
		at.aas = t->load.aas;
		at.lock_aas = t->load.lock_aas;
		at.cpu_aas = t->load.cpu_aas;
		v = pgwt_anomaly_observe(&t->anom, &at);
		if (v == PGWT_ANOM_FIRE)
		{
			int64_t		granted;
			pgwt_esc_result r;

			r = tiered_request(t, now_ns, (int64_t) t->anom.cfg.window_s, t->anom.last_reason, &granted);
			if (r != PGWT_ESC_GRANTED && r != PGWT_ESC_CLAMPED && r != PGWT_ESC_DENIED_NO_EXACT)
				t->anomaly_dropped_budget++;
			if (t->o->verbose || t->o->daemon)
				fprintf(stderr, "pg_wait_tracer: anomaly %s (AAS %.1f, lock AAS %.1f): %s\n",
						pgwt_esc_reason_name(t->anom.last_reason), at.aas, at.lock_aas,
						pgwt_esc_result_name(r));
		}
	}
}

void
pgwt_tiered_service(pgwt_tiered *t, int timeout_ms)
{
	uint64_t	deadline = pgwt_mono_ns() + (uint64_t) (timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;

	if (!t->listen)
	{
		if (t->ctl)
			pgwt_control_service(t->ctl, timeout_ms);
		return;
	}
	/*
	 * One poll over the listener's and the control socket's descriptors,
	 * until the deadline: the listener is stepped here only when one of its
	 * sockets is ready or a report is due at once (a window changed); its
	 * timers are stepped by pgwt_tiered_step() after the loop's next tick,
	 * so an idle daemon wakes once per tick.
	 */
	for (;;)
	{
		struct pollfd pfd[PGWT_ESC_LISTEN_MAX_DBS + 1 + PGWT_CONTROL_MAX_POLLFDS];
		uint64_t	now = pgwt_mono_ns();
		int			nl = pgwt_esc_listen_pollfds(t->listen, pfd, PGWT_ESC_LISTEN_MAX_DBS + 1);
		int			nc = t->ctl ? pgwt_control_pollfds(t->ctl, pfd + nl, PGWT_CONTROL_MAX_POLLFDS) : 0;
		int			ms = now < deadline ? (int) ((deadline - now + 999999ull) / 1000000ull) : 0;
		bool		listen_ready = false;

		if (t->listen_step_ns == 0)
			ms = 0;				/* a report is due now */
		if (nl + nc > 0 || ms > 0)
			(void) poll(nl + nc ? pfd : NULL, (nfds_t) (nl + nc), ms);
		for (int i = 0; i < nl; i++)
			listen_ready |= pfd[i].revents != 0;
		now = pgwt_mono_ns();
		if (listen_ready || t->listen_step_ns == 0)
		{
			pgwt_esc_listen_step(t->listen, now);
			t->listen_step_ns = now + TIERED_LISTEN_STEP_NS;
		}
		if (nc > 0)
			pgwt_control_handle(t->ctl, pfd + nl, nc);
		if (pgwt_mono_ns() >= deadline)
			break;
	}
}

void
pgwt_tiered_set_reselect(pgwt_tiered *t, pgwt_tiered_reselect_fn fn, void *arg)
{
	t->reselect = fn;
	t->reselect_arg = arg;
}

void
pgwt_tiered_set_side_opts(pgwt_tiered *t, const pgwt_tf_file_opts *opts)
{
	t->side_opts = opts;
}

bool
pgwt_tiered_has_control(const pgwt_tiered *t)
{
	return t->ctl != NULL || t->listen != NULL;
}

bool
pgwt_tiered_exact_available(const pgwt_tiered *t)
{
	return t->o->mode == PGWT_MODE_TIERED && t->watch != NULL && t->exact_ok;
}

const char *
pgwt_tiered_tier(const pgwt_tiered *t)
{
	if (pgwt_mode_always_exact(t->o->mode))
		return pgwt_mode_name(t->o->mode);
	return t->window_open ? "escalated" : "sampled";
}

void
pgwt_tiered_free(pgwt_tiered *t, uint64_t now_ns)
{
	if (!t)
		return;
	if (t->window_open)
	{
		pgwt_esc_deescalate(&t->esc, now_ns);
		tiered_close_window(t, now_ns, "stopping");
	}
	pgwt_esc_listen_free(t->listen);
	pgwt_control_close(t->ctl);
	free(t->totals);
	free(t);
}
