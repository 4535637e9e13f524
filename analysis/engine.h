/*
 * engine.h
 *		The analysis engine: streaming aggregation of pgwt_record streams
 *		into per-window tables, from which the views (views.h) are read.
 *
 * Feed records in any order with pgwt_engine_add(); each configured window
 * [from, to) (CLOCK_MONOTONIC ns) keeps its own bounded tables, so several
 * windows (last 5 s / 1 m / 5 m) are computed in one pass. Memory is fixed
 * at creation by the caps in pgwt_engine_config and does not grow with the
 * trace: keys past a cap are folded into the table's "other" row and
 * counted.
 *
 * Time accounting:
 *	- a TRANSITION at ts with duration d says the backend spent [ts-d, ts) in
 *	  old_event; the part inside a window is billed to it. A wait counts
 *	  (waits, avg, max, histogram) in the window where it ends.
 *	- a SAMPLE at ts stands for weight_ns of new_event; it is billed whole to
 *	  the window holding ts. Its number of waits is unknown.
 *	- event 0 is CPU* (active, no wait event); the Activity class and
 *	  Client:ClientRead are idle, kept apart from DB time. A pid whose
 *	  metadata (pgwt_engine_set_backend, e.g. from backends.tsv) names a
 *	  background process (common/process_rule.h: anything but a client
 *	  backend or a parallel worker) bills no DB time, no class time and no
 *	  query: its time is kept apart as background time; a pid without
 *	  metadata counts as a session. Give metadata before records. A backend that
 *	  exited (new_event PGWT_EVENT_EXIT) adds nothing afterwards.
 *	- markers carry no time. ESC_START/ESC_END markers bound the spans where
 *	  the exact tier ran; samples inside them are superseded by the exact
 *	  transitions and dropped (counted), so time is never billed twice. The
 *	  caller can also declare such spans up front (pgwt_engine_add_exact_span)
 *	  when it knows them before the records, e.g. from a file index.
 *	- trace files interleave sample blocks and transition blocks, so a
 *	  sample may arrive before the ESC_START marker that supersedes it.
 *	  Samples therefore wait in a bounded queue until the stream has moved
 *	  sample_reorder_ns past them (or the queue is full: counted as
 *	  samples_forced). Call pgwt_engine_flush() after the last record and
 *	  before reading views: views see committed samples only.
 *
 * Not thread-safe: one engine per thread. No I/O, no global state, no
 * exit(): linkable into the server.
 */
#ifndef PGWT_ANALYSIS_ENGINE_H
#define PGWT_ANALYSIS_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/fidelity.h"
#include "common/histogram.h"
#include "tracefmt/record.h"

#define PGWT_MAX_WINDOWS		8
#define PGWT_BACKEND_STR		64	/* metadata strings are cut to this (with NUL) */


/* Caps; 0 takes the default. */
typedef struct pgwt_engine_config
{
	unsigned	max_events;			/* distinct events per window (1024) */
	unsigned	max_sessions;		/* distinct pids per window (4096) */
	unsigned	max_session_events; /* (pid, event) pairs per window (32768) */
	unsigned	max_query_events;	/* (query, event) pairs per window (65536) */
	unsigned	max_backends;		/* metadata entries (8192) */
	unsigned	max_exact_spans;	/* remembered escalation spans (1024) */
	unsigned	max_pending_samples;	/* sample reorder queue (65536) */
	uint64_t	sample_reorder_ns;	/* how far a sample may precede its
									 * ESC_START (11 s: a block spans <= 10 s) */

	/*
	 * The exact-only analyses (exact.h: transitions, concurrency and
	 * bursts, interference, lock chains) cost time per transition, so they
	 * run only when asked for. Their caps, 0 = default:
	 */
	bool		exact_analysis;
	unsigned	max_transition_pairs;	/* (old, new) pairs per window (4096) */
	unsigned	max_interference_pairs; /* (pid, pid, event) per window (16384) */
	unsigned	max_sweep_events;	/* events followed by the sweep (256) */
	unsigned	max_concurrent;		/* sessions in one event at once (256) */
	unsigned	max_pending_intervals;	/* sweep reorder heap (65536) */
	uint64_t	interval_reorder_ns;	/* how long a wait may last and still
										 * be swept in start order (11 s) */
	unsigned	burst_sessions;		/* a burst: this many sessions (4) ... */
	uint64_t	burst_window_ns;	/* ... entering one event within this (10 ms) */
	unsigned	max_bursts;			/* bursts listed (256; all are counted) */
	unsigned	max_lock_edges;		/* (waiter, blocker) pairs per window (4096) */
	unsigned	max_lock_pids;		/* waiters followed for observations (4096) */

	/*
	 * Histograms per (pid, event) and per (query, event) too, in the 32 ns
	 * buckets of common/histogram.h (pgwt_key_stat), as the live SQL views
	 * show them. 256 bytes more per key, so only when asked for (the SQL
	 * history functions); filled from exact transitions only (the
	 * per-second summaries keep no per-key histograms).
	 */
	bool		key_histograms;
} pgwt_engine_config;

