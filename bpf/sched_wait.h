/*
 * sched_wait.h
 *		Records shared by the scheduler BPF program (sched_wait.bpf.c) and
 *		its user-space loader (tracer/sched_source.c). Fixed-width fields
 *		only: compiled for the BPF target and for the host alike.
 *
 * The program writes struct pgwt_watch_event (wait_watch.h), the exact
 * tier's one transition record, so both exact sources share the user-space
 * conversion (tracer/watch/watch_record.c) and its query-id carry.
 */
#ifndef PGWT_BPF_SCHED_WAIT_H
#define PGWT_BPF_SCHED_WAIT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "wait_watch.h"

/*
 * One entry per traced backend (key: its pid, which is its main thread's
 * task id). User space sets the addresses and the starting state; the
 * program alone updates the rest. A task's switch-out and its next
 * switch-in never run at once, so each field has one writer at a time.
 */
struct pgwt_sched_target
{
	__u64		wait_addr;		/* address of the uint32 wait_event_info */
	__u64		query_id_addr;	/* st_query_id, 0 = not known (yet) */
	__u64		xact_addr;		/* st_xact_start_timestamp, 0 = not read */
	__u64		since_ns;		/* when the backend entered event */
	__u64		query_id;		/* read when event was entered */
	__u64		xact_key;		/* likewise */
	__u64		off_ns;			/* blocked (switched out not runnable) at; 0 = not */
	__u64		queued_ns;		/* runnable, waiting for a CPU since; 0 = not */
	__u64		runq_ns;		/* run-queue time so far (wakeup or preemption -> switch-in) */
	__u64		runq_count;
	__u64		unnamed_off_ns; /* blocked with no wait event set (billed as CPU*) */
	/*
	 * The kernel's own scheduler accounting of the task (its sched_info)
	 * read at its last switch-out: run-queue time so far and arrivals on a
	 * CPU. A boundary the program did not see (a run it skipped) is placed
	 * from the difference at the next switch-out.
	 */
	__u64		k_run_delay;
	__u64		k_pcount;
	__u32		event;			/* the state last emitted: 0 on CPU,
								 * PGWT_SCHED_RUNQUEUE, or a wait event */
	__u32		seen;			/* 1 once a switch-out of it was seen (k_* valid) */
};

/*
 * The state of a backend runnable but not running: the reserved event id
 * PGWT_EVENT_CPU_RUNQUEUE of common/event_ids.h (which the BPF target
 * cannot include; sched_source.c asserts they are equal).
 */
#define PGWT_SCHED_RUNQUEUE		0x00000001u

/* Counters in a per-CPU array, summed by user space. */
enum pgwt_sched_counter
{
	PGWT_SC_TRANSITIONS = 0,	/* records pushed */
	PGWT_SC_DROPS,				/* ring buffer full: a record lost */
	PGWT_SC_READ_FAULTS,		/* wait_event_info unreadable at switch-out */
	PGWT_SC_SELF_TEST,			/* switch-outs of the loader's self-test thread */
	PGWT_SC_BLOCKS,				/* traced switch-outs not runnable */
	PGWT_SC_UNNAMED_BLOCKS,		/* of those, with no wait event set */
	PGWT_SC_UNNAMED_OFF_NS,		/* their off-CPU time */
	PGWT_SC_RUNQ_NS,			/* run-queue time of traced backends (the
								 * status counts the records' instead) */
	PGWT_SC_RUNQ_COUNT,
	/*
	 * States the program cannot account for (each a scheduler event it did
	 * not see): a switch-out of a backend it had off the CPU (blocked or
	 * runnable: its switch-in was missed), a switch-in of one it had on the
	 * CPU (its switch-out was missed; counted once a switch-out of it was
	 * seen). Wakeups of a backend not blocked (woken before it
	 * switched out, or already runnable) are normal, and only counted.
	 */
	PGWT_SC_MISSED_RUN,
	PGWT_SC_MISSED_OFF,
	PGWT_SC_WAKE_NOT_BLOCKED,
	/*
	 * Of the missed switch-ins, those whose boundaries were placed from
	 * more than one arrival of the kernel's accounting (several runs
	 * unseen: the wait is closed at the earliest run-queue entry the
	 * kernel's total allows, the runs between billed as run queue).
	 */
	PGWT_SC_MISSED_MULTI,
	/* switch-ins whose wakeup was not seen, placed from sched_info.last_queued */
	PGWT_SC_MISSED_WAKE,
	PGWT_SC_NCOUNTERS
};

#endif							/* PGWT_BPF_SCHED_WAIT_H */
