/*
 * live.c
 *		The live loop: tick the capture source on its schedule, feed the
 *		records to the recorder and the analysis engine, refresh backend
 *		metadata through libpq, render the view every interval. In daemon
 *		mode a dead postmaster is waited for and the cluster re-attached.
 *
 * Views: without --window one engine accumulates since start; with
 * --window the records of the longest window are kept in a ring and an
 * engine over [now - w, now) for each window is built at each refresh.
 *
 * Single-threaded; signal handlers only set a flag.
 */
#include "tracer/live.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/engine.h"
#include "analysis/views.h"
#include "common/clock.h"
#include "tracer/blockers.h"
#include "tracer/output.h"
#include "tracer/record_ring.h"
#include "tracer/recorder.h"
#include "tracer/sampler.h"
#include "tracer/session.h"
#include "tracer/tiered.h"
#include "tracer/watch_source.h"

/*
 * pg_stat_activity is read when backends appeared since the last read (at
 * most once a second) and otherwise every LIVE_META_IDLE_NS: it is the
 * tracer's only cost on the server itself.
 */
#define LIVE_META_NS		1000000000ull
#define LIVE_META_IDLE_NS	10000000000ull
#define LIVE_REATTACH_POLL_NS	200000000ull
#define LIVE_META_CACHE		8192
#define LIVE_RING_MAX		((size_t) 1 << 21)	/* records kept for --window */
#define LIVE_MAX_LIVE		16384
#define LIVE_BLOCKERS_NS	1000000000ull	/* pg_blocking_pids at most 1/s */
#define LIVE_RT_GUARD_NS	5000000ull	/* see the loop: real-time before a tick */

static volatile sig_atomic_t live_stop = 0;

/*
 * The live stream is in time order: an escalation marker is emitted before
 * any record of its window, so samples need not wait in the engine's
 * reorder queue.
 */
static const pgwt_engine_config live_engine_cfg = {.sample_reorder_ns = 1};

static void
live_on_signal(int sig)
{
	(void) sig;
	live_stop = 1;
}

typedef struct live_ctx
{
	const pgwt_options *o;
	pgwt_self_metrics metrics;
	pgwt_session sess;
	int			attached;
	pgwt_recorder *rec;
	pgwt_engine *eng;			/* cumulative engine (no --window) */
	pgwt_record_ring ring;		/* --window: recent records */
	pgwt_names names;
	pgwt_output out;
	int			render;			/* print views */
	uint64_t	start_ns;
	uint64_t	last_meta_ns;
	uint64_t	meta_seen;		/* backends_seen_total at the last read */
	bool		meta_recheck;	/* a child too young to classify: read again */
	bool		non_sessions_warned;	/* said that the set is full */
	pgwt_backend_info *meta;	/* metadata cache, by insertion */
	size_t		nmeta;
	int			record_error;
	pgwt_tiered *tier;			/* escalation and the control socket */
	pgwt_blockers blk;			/* Lock waiters -> pg_blocking_pids */
	int			agg_rows;		/* --lightweight rendering */
} live_ctx;