typedef struct pgwt_window_spec
{
	uint64_t	from_ns;			/* inclusive */
	uint64_t	to_ns;				/* exclusive; UINT64_MAX = open */
	char		label[64];			/* e.g. "last 5s" */
} pgwt_window_spec;

/* What the caller knows about a backend (pid); strings may be empty. */
typedef struct pgwt_backend_info
{
	uint32_t	pid;
	uint32_t	leader_pid;			/* parallel group leader, 0 = none */
	char		type[PGWT_BACKEND_STR];	/* "client backend", "checkpointer" */
	char		user[PGWT_BACKEND_STR];
	char		database[PGWT_BACKEND_STR];
	char		application[PGWT_BACKEND_STR];
	char		client_addr[PGWT_BACKEND_STR];
	uint64_t	start_realtime_ns;	/* backend start (wall clock), 0 = unknown */
	bool		background;			/* set by pgwt_engine_set_backend from
									 * type: no session, not DB time */
} pgwt_backend_info;

/* Accumulated time of one key (event, pid x event, query x event). */
typedef struct pgwt_stat
{
	uint64_t	waits;				/* exact waits that ended in the window */
	uint64_t	exact_ns;			/* exact time inside the window */
	uint64_t	completed_ns;		/* full length of the waits counted */
	uint64_t	min_ns;				/* shortest wait counted (waits > 0); 0 where
									 * unknown (version 1 summaries) */
	uint64_t	max_ns;				/* longest wait counted */
	uint64_t	sampled_ns;			/* sum of sample weights */
	uint64_t	samples;
} pgwt_stat;

/* A (pid, event) or (query, event) key's value with key_histograms. */
typedef struct pgwt_key_stat
{
	pgwt_stat	st;					/* first: the tables are read as pgwt_stat */
	uint64_t	hist_ns[PGWT_HIST_NS_BUCKETS];
} pgwt_key_stat;

typedef struct pgwt_event_stat
{
	pgwt_stat	st;
	/* samples dropped because an exact span covers them: kept apart, only
	 * to compare the two tiers (cross_validate) */
	uint64_t	superseded_ns;
	uint64_t	superseded_samples;
	/* the part of st's time spent by background processes (never DB time) */
	uint64_t	background_ns;
	uint64_t	hist_ns[PGWT_HIST_NS_BUCKETS];
} pgwt_event_stat;

typedef struct pgwt_session_stat
{
	pgwt_stat	db;					/* non-idle time (CPU* + waits) */
	pgwt_stat	cpu;				/* event 0 */
	pgwt_stat	idle;				/* Activity + Client:ClientRead */
	bool		exited;				/* seen leaving within the window */
} pgwt_session_stat;

typedef struct pgwt_engine pgwt_engine;

