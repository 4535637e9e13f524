/*
 * watch_source.h
 *		The exact (full) tier as a capture source: a hardware write
 *		watchpoint on every backend's wait_event_info (tracer/watch/), so
 *		every transition becomes a TRANSITION record with its true duration.
 *
 * In --mode full the source is enabled from the start; in --mode tiered it
 * is created disabled, keeps following backends (cheap: fork/exit
 * notifications), and is enabled only for escalation windows.
 */
#ifndef PGWT_TRACER_WATCH_SOURCE_H
#define PGWT_TRACER_WATCH_SOURCE_H

#include <stdbool.h>

#include "tracer/attach.h"
#include "tracer/capture.h"
#include "tracer/esc_notify.h"
#include "tracer/self_metrics.h"
#include "tracer/watch/self_test.h"

typedef struct pgwt_watch_source_config
{
	int			postmaster_pid;
	pgwt_attach attach;
	bool		lightweight;	/* per-CPU aggregates in the kernel, no records */
	bool		skip_query_id;	/* do not read st_query_id on a transition */
	bool		enabled;		/* watch from the start */
	bool		primary;		/* the only source (--mode full): owns
								 * backends_tracked in the metrics */
	pgwt_self_metrics *metrics; /* may be NULL */
} pgwt_watch_source_config;

/* Coverage and cost counters of the exact tier (for status and tests). */
typedef struct pgwt_watch_stats
{
	uint64_t	watched_now;
	uint64_t	backends_seen;		/* forks of the postmaster seen */
	uint64_t	attached_total;		/* watchpoints set */
	uint64_t	attach_failures;	/* perf/BPF refused (e.g. no debug register) */
	uint64_t	exited_unwatched;	/* gone before it could be watched */
	uint64_t	attached_at_zero;	/* watched while its event was still 0 */
	uint64_t	attach_races;		/* value changed while the watchpoint was set */
	uint64_t	attach_latency_ns_sum;	/* fork seen -> watchpoint set */
	uint64_t	attach_latency_ns_max;
	uint64_t	transitions;		/* kernel counters, summed over CPUs */
	uint64_t	same_value;
	uint64_t	drops;
	uint64_t	read_faults;
	uint64_t	unknown_pid;
	uint64_t	records;			/* TRANSITION records emitted */
} pgwt_watch_stats;

/*
 * NULL with err filled when BPF or perf watchpoints are unavailable. The
 * source can be created where watchpoints never fire: run the self-test
 * before trusting it.
 */
extern pgwt_capture_source *pgwt_watch_source_create(const pgwt_watch_source_config *cfg,
													 char *err, size_t errlen);

/*
 * Start (on) or stop (off) watching every backend. Stopping drains what the
 * kernel captured first and emits it. Returns the number of watched backends,
 * or -1 (said on stderr) when the kernel programs cannot be attached.
 */
extern int	pgwt_watch_source_enable(pgwt_capture_source *src, bool on, uint64_t now_ns,
									 pgwt_emit_fn emit, void *arg);
extern bool pgwt_watch_source_enabled(pgwt_capture_source *src);

/*
 * Can this source see? The watchpoint self-test (tracer/watch/self_test.h)
 * with the source's own program: 0 yes, -1 no with r->why. Run it at
 * attach and before every exact window; never while enabled.
 */
extern int	pgwt_watch_source_self_test(pgwt_capture_source *src, pgwt_watch_self_test *r);

/*
 * The same source over another kernel side (tracer/exact_kernel.h), which
 * it owns from here on (closed on failure too): sched_source.c.
 */
struct pgwt_exact_kernel;
extern pgwt_capture_source *pgwt_exact_source_create(const pgwt_watch_source_config *cfg,
													 const struct pgwt_exact_kernel *k,
													 char *err, size_t errlen);
/* The same test without a cluster: loads the program, tests, unloads. */
extern int	pgwt_exact_probe(pgwt_watch_self_test *r);

/*
 * A descriptor that becomes readable when a process forks or exits (the
 * proc connector), so the loop can tick at once and watch a new backend
 * before its first waits; -1 when disabled or unavailable.
 */
extern int	pgwt_watch_source_wake_fd(pgwt_capture_source *src);

extern void pgwt_watch_source_set_qid_offset(pgwt_capture_source *src, int offset, int xact_offset);
extern void pgwt_watch_source_ignore_pid(pgwt_capture_source *src, uint32_t pid);
/*
 * Backends never watched: the SQL listener's and the processes that are no
 * session (either may be NULL).
 */
extern void pgwt_watch_source_set_exclusions(pgwt_capture_source *src,
											 const pgwt_own_backends *own,
											 const pgwt_own_backends *nonsess);
/* List the postmaster's children at the next tick (a pid left a set). */
extern void pgwt_watch_source_rescan_soon(pgwt_capture_source *src);
extern void pgwt_watch_source_stats(pgwt_capture_source *src, pgwt_watch_stats *out);

/* Lightweight mode: calls fn per event with the kernel's totals. */
extern int	pgwt_watch_source_aggregates(pgwt_capture_source *src,
										 void (*fn) (uint32_t event, uint64_t count,
													 uint64_t total_ns, uint64_t max_ns,
													 void *arg),
										 void *arg);

#endif
