/*
 * exact.h
 *		Views that need exact transitions (old -> new order, real
 *		intervals), computed by an engine created with
 *		pgwt_engine_config.exact_analysis, plus cross_validate, which
 *		compares the sampled and the exact tier over one window.
 *
 * Over a window with samples only, every exact view returns
 * PGWT_VIEW_REQUIRES_EXACT, never an empty or made-up result. An engine
 * without exact_analysis returns PGWT_VIEW_NOT_ENABLED (fingerprints and
 * cross_validate read the ordinary tables and work on any engine).
 *
 *	transitions		(old, new) event pairs: how often, and the time spent
 *					in old before the move; counted where the move happens.
 *	fingerprints	per query: its exact time split by class, as
 *					"IO:30%|CPU:22%|LWLock:21%".
 *	concurrency		per event: the most sessions in it at one instant, and
 *					the first instant that peak was reached; bursts of
 *					burst_sessions sessions entering it within
 *					burst_window_ns. CPU* is included (sessions on CPU at
 *					once) but has no bursts; idle events are not.
 *	interference	pairs of pids waiting on the same event at the same
 *					time, scored by the time both waited (CPU* excluded).
 *	lock_chains		waiter -> blocker edges from the server's own blocker
 *					lists (pgwt_engine_feed_blockers), never guessed from
 *					overlap; a chain's head is a blocker that waits on no
 *					one; its total is the matched Lock wait time of every
 *					backend that waits on it directly or through others.
 *
 * Results are allocated by the view and released with the *_free().
 */
#ifndef PGWT_ANALYSIS_EXACT_H
#define PGWT_ANALYSIS_EXACT_H

#include "analysis/views.h"

/* ---- transitions -------------------------------------------------------- */

typedef struct pgwt_transition_row
{
	uint32_t	old_event;
	uint32_t	new_event;			/* PGWT_EVENT_EXIT when the backend left */
	bool		other;				/* pairs past max_transition_pairs */
	uint64_t	count;
	uint64_t	total_ns;			/* time in old_event before the move */
	double		pct_of_old;			/* share of the moves out of old_event */
} pgwt_transition_row;

typedef struct pgwt_transition_rows
{
	pgwt_transition_row *rows;
	size_t		n;
	uint64_t	transitions;		/* all moves in the window */
} pgwt_transition_rows;

/* Rows by count, largest first (ties: old, new); opts->limit applies. */
pgwt_view_status pgwt_view_transitions(const pgwt_engine *eng, int w,
									   const pgwt_view_opts *opts,
									   pgwt_transition_rows *out);
void		pgwt_transition_rows_free(pgwt_transition_rows *rows);

/* ---- fingerprints ------------------------------------------------------- */

#define PGWT_FINGERPRINT_CLASSES 4	/* classes shown at most */
#define PGWT_FINGERPRINT_MAX	 96

typedef struct pgwt_fingerprint_row
{
	uint64_t	query_id;
	uint64_t	exact_ns;			/* the query's exact non-idle time */
	char		text[PGWT_FINGERPRINT_MAX];
} pgwt_fingerprint_row;

typedef struct pgwt_fingerprint_rows
{
	pgwt_fingerprint_row *rows;
	size_t		n;
} pgwt_fingerprint_rows;

/*
 * The fingerprint of time split over classes (index 0 = CPU, then class
 * bytes, PGWT_CLASS_UNKNOWN last): each class's share rounded half up to
 * a whole percent, classes below 1% left out, at most
 * PGWT_FINGERPRINT_CLASSES, largest time first (ties: class index). The
 * order follows the times, not the rounded shares, so it is stable.
 * Returns false (and "") when the total is 0.
 */
bool		pgwt_fingerprint_format(const uint64_t class_ns[PGWT_NCLASSES + 1],
									char *buf, size_t len);

/* Queries by exact time, largest first (ties: query id); opts->has_query
 * narrows to one. Query 0 (unknown) is left out. */
pgwt_view_status pgwt_view_fingerprints(const pgwt_engine *eng, int w,
										const pgwt_view_opts *opts,
										pgwt_fingerprint_rows *out);
void		pgwt_fingerprint_rows_free(pgwt_fingerprint_rows *rows);

/* ---- concurrency and bursts --------------------------------------------- */

typedef struct pgwt_concurrency_row
{
	uint32_t	event;
	uint32_t	peak;				/* sessions in the event at once */
	uint64_t	peak_ns;			/* first instant of the peak */
	uint64_t	intervals;			/* waits that began in the window */
	uint64_t	bursts;
	uint32_t	max_burst_sessions;
} pgwt_concurrency_row;

typedef struct pgwt_burst_row
{
	uint32_t	event;
	uint32_t	sessions;			/* distinct backends that entered */
	uint64_t	first_ns;			/* the first of them */
} pgwt_burst_row;

