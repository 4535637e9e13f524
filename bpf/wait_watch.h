/*
 * wait_watch.h
 *		Records shared by the watchpoint BPF program (wait_watch.bpf.c) and
 *		its user-space loader (tracer/watch/). Only fixed-width fields: the
 *		same header is compiled for the BPF target and for the host.
 */
#ifndef PGWT_BPF_WAIT_WATCH_H
#define PGWT_BPF_WAIT_WATCH_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * One entry per watched backend pid: where to read it (set by user space)
 * and the last state seen (updated by the program). One map, so a trap costs
 * one hash lookup.
 */
struct pgwt_watch_target
{
	__u64		wait_addr;		/* address of the uint32 wait_event_info */
	__u64		query_id_addr;	/* address of st_query_id, 0 = do not read */
	__u64		xact_addr;		/* address of st_xact_start_timestamp, 0 = do not read */
	__u64		since_ns;		/* when the backend entered event */
	__u32		event;			/* the value last seen */
	__u32		pad;
};

/* One transition, as pushed into the ring buffer. */
struct pgwt_watch_event
{
	__u64		ts_ns;			/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64		duration_ns;	/* time spent in old_event */
	__u64		query_id;
	__u64		xact_key;		/* st_xact_start_timestamp then; 0 = none or not read */
	__u32		pid;
	__u32		old_event;
	__u32		new_event;
	__u32		pad;
};

/* Lightweight mode: per-CPU aggregates keyed by the event left. */
struct pgwt_watch_agg
{
	__u64		count;
	__u64		total_ns;
	__u64		max_ns;
};

/* Counters in a per-CPU array, summed by user space. */
enum pgwt_watch_counter
{
	PGWT_WC_TRANSITIONS = 0,	/* value changed: a transition */
	PGWT_WC_SAME_VALUE,			/* written with the value it had */
	PGWT_WC_DROPS,				/* ring buffer full: transition lost */
	PGWT_WC_READ_FAULTS,		/* the user read failed */
	PGWT_WC_UNKNOWN_PID,		/* trap from a pid with no target */
	PGWT_WC_SELF_TEST,			/* trap from the loader's own self-test */
	PGWT_WC_NCOUNTERS
	/* Traps in all = the sum of the counters: not counted apart, to keep
	 * the program one increment per trap. */
};

#endif							/* PGWT_BPF_WAIT_WATCH_H */