/* Records kept out of the aggregates, by reason. */
typedef struct pgwt_engine_counters
{
	uint64_t	records;			/* everything passed to pgwt_engine_add */
	uint64_t	transitions;
	uint64_t	samples;
	uint64_t	markers;
	uint64_t	superseded_samples; /* inside an exact span */
	uint64_t	samples_forced;		/* committed early: the queue was full */
	uint64_t	bad_records;		/* unknown kind, zero-weight sample... */
	uint64_t	spans_forgotten;	/* exact spans past max_exact_spans */
	uint64_t	backends_dropped;	/* metadata past max_backends */
	uint64_t	blocker_obs;		/* pgwt_engine_feed_blockers calls */
	/* the exact-analysis sweep (exact.h) */
	uint64_t	late_intervals;		/* started before the sweep point: left out */
	uint64_t	forced_intervals;	/* swept early: the heap was full */
	uint64_t	concurrent_overflow;	/* past max_concurrent in one event */
	uint64_t	sweep_events_overflow;	/* past max_sweep_events */
	uint64_t	bursts_unlisted;	/* past max_bursts (still counted) */
} pgwt_engine_counters;

/*
 * Create an engine over nwindows windows (1..PGWT_MAX_WINDOWS). Returns
 * NULL on bad arguments or out of memory; *err (if given) says which.
 */
pgwt_engine *pgwt_engine_create(const pgwt_engine_config *cfg,
								const pgwt_window_spec *windows, int nwindows,
								const char **err);
void		pgwt_engine_free(pgwt_engine *eng);

/* Forget all aggregates and spans (windows and metadata are kept). */
void		pgwt_engine_reset(pgwt_engine *eng);

void		pgwt_engine_add(pgwt_engine *eng, const pgwt_record *rec);
void		pgwt_engine_add_many(pgwt_engine *eng, const pgwt_record *recs, size_t n);
/* The same for records that are all PGWT_REC_TRANSITION (the caller's
 * word: pgwt_range_batch.transitions), so no record's kind is tested. */
void		pgwt_engine_add_transitions(pgwt_engine *eng, const pgwt_record *recs, size_t n);

/* Commit every queued sample (end of input, or before reading views). */
void		pgwt_engine_flush(pgwt_engine *eng);
/* Samples still queued. */
size_t		pgwt_engine_pending(const pgwt_engine *eng);

/* A span [from, to) where exact transitions cover every backend. */
void		pgwt_engine_add_exact_span(pgwt_engine *eng, uint64_t from_ns, uint64_t to_ns);

/* Remember (or replace) metadata of a pid. false when the table is full. */
bool		pgwt_engine_set_backend(pgwt_engine *eng, const pgwt_backend_info *info);
const pgwt_backend_info *pgwt_engine_backend(const pgwt_engine *eng, uint32_t pid);
/* Does the metadata name any background process? */
bool		pgwt_engine_has_background(const pgwt_engine *eng);

/*
 * Also bill every record into a time series (series.h) of many buckets,
 * by the windows' rules, in the same pass; NULL detaches. The caller owns
 * it; attach before the first record. Records then take the general path
 * (no single-window batch loop).
 */
struct pgwt_series;
void		pgwt_engine_set_series(pgwt_engine *eng, struct pgwt_series *s);
/* A probe (analysis/hist_probe.h) the first window's exact waits feed, or NULL. */
struct pgwt_hist_probe;
void		pgwt_engine_set_hist_probe(pgwt_engine *eng, struct pgwt_hist_probe *p);

const pgwt_engine_counters *pgwt_engine_counters_get(const pgwt_engine *eng);
int			pgwt_engine_nwindows(const pgwt_engine *eng);
const pgwt_window_spec *pgwt_engine_window(const pgwt_engine *eng, int w);

/*
 * Lock blockers seen by the tracer: when a backend waits on a Lock, the
 * tracer asks the server (pg_blocking_pids) who holds it, and hands the
 * answer over as one observation. The lock-chain view matches observations
 * to the exact Lock waits they fall in; without exact_analysis they are
 * ignored.
 */
#define PGWT_MAX_BLOCKERS 8

typedef struct pgwt_blocker_obs
{
	uint64_t	ts_ns;				/* when pg_blocking_pids was read */
	uint32_t	waiter_pid;
	uint32_t	nblockers;			/* 0..PGWT_MAX_BLOCKERS (more are cut) */
	uint32_t	blocker_pids[PGWT_MAX_BLOCKERS];
} pgwt_blocker_obs;

void		pgwt_engine_feed_blockers(pgwt_engine *eng, const pgwt_blocker_obs *obs);

#endif							/* PGWT_ANALYSIS_ENGINE_H */