typedef struct pgwt_concurrency
{
	pgwt_concurrency_row *rows;		/* by peak, largest first (ties: event) */
	size_t		n;
	pgwt_burst_row *bursts;			/* by first_ns */
	size_t		nbursts;
	uint64_t	bursts_total;		/* counted, listed or not */
	unsigned	burst_sessions;
	uint64_t	burst_window_ns;
	/* what the sweep had to leave out (engine-wide): results are lower
	 * bounds when any is non-zero */
	uint64_t	late_intervals;
	uint64_t	forced_intervals;
	uint64_t	concurrent_overflow;
	uint64_t	events_overflow;
} pgwt_concurrency;

pgwt_view_status pgwt_view_concurrency(const pgwt_engine *eng, int w,
									   const pgwt_view_opts *opts,
									   pgwt_concurrency *out);
void		pgwt_concurrency_free(pgwt_concurrency *c);

/* ---- interference ------------------------------------------------------- */

typedef struct pgwt_interference_row
{
	uint32_t	pid_a;				/* pid_a < pid_b */
	uint32_t	pid_b;
	bool		other;				/* pairs past max_interference_pairs */
	uint64_t	overlap_ns;			/* the score: time both waited on one event */
	uint64_t	overlaps;			/* overlapping wait pairs */
	uint32_t	top_event;			/* the event with most of the overlap */
	uint64_t	top_event_ns;
} pgwt_interference_row;

typedef struct pgwt_interference_rows
{
	pgwt_interference_row *rows;
	size_t		n;
} pgwt_interference_rows;

/* Pairs by score, largest first (ties: pids); opts->limit = top N. */
pgwt_view_status pgwt_view_interference(const pgwt_engine *eng, int w,
										const pgwt_view_opts *opts,
										pgwt_interference_rows *out);
void		pgwt_interference_rows_free(pgwt_interference_rows *rows);

/* ---- lock chains -------------------------------------------------------- */

#define PGWT_CHAIN_PATH_MAX 16

typedef struct pgwt_lock_edge_row
{
	uint32_t	waiter;
	uint32_t	blocker;
	uint64_t	wait_ns;			/* waiter's Lock wait while blocker blocked it */
	uint64_t	waits;
	uint64_t	observations;
} pgwt_lock_edge_row;

typedef struct pgwt_lock_chain_row
{
	uint32_t	head;				/* blocks others, waits on no one */
	bool		cycle;				/* no such head: a cycle (deadlock) */
	uint64_t	total_wait_ns;		/* Lock wait of every backend behind head */
	unsigned	waiters;			/* distinct backends behind head */
	unsigned	depth;				/* longest waiter -> ... -> head, in edges */
	unsigned	npath;
	uint32_t	path[PGWT_CHAIN_PATH_MAX];	/* that chain, waiter first */
} pgwt_lock_chain_row;

typedef struct pgwt_lock_chains
{
	pgwt_lock_chain_row *chains;	/* by total wait, largest first */
	size_t		n;
	pgwt_lock_edge_row *edges;		/* by wait, largest first */
	size_t		nedges;
	uint64_t	other_edge_records;	/* past max_lock_edges */
} pgwt_lock_chains;

pgwt_view_status pgwt_view_lock_chains(const pgwt_engine *eng, int w,
									   const pgwt_view_opts *opts,
									   pgwt_lock_chains *out);
void		pgwt_lock_chains_free(pgwt_lock_chains *c);

/* ---- cross_validate ------------------------------------------------------ */

#define PGWT_XV_TOP 5

typedef struct pgwt_xv_row
{
	uint32_t	event;
	uint64_t	exact_ns;
	uint64_t	sampled_ns;
	double		exact_pct;			/* share of the exact DB time */
	double		sampled_pct;		/* share of the sampled DB time */
	double		diff_pp;			/* sampled - exact, percentage points */
} pgwt_xv_row;

typedef struct pgwt_cross_validation
{
	pgwt_xv_row *rows;				/* by exact share, largest first */
	size_t		n;
	bool		superseded_basis;	/* samples inside exact spans were used */
	uint64_t	exact_db_ns;
	uint64_t	sampled_db_ns;
	uint64_t	samples;
	double		worst_diff_pp;		/* largest |diff_pp| */
	uint32_t	worst_event;
	unsigned	top_n;				/* min(PGWT_XV_TOP, events on each side) */
	unsigned	top_overlap;		/* events in both top lists */
} pgwt_cross_validation;

/*
 * Per-event share of DB time (CPU* included, idle excluded) from the exact
 * transitions and from the samples of the same window. The samples are
 * those the exact spans superseded when there are any (the tiered daemon
 * writes both during an escalation), else the window's committed samples
 * (a caller that knows both tiers cover the window, like pgwt-synth).
 */
pgwt_view_status pgwt_view_cross_validate(const pgwt_engine *eng, int w,
										  pgwt_cross_validation *out);
void		pgwt_cross_validation_free(pgwt_cross_validation *xv);

#endif							/* PGWT_ANALYSIS_EXACT_H */