static void
live_sleep_until(uint64_t deadline)
{
	struct timespec ts = {(time_t) (deadline / 1000000000ull), (long) (deadline % 1000000000ull)};

	/* returns early on a signal, which is what stopping needs */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/*
 * Wait for deadline, serving the control socket meanwhile. With wake_fd
 * (the exact tier's fork notifications) returns 1 as soon as it is
 * readable, so a new backend is watched within a millisecond of its fork.
 */
static int
live_wait(pgwt_tiered *tier, int wake_fd, uint64_t deadline)
{
	bool		ctl = tier && pgwt_tiered_has_control(tier);

	while (!live_stop)
	{
		uint64_t	now = pgwt_mono_ns();
		struct pollfd pfd;
		int			ms;

		if (now >= deadline)
			return 0;
		if (wake_fd < 0 && !ctl)
		{
			live_sleep_until(deadline);
			return 0;
		}
		if (wake_fd < 0)
		{
			/*
			 * Round up: the poll then ends at most a millisecond after the
			 * deadline (the tick is billed the time really elapsed) instead
			 * of just before it, which took a second wake-up to sleep the
			 * rest.
			 */
			pgwt_tiered_service(tier, (int) ((deadline - now + 999999ull) / 1000000ull));
			continue;
		}
		if (deadline - now < 1000000ull)
		{
			live_sleep_until(deadline);
			return 0;
		}
		ms = (int) ((deadline - now) / 1000000ull);
		pfd.fd = wake_fd;
		pfd.events = POLLIN;
		/* the control socket is served between short polls */
		if (poll(&pfd, 1, ctl && ms > 5 ? 5 : ms) > 0)
			return 1;
		if (ctl)
			pgwt_tiered_service(tier, 0);
	}
	return 0;
}

static void
live_emit(void *arg, const pgwt_record *recs, size_t n)
{
	live_ctx   *c = arg;

	pgwt_blockers_note(&c->blk, recs, n);
	if (c->tier)
		pgwt_tiered_note_records(c->tier, recs, n);
	/* a daemon that prints nothing needs no views: it only records */
	if (!c->render)
		;
	else if (c->eng)
		pgwt_engine_add_many(c->eng, recs, n);
	else
		pgwt_ring_push(&c->ring, recs, n);
	if (c->rec && !c->record_error)
	{
		int			rc = pgwt_recorder_append(c->rec, recs, n);

		pgwt_recorder_note_events(c->rec, recs, n);
		if (rc < 0)
		{
			fprintf(stderr, "pg_wait_tracer: trace recording failed: %s\n", pgwt_recorder_error(rc));
			c->record_error = 1;
		}
	}
}

/* The sampler's records: also the anomaly rules' input. */
static void
live_emit_sampled(void *arg, const pgwt_record *recs, size_t n)
{
	live_ctx   *c = arg;

	if (c->tier)
		pgwt_tiered_on_samples(c->tier, recs, n);
	live_emit(arg, recs, n);
}

static void
live_on_blockers(void *arg, uint64_t ts_ns, uint32_t waiter, const uint32_t *blockers, int n)
{
	live_ctx   *c = arg;
	pgwt_blocker_obs obs;

	if (!c->eng)
		return;
	memset(&obs, 0, sizeof(obs));
	obs.ts_ns = ts_ns;
	obs.waiter_pid = waiter;
	obs.nblockers = (uint32_t) (n > PGWT_MAX_BLOCKERS ? PGWT_MAX_BLOCKERS : n);
	memcpy(obs.blocker_pids, blockers, obs.nblockers * sizeof(uint32_t));
	pgwt_engine_feed_blockers(c->eng, &obs);
}

static pgwt_backend_info *
live_meta_find(live_ctx *c, uint32_t pid)
{
	for (size_t i = c->nmeta; i-- > 0;)
		if (c->meta[i].pid == pid)
			return &c->meta[i];
	return NULL;
}

/* pg_stat_activity rows, read by one caller at a time (single-threaded) */
static pgwt_pg_backend live_rows[4096];

static void
live_refresh_meta(live_ctx *c, uint64_t now)
{
	pgwt_pg_backend *rows = live_rows;
	int			n;

	if (!c->sess.pg || now - c->last_meta_ns < LIVE_META_NS)
		return;
	if (c->last_meta_ns && c->metrics.backends_seen_total == c->meta_seen &&
		!c->meta_recheck && now - c->last_meta_ns < LIVE_META_IDLE_NS)
		return;
	c->last_meta_ns = now;
	c->meta_seen = c->metrics.backends_seen_total;
	n = pgwt_pg_backends(c->sess.pg, rows, 4096);
	if (n < 0)
		return;
	/* a reset connection has a new backend: keep not sampling ourselves */
	pgwt_session_ignore_pid(&c->sess, (uint32_t) pgwt_pg_backend_pid(c->sess.pg));
	c->meta_recheck = pgwt_session_classify(&c->sess, rows, n, now);
	if (c->sess.non_sessions_capped && !c->non_sessions_warned)
	{
		fprintf(stderr, "pg_wait_tracer: %" PRIu64 " processes that are no session are traced anyway (more than %d)\n",
				c->sess.non_sessions_capped, PGWT_OWN_SLOTS);
		c->non_sessions_warned = true;
	}
	for (int i = 0; i < n; i++)
	{
		pgwt_pg_backend *b = &rows[i];
		pgwt_backend_info *bi = live_meta_find(c, b->pid);

		if (b->pid == (uint32_t) pgwt_pg_backend_pid(c->sess.pg))
			continue;
		if (!bi || strcmp(bi->type, b->type) != 0 || strcmp(bi->user, b->user) != 0)
		{
			if (!bi)
			{
				if (c->nmeta == LIVE_META_CACHE)
				{
					/* forget the oldest half */
					memmove(c->meta, c->meta + LIVE_META_CACHE / 2,
							(LIVE_META_CACHE / 2) * sizeof(pgwt_backend_info));
					c->nmeta = LIVE_META_CACHE / 2;
				}
				bi = &c->meta[c->nmeta++];
			}
			memset(bi, 0, sizeof(*bi));
			bi->pid = b->pid;
			bi->leader_pid = b->leader_pid;
			snprintf(bi->type, sizeof(bi->type), "%s", b->type);
			snprintf(bi->user, sizeof(bi->user), "%s", b->user);
			snprintf(bi->database, sizeof(bi->database), "%s", b->database);
			snprintf(bi->application, sizeof(bi->application), "%s", b->application);
			snprintf(bi->client_addr, sizeof(bi->client_addr), "%s", b->client_addr);
			if (c->eng)
				pgwt_engine_set_backend(c->eng, bi);
			if (c->rec)
				pgwt_recorder_backend(c->rec, b);
		}
		if (c->rec && b->query_id)
			pgwt_recorder_query(c->rec, b->query_id, b->query);
	}
}

/*
 * At attach, before the first tick: leave out the processes that are no
 * session from the start (the metadata itself is read in the loop, once
 * the recorder exists).
 */
static void
live_classify_now(live_ctx *c)
{
	int			n;

	if (!c->sess.pg || (n = pgwt_pg_backends(c->sess.pg, live_rows, 4096)) < 0)
		return;
	c->meta_recheck = pgwt_session_classify(&c->sess, live_rows, n, pgwt_mono_ns());
}

static void
live_tier_session(live_ctx *c)
{
	if (c->tier && c->attached)
		pgwt_tiered_set_session(c->tier, c->sess.watch, c->sess.exact_ok, c->sess.watch_err,
								c->sess.cluster.pid, c->sess.cluster.pg_major, pgwt_mono_ns());
}

/* Tiered auto: the session chooses the windows' source again (tiered.h). */
static void
live_reselect_exact(void *arg)
{
	live_ctx   *c = arg;

	if (!c->attached)
		return;
	pgwt_session_reselect_exact(&c->sess, c->o, &c->metrics);
	live_tier_session(c);
}

/*
 * The capture stops (a signal, --duration, --count): what an exact source
 * enabled for the whole run (--mode full or sched) holds goes to the
 * recorder before it closes, as the end of a tiered window sends its own
 * (tiered.c): the kernel's ring buffer drained and each backend's open
 * state cut at now. The loop drains the ring buffer every 10 ms only while
 * it runs, and a daemon behind on a loaded host (or stopped by a signal)
 * holds more than that; leaving the loop without this dropped it, the
 * run-queue waits in it included. After the last view: its status still
 * counts the backends traced. In tiered mode pgwt_tiered_free closes the
 * window and this does nothing.
 */
static void
live_stop_capture(live_ctx *c)
{
	if (!c->attached || !c->sess.watch || !pgwt_watch_source_enabled(c->sess.watch) ||
		(c->o->mode != PGWT_MODE_FULL && c->o->mode != PGWT_MODE_SCHED))
		return;
	pgwt_watch_source_enable(c->sess.watch, false, pgwt_mono_ns(), live_emit, c);
}

/* Close the session (the cluster went away); an open window ends first. */
static void
live_detach(live_ctx *c, uint64_t now)
{
	if (c->tier)
		pgwt_tiered_set_session(c->tier, NULL, false, "not attached", 0, 0, now);
	pgwt_session_close(&c->sess);
	c->attached = 0;
}

static int
live_attach(live_ctx *c, const pgwt_cluster *cl, char *err, size_t errlen)
{
	if (pgwt_session_open(&c->sess, c->o, cl, &c->metrics, err, errlen) != 0)
		return -1;
	c->attached = 1;
	pgwt_names_free(&c->names);
	pgwt_names_init(&c->names, cl->pg_major);
	c->out.names = &c->names;
	c->out.pg_major = cl->pg_major;
	if (c->rec)
		pgwt_recorder_set_names(c->rec, &c->names);
	c->last_meta_ns = 0;
	if (c->sess.sampler)
	{
		const char *why = NULL;

		if (pgwt_sampler_priority(c->sess.sampler, &why) == 0 && why)
			fprintf(stderr, "pg_wait_tracer: --sampler-priority: %s: sampling at normal priority, which undercounts CPU on a saturated host\n",
					why);
	}
	pgwt_session_connect(&c->sess, c->o, pgwt_mono_ns(), c->o->verbose);
	live_classify_now(c);
	/* full: watch once the query id offset is known (or known unknowable) */
	if (c->o->mode == PGWT_MODE_FULL || c->o->mode == PGWT_MODE_SCHED)
		pgwt_watch_source_enable(c->sess.watch, true, pgwt_mono_ns(), live_emit, c);
	live_tier_session(c);
	if (c->o->verbose || c->o->daemon)
	{
		if (c->o->mode == PGWT_MODE_FULL || c->o->mode == PGWT_MODE_SCHED)
			fprintf(stderr, "pg_wait_tracer: attached to postmaster %d (PostgreSQL %d, %s), %s tier, %d backends watched\n",
					cl->pid, cl->pg_major, cl->pgdata, pgwt_mode_name(c->o->mode),
					(int) c->metrics.backends_watched);
		else
			fprintf(stderr, "pg_wait_tracer: attached to postmaster %d (PostgreSQL %d, %s), %u Hz, %s\n",
					cl->pid, cl->pg_major, cl->pgdata, c->o->sample_rate, pgwt_mode_name(c->o->mode));
	}
	return 0;
}

/* Daemon: wait for a postmaster in the same data directory. */
static int
live_wait_for_cluster(live_ctx *c, const char *pgdata, int old_pid)
{
	char		err[512];

	fprintf(stderr, "pg_wait_tracer: postmaster %d exited; waiting for the cluster in %s\n",
			old_pid, pgdata);
	while (!live_stop)
	{
		pgwt_cluster cl;
		uint64_t	now = pgwt_mono_ns();

		if (c->rec)
			pgwt_recorder_periodic(c->rec, now);
		/* attach once it accepts connections: its socket is known then */
		if (pgwt_cluster_from_pgdata(pgdata, &cl, err, sizeof(err)) == 0 && cl.pid != old_pid &&
			cl.ready)
		{
			if (live_attach(c, &cl, err, sizeof(err)) == 0)
				return 0;
			fprintf(stderr, "pg_wait_tracer: %s\n", err);
		}
		live_sleep_until(now + LIVE_REATTACH_POLL_NS);
	}
	return -1;
}

static void
live_agg_row(uint32_t event, uint64_t count, uint64_t total_ns, uint64_t max_ns, void *arg)
{
	live_ctx   *c = arg;
	char		name[128];

	pgwt_event_format(&c->names, event, name, sizeof(name));

	if (c->out.format == PGWT_FORMAT_JSON)
		fprintf(c->out.out, "%s{\"event\":\"%s\",\"waits\":%" PRIu64 ",\"total_ns\":%" PRIu64
				",\"max_ns\":%" PRIu64 "}", c->agg_rows++ ? "," : "", name, count, total_ns, max_ns);
	else
		fprintf(c->out.out, "%-40s %12" PRIu64 " %14.3f %12.3f\n", name, count,
				(double) total_ns / 1e6, (double) max_ns / 1e6);
}

/*
 * --lightweight: the kernel keeps per-event totals (count, time, max) and
 * no transitions, so the engine's views are empty: print the totals.
 */
static void
live_render_aggregates(live_ctx *c)
{
	c->agg_rows = 0;
	if (c->out.format == PGWT_FORMAT_JSON)
		fputs("{\"view\":\"kernel_aggregates\",\"fidelity\":\"exact\",\"rows\":[", c->out.out);
	else
		fprintf(c->out.out, "%-40s %12s %14s %12s\n", "Event (kernel aggregates since start)",
				"Waits", "Total ms", "Max ms");
	pgwt_watch_source_aggregates(c->sess.watch, live_agg_row, c);
	if (c->out.format == PGWT_FORMAT_JSON)
		fputs("]}\n", c->out.out);
	fflush(c->out.out);
}

static void
live_render(live_ctx *c, uint64_t now)
{
	char		note[128];

	if (!c->render)
		return;
	if (c->o->view == PGWT_VIEW_ACTIVE)
	{
		static pgwt_live_backend rows[LIVE_MAX_LIVE];
		size_t		n = c->attached ? c->sess.src->live(c->sess.src, rows, LIVE_MAX_LIVE) : 0;
		pgwt_engine *meta_eng = c->eng;

		pgwt_output_active(&c->out, rows, n, meta_eng, now, now - c->start_ns);
	}
	else if (c->eng)
	{
		pgwt_engine_flush(c->eng);
		char		how[48];

		/* what the figures are: a title that says "sampled" over exact
		 * figures would undersell them, and the reverse mislead */
		if (c->o->mode == PGWT_MODE_FULL)
			snprintf(how, sizeof(how), "exact (watchpoints)");
		else if (c->o->mode == PGWT_MODE_SCHED)
			snprintf(how, sizeof(how), "exact (scheduler)");
		else if (c->o->mode == PGWT_MODE_TIERED)
			snprintf(how, sizeof(how), "%u Hz sampled, exact windows", c->o->sample_rate);
		else
			snprintf(how, sizeof(how), "%u Hz sampled", c->o->sample_rate);
		snprintf(note, sizeof(note), "Backends: %" PRIu64 "    Interval: %us    %s",
				 c->metrics.backends_tracked, c->o->interval_s, how);
		pgwt_output_view(&c->out, c->eng, note);
	}
	else
	{
		pgwt_window_spec ws[PGWT_CLI_MAX_WINDOWS];
		const char *err = NULL;
		pgwt_engine *e;

		for (int i = 0; i < c->o->nwindows; i++)
		{
			uint64_t	w = c->o->windows_ns[i];

			ws[i].from_ns = now > w ? now - w : 0;
			ws[i].to_ns = now + 1;
			if (w % 60000000000ull == 0)
				snprintf(ws[i].label, sizeof(ws[i].label), "Last %" PRIu64 "m", (uint64_t) (w / 60000000000ull));
			else
				snprintf(ws[i].label, sizeof(ws[i].label), "Last %" PRIu64 "s", (uint64_t) (w / 1000000000ull));
			if (now - c->start_ns + c->o->windows_ns[0] / 2 < w)
				snprintf(ws[i].label + strlen(ws[i].label), sizeof(ws[i].label) - strlen(ws[i].label), "*");
		}
		e = pgwt_engine_create(&live_engine_cfg, ws, c->o->nwindows, &err);
		if (!e)
		{
			fprintf(stderr, "pg_wait_tracer: %s\n", err ? err : "cannot create the analysis engine");
			return;
		}
		for (size_t i = 0; i < c->nmeta; i++)
			pgwt_engine_set_backend(e, &c->meta[i]);
		for (size_t i = 0; i < c->ring.n; i++)
			pgwt_engine_add(e, pgwt_ring_at(&c->ring, i));
		pgwt_engine_flush(e);
		snprintf(note, sizeof(note), "Backends: %" PRIu64 "    Interval: %us    (* = not full yet)",
				 c->metrics.backends_tracked, c->o->interval_s);
		pgwt_output_view(&c->out, e, note);
		pgwt_engine_free(e);
	}
	if (c->o->lightweight && c->attached)
		live_render_aggregates(c);
	pgwt_output_status(&c->out, &c->metrics, now, pgwt_mode_name(c->o->mode),
					   c->tier ? pgwt_tiered_tier(c->tier) : "sampled",
					   c->attached ? c->sess.cluster.pid : 0);
}

/*
 * Everything before attaching: the output, the target cluster, and the
 * engine (cumulative) or the ring (windows). 1 after printing why not.
 */
static int
live_start(live_ctx *c, const pgwt_options *o, pgwt_cluster *cl)
{
	char		err[512];

	c->o = o;
	c->out.out = stdout;
	c->out.opts = o;
	c->out.source = "live";
	c->out.format = pgwt_output_resolve(o->format, stdout);
	/* a daemon prints views only when asked to or on a terminal */
	c->render = !o->daemon || isatty(STDOUT_FILENO) || o->format != PGWT_FORMAT_AUTO;
	c->meta = calloc(LIVE_META_CACHE, sizeof(pgwt_backend_info));
	if (!c->meta)
	{
		fprintf(stderr, "pg_wait_tracer: out of memory\n");
		return 1;
	}

	if (pgwt_target_select(o, cl, stderr, err, sizeof(err)) != 0)
	{
		fprintf(stderr, "pg_wait_tracer: %s\n", err);
		return 1;
	}
	c->start_ns = pgwt_mono_ns();
	c->metrics.start_ns = c->start_ns;

	/* analysis engine (cumulative) or the ring (windows) */
	if (o->nwindows == 0)
	{
		pgwt_window_spec ws;
		const char *e = NULL;

		memset(&ws, 0, sizeof(ws));
		ws.from_ns = 0;
		ws.to_ns = UINT64_MAX;
		snprintf(ws.label, sizeof(ws.label), "Since start");
		c->eng = pgwt_engine_create(&live_engine_cfg, &ws, 1, &e);
		if (!c->eng)
		{
			fprintf(stderr, "pg_wait_tracer: %s\n", e ? e : "cannot create the analysis engine");
			return 1;
		}
	}
	else
		pgwt_ring_init(&c->ring, LIVE_RING_MAX);
	return 0;
}

/*
 * Once attached: the event filter checked against the server's names, the
 * recorder, the tiered controller (its control socket lives in the trace
 * directory) and the blockers' side file. 1 after printing why not.
 */
static int
live_open_outputs(live_ctx *c)
{
	char		err[512];

	if (c->o->view == PGWT_VIEW_HISTOGRAM || c->o->event)
	{
		uint32_t	id;

		if (!pgwt_event_parse(&c->names, c->o->event, &id))
		{
			fprintf(stderr, "pg_wait_tracer: --event: unknown wait event '%s'\n", c->o->event);
			return 1;
		}
	}
	if (c->o->trace_dir)
	{
		pgwt_recorder_opts ro;

		memset(&ro, 0, sizeof(ro));
		ro.retention_hours = c->o->retention_hours;
		ro.retention_gb = c->o->retention_gb;
		ro.group = c->o->trace_group;
		ro.pg_version = (uint32_t) c->sess.server_version;
		ro.sample_period_ns = 1000000000ull / c->o->sample_rate;
		ro.metrics = &c->metrics;
		ro.no_query_text = c->o->query_text == PGWT_QUERY_TEXT_NONE;
		ro.seed_format = c->o->seed_format;
		if (pgwt_recorder_open(c->o->trace_dir, &ro, &c->rec, err, sizeof(err)) != 0)
		{
			fprintf(stderr, "pg_wait_tracer: %s\n", err);
			return 1;
		}
		pgwt_recorder_set_names(c->rec, &c->names);
	}
	/* after the recorder: the control socket lives in the trace directory */
	if (pgwt_tiered_create(&c->tier, c->o, c->rec ? pgwt_recorder_dirfd(c->rec) : -1, &c->metrics,
						   live_emit, c, err, sizeof(err)) != 0)
	{
		fprintf(stderr, "pg_wait_tracer: %s\n", err);
		return 1;
	}
	pgwt_tiered_set_side_opts(c->tier, c->rec ? pgwt_recorder_side_opts(c->rec) : NULL);
	pgwt_tiered_set_names(c->tier, &c->names);
	if (c->o->mode == PGWT_MODE_TIERED && c->o->exact_source == PGWT_EXACT_AUTO)
		pgwt_tiered_set_reselect(c->tier, live_reselect_exact, c);
	live_tier_session(c);
	/* blockers.tsv in the directory the recorder opened and checked */
	if (pgwt_blockers_init_at(&c->blk, LIVE_BLOCKERS_NS, c->rec ? pgwt_recorder_dirfd(c->rec) : -1,
							  c->rec ? pgwt_recorder_side_opts(c->rec) : NULL, live_on_blockers, c) != 0)
		fprintf(stderr, "pg_wait_tracer: cannot open %s/blockers.tsv: blockers are not recorded\n",
				c->o->trace_dir);
	return 0;
}

static void
live_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = live_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The capture loop, until a signal, --duration, --count or the end. */
static int
live_loop(live_ctx *c, const char *pgdata)
{
	uint64_t	next_render,
				end_ns = 0;
	long		rendered = 0;
	int			status = 0;

	next_render = c->start_ns + (uint64_t) c->o->interval_s * 1000000000ull;
	if (c->o->duration_s)
		end_ns = c->start_ns + (uint64_t) c->o->duration_s * 1000000000ull;

	while (!live_stop)
	{
		uint64_t	deadline;
		uint64_t	now;
		int			gone = 0,
					woke;
		/* tiered: the exact source follows backends beside the sampler */
		pgwt_capture_source *side = c->sess.sampler ? c->sess.watch : NULL;

		/* first: it may move a deadline the work above let pass */
		if (c->sess.sampler)
			pgwt_sampler_wait_begin(c->sess.sampler, pgwt_mono_ns());
		deadline = c->sess.src->next_deadline(c->sess.src);
		if (side && side->next_deadline(side) < deadline)
			deadline = side->next_deadline(side);
		if (end_ns && deadline > end_ns)
			deadline = end_ns;
		woke = live_wait(c->tier, c->sess.watch ? pgwt_watch_source_wake_fd(c->sess.watch) : -1,
						 deadline);
		now = pgwt_mono_ns();
		/* a request served while waiting may have chosen another source */
		side = c->sess.sampler ? c->sess.watch : NULL;

		/*
		 * Real-time only around a sampler tick: woken for something else
		 * (the exact tier's drain or a fork, the control socket) with the
		 * tick more than LIVE_RT_GUARD_NS away, that work runs at normal
		 * priority. Closer than that it stays real-time, so the tick is
		 * not left waiting behind the backends for a CPU.
		 */
		if (c->sess.sampler &&
			(live_stop || (end_ns && now >= end_ns) ||
			 now + LIVE_RT_GUARD_NS < c->sess.sampler->next_deadline(c->sess.sampler)))
			pgwt_sampler_wait_end(c->sess.sampler);
		if (live_stop)
			break;
		if (end_ns && now >= end_ns)
		{
			live_render(c, now);
			break;
		}
		if (now >= c->sess.src->next_deadline(c->sess.src) || (woke && !side))
			gone = c->sess.src->tick(c->sess.src, now,
									c->sess.src == c->sess.sampler ? live_emit_sampled : live_emit, c) != 0;
		if (c->sess.sampler)
			pgwt_sampler_wait_end(c->sess.sampler);
		if (!gone && side && (woke || now >= side->next_deadline(side)))
			gone = side->tick(side, now, live_emit, c) != 0;
		if (gone)
		{
			int			old = c->sess.cluster.pid;

			live_detach(c, now);
			if (!c->o->daemon)
			{
				live_render(c, now);
				fprintf(stderr, "pg_wait_tracer: postmaster %d exited\n", old);
				status = 1;
				break;
			}
			if (live_wait_for_cluster(c, pgdata, old) != 0)
				break;
			continue;
		}
		if (c->tier)
			pgwt_tiered_step(c->tier, now);
		pgwt_session_connect(&c->sess, c->o, now, c->o->verbose);
		live_refresh_meta(c, now);
		if (pgwt_blockers_poll(&c->blk, c->sess.pg, now) != 0)
			c->metrics.blocker_queries_total = c->blk.queries_total;
		if (c->rec && !c->record_error)
		{
			int			rc = pgwt_recorder_periodic(c->rec, now);

			if (rc < 0)
			{
				fprintf(stderr, "pg_wait_tracer: trace recording failed: %s\n", pgwt_recorder_error(rc));
				c->record_error = 1;
			}
		}
		if (!c->eng && c->o->nwindows)
			pgwt_ring_trim(&c->ring, now > c->o->windows_ns[c->o->nwindows - 1] ? now - c->o->windows_ns[c->o->nwindows - 1] : 0);
		if (now >= next_render)
		{
			live_render(c, now);
			rendered++;
			next_render += (uint64_t) c->o->interval_s * 1000000000ull;
			if (next_render <= now)
				next_render = now + (uint64_t) c->o->interval_s * 1000000000ull;
			if (c->o->count && rendered >= c->o->count)
				break;
		}
	}
	return status;
}

/* Close what was opened, in reverse; the run's exit status. */
static int
live_finish(live_ctx *c, int status)
{
	live_stop_capture(c);
	pgwt_tiered_free(c->tier, pgwt_mono_ns());
	pgwt_blockers_close(&c->blk);
	if (c->rec)
	{
		int			rc = pgwt_recorder_close(c->rec);

		if (rc < 0)
		{
			fprintf(stderr, "pg_wait_tracer: closing the trace failed: %s\n", pgwt_recorder_error(rc));
			status = 1;
		}
	}
	if (c->attached)
		pgwt_session_close(&c->sess);
	if (c->record_error)
		status = 1;
	pgwt_engine_free(c->eng);
	pgwt_ring_free(&c->ring);
	pgwt_names_free(&c->names);
	free(c->meta);
	return status;
}

int
pgwt_run_live(const pgwt_options *o)
{
	live_ctx	c;
	pgwt_cluster cl;
	char		err[512];
	char		pgdata[sizeof(cl.pgdata)];
	int			status = 1;

	memset(&c, 0, sizeof(c));
	c.blk.dirfd = -1;			/* nothing to close before blockers open */
	if (live_start(&c, o, &cl) != 0)
		return live_finish(&c, 1);
	snprintf(pgdata, sizeof(pgdata), "%s", cl.pgdata);
	if (live_attach(&c, &cl, err, sizeof(err)) != 0)
		fprintf(stderr, "pg_wait_tracer: %s\n", err);
	else if (live_open_outputs(&c) == 0)
	{
		live_signals();
		status = live_loop(&c, pgdata);
	}
	return live_finish(&c, status);
}
