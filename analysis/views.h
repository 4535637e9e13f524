/*
 * views.h
 *		Read-only views over one window of an engine: time model,
 *		system_event, session_event (+ one pid's detail), histogram,
 *		query_event. Every result carries its fidelity (exact / sampled /
 *		mixed). Exact-only results (histogram, max) over a window holding
 *		only samples say so (PGWT_VIEW_REQUIRES_EXACT, max_known = false)
 *		instead of showing zeros. A sampled row's number of waits is unknown
 *		(waits_known = false), never 0.
 *
 * Row arrays are allocated by the view and released with the matching
 * *_free(). Pure computation: no I/O.
 */
#ifndef PGWT_ANALYSIS_VIEWS_H
#define PGWT_ANALYSIS_VIEWS_H

#include "analysis/engine.h"
#include "analysis/wait_event.h"

typedef enum pgwt_view_status
{
	PGWT_VIEW_OK = 0,
	PGWT_VIEW_NO_DATA,			/* nothing in the window (or for the filter) */
	PGWT_VIEW_REQUIRES_EXACT,	/* the window holds only sampled data */
	PGWT_VIEW_TRUNCATED,		/* the key was folded into "other" (raise a cap) */
	PGWT_VIEW_BAD_ARG,
	PGWT_VIEW_NO_MEMORY,
	PGWT_VIEW_NOT_ENABLED,		/* exact analysis was not configured */
	PGWT_VIEW_REQUIRES_SAMPLES	/* cross_validate: no sampled data */
} pgwt_view_status;

const char *pgwt_view_status_text(pgwt_view_status st);

typedef enum pgwt_sort
{
	PGWT_SORT_DEFAULT = 0,		/* the view's own: time, then key */
	PGWT_SORT_TOTAL,			/* "wait_time" / "total": time, largest first */
	PGWT_SORT_WAITS,			/* count, largest first (unknown last) */
	PGWT_SORT_AVG,
	PGWT_SORT_MAX,
	PGWT_SORT_DB_TIME,			/* sessions: DB time; events: same as total */
	PGWT_SORT_PID,				/* ascending */
	PGWT_SORT_EVENT,			/* by name, alphabetical */
	PGWT_SORT_QUERY				/* by query id, ascending */
} pgwt_sort;

/* "wait_time", "total", "waits", "avg", "max", "db_time", "pid", "event", "query". */
bool		pgwt_sort_parse(const char *text, pgwt_sort *out);
const char *pgwt_sort_name(pgwt_sort s);

typedef struct pgwt_view_opts
{
	pgwt_sort	sort;
	const pgwt_names *names;	/* for event-name sorting; may be NULL */
	bool		has_event;		/* query_event: top queries of this event */
	uint32_t	event;
	bool		has_query;		/* query_event: profile of this query */
	uint64_t	query_id;
	size_t		limit;			/* keep the first N rows; 0 = all */
} pgwt_view_opts;

typedef struct pgwt_window_summary
{
	pgwt_window_spec spec;
	pgwt_fidelity fidelity;
	uint64_t	exact_records;
	uint64_t	sample_records;
	uint64_t	data_first_ns;		/* 0/0 when the window is empty */
	uint64_t	data_last_ns;
	uint64_t	db_ns;				/* DB time = cpu + wait */
	uint64_t	cpu_ns;
	uint64_t	wait_ns;			/* non-idle waits */
	uint64_t	idle_ns;			/* Activity + Client:ClientRead */
	/* background processes (common/process_rule.h): never DB time */
	uint64_t	background_ns;		/* their CPU* + non-idle waits */
	uint64_t	background_idle_ns;
	uint64_t	db_exact_ns;
	uint64_t	db_sampled_ns;
	unsigned	backends;			/* distinct pids seen */
	double		aas;				/* db_ns / covered span, 0 if none */
	uint64_t	other_event_records;	/* folded past the caps */
	uint64_t	other_session_records;
	uint64_t	other_session_event_records;
	uint64_t	other_query_event_records;
} pgwt_window_summary;

typedef struct pgwt_event_row
{
	uint32_t	event;
	uint32_t	pid;				/* session detail */
	uint64_t	query_id;			/* query_event */
	bool		other;				/* the overflow row of a capped table */
	bool		idle;				/* idle event: no share of DB time */
	pgwt_fidelity fidelity;
	bool		waits_known;		/* exact-only row */
	uint64_t	waits;				/* exact waits (all of them if known) */
	uint64_t	total_ns;			/* exact + sampled */
	uint64_t	exact_ns;
	uint64_t	sampled_ns;
	bool		avg_known;
	uint64_t	avg_ns;
	bool		max_known;			/* any exact wait ended in the window */
	uint64_t	min_ns;				/* of the exact waits; 0: unknown */
	uint64_t	max_ns;				/* of the exact waits */
	double		pct_db;				/* share of DB time; < 0 when idle */
	/* the 32 ns buckets of the key's exact waits (common/histogram.h):
	 * system_event always, session and query rows when the engine keeps
	 * key_histograms; NULL when unknown (no exact wait ended). Points into
	 * the engine: valid while it lives, unchanged. */
	const uint64_t *hist_ns;
	bool		exited;				/* session rows: the pid was seen exiting */
} pgwt_event_row;

