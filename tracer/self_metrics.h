/*
 * self_metrics.h
 *		The tracer's own counters. One instance lives in the daemon; the
 *		capture source and the recorder update it from the single sampling
 *		thread, so no locking. A later control socket exposes it as is;
 *		today `--format json` prints it in the status line.
 */
#ifndef PGWT_TRACER_SELF_METRICS_H
#define PGWT_TRACER_SELF_METRICS_H

#include <stdint.h>
#include <stdio.h>

typedef struct pgwt_self_metrics
{
	uint64_t	start_ns;				/* CLOCK_MONOTONIC at start */
	uint64_t	ticks_total;
	uint64_t	late_ticks_total;		/* late by common/tick_rule.h */
	uint64_t	ticks_skipped_total;	/* deadlines passed before the wait (tick_clock.h) */
	uint64_t	samples_total;			/* SAMPLE records produced */
	uint64_t	sample_read_faults_total;	/* reads failed or not trusted */
	uint64_t	backends_tracked;		/* now */
	uint64_t	backends_seen_total;
	uint64_t	backends_exited_total;
	uint64_t	proc_scans_total;
	uint64_t	read_syscalls_total;	/* process_vm_readv calls */
	uint64_t	batch_fallbacks_total;	/* ticks read backend by backend */
	uint64_t	backends_sampled_total;	/* backends with >= 1 sample */
	uint64_t	unobserved_ns;			/* gaps over the tick cap, not billed */
	uint64_t	attaches_total;			/* 1 + re-attaches */
	uint64_t	trace_records_written_total;
	uint64_t	trace_bytes_written_total;
	uint64_t	trace_bytes_archived;	/* sizes of files rotated away */
	/* the exact tier (copied from its source's counters each step) */
	uint64_t	events_total;			/* TRANSITION records captured */
	uint64_t	ringbuf_drops_total;	/* transitions lost: ring buffer full */
	uint64_t	wp_attach_failures_total;
	uint64_t	backends_watched;		/* now */
	uint64_t	blocker_queries_total;	/* pg_blocking_pids statements */
	/* coverage of new backends by the exact tier */
	uint64_t	wp_backends_forked_total;	/* forks seen while following */
	uint64_t	wp_attached_total;			/* watchpoints set */
	uint64_t	wp_exited_unwatched_total;	/* forked and gone, never watched */
	uint64_t	wp_attached_at_zero_total;	/* watched while no wait was set */
	uint64_t	wp_attach_races_total;		/* value changed during the attach */
	uint64_t	wp_attach_latency_ns_sum;	/* fork seen -> watched */
	uint64_t	wp_attach_latency_ns_max;
	/* --mode sched only (shown when sched_on): the scheduler's view */
	int			sched_on;
	uint64_t	sched_blocks_total;			/* switch-outs not runnable */
	uint64_t	sched_unnamed_blocks_total; /* of those, with no wait event */
	uint64_t	sched_unnamed_off_ns;		/* their off-CPU time (in CPU*) */
	uint64_t	sched_runq_ns;				/* runnable, waiting for a CPU */
	uint64_t	sched_runq_total;			/* run-queue waits */
	int			sched_attached;				/* tracepoints attached now (0 between windows) */
	uint64_t	sched_attaches_total;		/* times they were attached */
	/* events the programs could not account for (bpf/sched_wait.h) */
	uint64_t	sched_missed_run_total;		/* switch-in not seen */
	uint64_t	sched_missed_off_total;		/* switch-out not seen */
	uint64_t	sched_missed_multi_total;	/* of missed_run: several runs unseen */
	uint64_t	sched_missed_wake_total;	/* wakeup not seen, switch-in seen */
	uint64_t	sched_wake_not_blocked_total;	/* woken while not blocked */
	/*
	 * Per program (switch, wakeup, wakeup_new), from the kernel: runs it
	 * skipped because one was already running on that CPU, and its runs
	 * (0 unless sysctl kernel.bpf_stats_enabled is 1).
	 */
	uint64_t	sched_recursion_misses[3];
	uint64_t	sched_prog_runs[3];
} pgwt_self_metrics;

/* "switch", "wakeup", "wakeup_new": sched_recursion_misses' order */
extern const char *const pgwt_sched_prog_names[3];

/* One JSON object (no newline) with the counters and derived rates. */
extern void pgwt_self_metrics_json(FILE *out, const pgwt_self_metrics *m,
								   uint64_t now_ns);

#endif