typedef struct pgwt_event_rows
{
	pgwt_event_row *rows;
	size_t		n;
} pgwt_event_rows;

typedef struct pgwt_session_row
{
	uint32_t	pid;
	bool		other;
	bool		exited;
	const pgwt_backend_info *info;	/* NULL when the caller gave none */
	pgwt_fidelity fidelity;
	uint64_t	db_ns;
	uint64_t	cpu_ns;
	uint64_t	wait_ns;
	uint64_t	idle_ns;
	double		cpu_pct;			/* of this backend's DB time */
	double		wait_pct;
	bool		has_top_wait;
	uint32_t	top_wait;			/* largest non-idle wait */
	uint64_t	top_wait_ns;
} pgwt_session_row;

typedef struct pgwt_session_rows
{
	pgwt_session_row *rows;
	size_t		n;
} pgwt_session_rows;

#define PGWT_TM_TOP_EVENTS 3	/* events shown under a class ... */
#define PGWT_TM_MIN_PCT 1.0		/* ... when they are at least this % of DB time */

typedef struct pgwt_tm_class
{
	unsigned	class_index;		/* 0 = CPU*, PGWT_CLASS_UNKNOWN = other bytes */
	uint64_t	total_ns;
	double		pct_db;
	pgwt_fidelity fidelity;
	unsigned	ntop;
	pgwt_event_row top[PGWT_TM_TOP_EVENTS];
} pgwt_tm_class;

typedef struct pgwt_time_model
{
	pgwt_window_summary sum;
	unsigned	nclasses;			/* CPU* first, then classes by time */
	pgwt_tm_class classes[PGWT_NCLASSES + 1];
	/* background processes' non-idle time by class (index 0: their CPU*),
	 * as the live time model's 'Background CPU*' and 'Background wait' */
	uint64_t	background_class_ns[PGWT_NCLASSES + 1];
} pgwt_time_model;

typedef struct pgwt_histogram
{
	uint32_t	event;
	pgwt_fidelity fidelity;			/* of the event's time in the window */
	uint64_t	waits;
	uint64_t	completed_ns;		/* sum of the waits' lengths */
	uint64_t	min_ns;				/* 0: unknown (version 1 summaries) */
	uint64_t	max_ns;
	uint64_t	sampled_ns;			/* sampled time left out of the buckets */
	uint64_t	ns[PGWT_HIST_NS_BUCKETS];
} pgwt_histogram;

void		pgwt_view_summary(const pgwt_engine *eng, int w, pgwt_window_summary *out);

pgwt_view_status pgwt_view_time_model(const pgwt_engine *eng, int w,
									  pgwt_time_model *out);
pgwt_view_status pgwt_view_system_event(const pgwt_engine *eng, int w,
										const pgwt_view_opts *opts,
										pgwt_event_rows *out);
pgwt_view_status pgwt_view_session_event(const pgwt_engine *eng, int w,
										 const pgwt_view_opts *opts,
										 pgwt_session_rows *out);
/*
 * Every (pid, event) pair: a row per session and event, as the live
 * pgwt_session_event, with the pid set and pct_db the share of that
 * session's DB time (< 0 for idle events and background processes). Idle
 * events are rows too, as in system_event (common/event_ids.h,
 * pgwt_event_is_wait); CPU* (event 0) is a row, for callers that want it.
 */
pgwt_view_status pgwt_view_session_events(const pgwt_engine *eng, int w,
										  const pgwt_view_opts *opts,
										  pgwt_event_rows *out);
/* One backend's events (same columns as system_event). */
pgwt_view_status pgwt_view_session_detail(const pgwt_engine *eng, int w,
										  uint32_t pid,
										  const pgwt_view_opts *opts,
										  pgwt_event_rows *out);
pgwt_view_status pgwt_view_histogram(const pgwt_engine *eng, int w,
									 uint32_t event, pgwt_histogram *out);
/* (query, event) pairs; opts->has_event / has_query narrow it. Idle
 * events (time between statements) appear only when has_event names one. */
pgwt_view_status pgwt_view_query_event(const pgwt_engine *eng, int w,
									   const pgwt_view_opts *opts,
									   pgwt_event_rows *out);

void		pgwt_event_rows_free(pgwt_event_rows *rows);
void		pgwt_session_rows_free(pgwt_session_rows *rows);

#endif							/* PGWT_ANALYSIS_VIEWS_H */
