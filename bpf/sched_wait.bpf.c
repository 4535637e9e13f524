// SPDX-License-Identifier: PostgreSQL
/*
 * sched_wait.bpf.c
 *		The scheduler's view of a backend's waits: on the sched_switch and
 *		sched_wakeup BTF tracepoints (no tracefs, no debug registers), each
 *		time a traced backend blocks, the wait event it blocked in is read
 *		and the interval until it runs again is timed exactly.
 *
 * At switch-out the task leaving the CPU is the current one, so its own
 * memory (wait_event_info, st_query_id) can be read with
 * bpf_probe_read_user; at switch-in the task arriving is not current, so
 * its record carries what was read when it blocked. Per backend the
 * program keeps one state (the event last emitted: 0 = on CPU,
 * PGWT_SCHED_RUNQUEUE = runnable, not running, else a wait event) and
 * emits a transition when it changes: into the event at a blocking
 * switch-out, into the run queue when it was queued (woken, or preempted),
 * back to CPU at the next switch-in. So a wait ends when it is woken, and
 * the run-queue delay after it is CPU:RunQueue, a part of CPU* (common/
 * event_ids.h). The run-queue interval is the kernel's own (runq_start):
 * it ends at the switch-in and lasts what the scheduler adds to the
 * task's sched_info.run_delay for it (/proc/PID/schedstat), so the record
 * of entering the run queue is emitted at the switch-in, stamped back to
 * when it began: the wakeup tracepoint runs after the enqueue it reports
 * and after the wakeup-preemption check (wakeup_preempt, which may send
 * the target CPU a reschedule IPI, a VM exit here), so its own clock
 * starts run-queue waits late and ends blocked waits late (by
 * microseconds a wait on some backends under 8 clients on 2 cores). A
 * block with no wait event set (a page fault that reads the disk, a pipe) stays CPU* and is
 * only counted. Run-queue time is also added per backend and in total,
 * at its end.
 * The kernel may skip a run of these programs (seen: a wakeup and the
 * switch-in after it, on a busy host), so no boundary depends on one run:
 * each switch-out keeps the task's own scheduler accounting (sched_info),
 * and a switch-out or switch-in that finds an event missing places it
 * from that accounting (close_missed_run, on_run) and counts it.
 * Records go into a ring buffer without waking the consumer (it polls).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "sched_wait.h"

char		LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * As in wait_watch.bpf.c: where a backend traced before its
 * PgBackendStatus was known finds its query id (MyBEEntry's address and
 * the offsets of st_query_id and st_xact_start_timestamp; -1 = not read).
 */
volatile __u64 be_var_addr = 0;
volatile __s64 qid_offset = -1;
volatile __s64 xact_offset = -1;

/* The loader's self-test thread: its switch-outs are only counted. */
volatile __u32 self_test_tid = 0;

struct
{
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct pgwt_sched_target);
}			targets SEC(".maps");

struct
{
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 1024 * 1024);
}			events SEC(".maps");

struct
{
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PGWT_SC_NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
}			counters SEC(".maps");

static __always_inline void
count_add(__u32 which, __u64 n)
{
	__u64	   *v = bpf_map_lookup_elem(&counters, &which);

	if (v)
		*v += n;
}

/*
 * The run-queue clock (sched_clock) of the CPU task p is on, which the
 * kernel's sched_info stamps use: __schedule has just updated it at a
 * switch. Reached through p's fair-class run queue (the per-CPU runqueues
 * symbol is not in kallsyms on every kernel); 0 when p has none.
 */
static __always_inline __u64
rq_clock_of(struct task_struct *p)
{
	struct cfs_rq *cfs = p->se.cfs_rq;

	if (!cfs || !cfs->rq)
		return 0;
	return cfs->rq->clock;
}

/*
 * A sched_info stamp (run-queue clock) as CLOCK_MONOTONIC: now less its age
 * on this CPU's clock, kept within [lo, now]; now when the stamp is unset.
 */
static __always_inline __u64
stamp_to_mono(__u64 now, __u64 rq_now, __u64 stamp, __u64 lo)
{
	__u64		ts = now;

	if (stamp && stamp <= rq_now && rq_now - stamp < now)
		ts = now - (rq_now - stamp);
	if (ts < lo)
		ts = lo;
	if (ts > now)
		ts = now;
	return ts;
}

/* Leave t's state for new_event at ts: one record, billed to qid. */
static __always_inline void
emit(__u32 pid, struct pgwt_sched_target *t, __u64 ts, __u32 new_event,
	 __u64 qid, __u64 xact)
{
	struct pgwt_watch_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (ts < t->since_ns)
		ts = t->since_ns;
	if (!e)
		count_add(PGWT_SC_DROPS, 1);
	else
	{
		e->ts_ns = ts;
		e->duration_ns = ts - t->since_ns;
		e->query_id = qid;
		e->xact_key = xact;
		e->pid = pid;
		e->old_event = t->event;
		e->new_event = new_event;
		e->pad = 0;
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
		count_add(PGWT_SC_TRANSITIONS, 1);
	}
	t->event = new_event;
	t->since_ns = ts;
}

/*
 * The statement of the current task (a traced backend switching out),
 * read while its memory is the current one: query id and transaction key,
 * each left as it was where unreadable.
 */
static __always_inline void
read_statement(struct pgwt_sched_target *t, __u64 *qid, __u64 *xact)
{
	if (!t->query_id_addr && qid_offset >= 0 && be_var_addr)
	{
		__u64		be = 0;

		if (bpf_probe_read_user(&be, sizeof(be), (void *) be_var_addr) == 0 && be)
		{
			t->query_id_addr = be + qid_offset;
			if (xact_offset >= 0)
				t->xact_addr = be + xact_offset;
		}
	}
	if (t->query_id_addr)
		bpf_probe_read_user(qid, sizeof(*qid), (void *) t->query_id_addr);
	if (t->xact_addr)
		bpf_probe_read_user(xact, sizeof(*xact), (void *) t->xact_addr);
}

/*
 * The current task leaves its on-CPU (or attach-time) state for new_event:
 * bill the state left to the statement it runs now.
 */
static __always_inline void
leave_running(__u32 pid, struct pgwt_sched_target *t, __u64 now, __u32 new_event)
{
	__u64		qid = 0,
				xact = 0;

	read_statement(t, &qid, &xact);
	emit(pid, t, now, new_event, qid, xact);
	t->query_id = qid;
	t->xact_key = xact;
}

/* prev blocks (not runnable): enter the wait event it shows, if any. */
static __always_inline void
on_block(__u32 pid, struct pgwt_sched_target *t, __u64 now)
{
	__u32		ev = 0;

	t->off_ns = now;
	t->queued_ns = 0;
	count_add(PGWT_SC_BLOCKS, 1);
	if (bpf_probe_read_user(&ev, sizeof(ev), (void *) t->wait_addr) != 0)
	{
		/* an exiting task has no memory left: keep the state */
		count_add(PGWT_SC_READ_FAULTS, 1);
		return;
	}
	if (ev == 0)
		count_add(PGWT_SC_UNNAMED_BLOCKS, 1);
	if (ev == t->event)
		return;
	leave_running(pid, t, now, ev);
}

/* A blocked backend is made runnable at ts: its wait (or CPU*) ends there. */
static __always_inline void
wake_at(__u32 pid, struct pgwt_sched_target *t, __u64 ts)
{
	if (ts < t->off_ns)
		ts = t->off_ns;
	t->queued_ns = ts;
	if (t->event == 0)
	{
		/* blocked with no wait event: that much is CPU*, the rest run queue */
		t->unnamed_off_ns += ts - t->off_ns;
		count_add(PGWT_SC_UNNAMED_OFF_NS, ts - t->off_ns);
	}
	t->off_ns = 0;
	emit(pid, t, ts, PGWT_SCHED_RUNQUEUE, t->query_id, t->xact_key);
}

/*
 * A backend preempted on the CPU (its statement read at the switch-out)
 * entered the run queue at ts.
 */
static __always_inline void
preempted_at(__u32 pid, struct pgwt_sched_target *t, __u64 ts)
{
	t->queued_ns = ts;
	if (t->event == 0)
		emit(pid, t, ts, PGWT_SCHED_RUNQUEUE, t->query_id, t->xact_key);
}

/* The backend runs again at ts: its run-queue wait ends, and so does its wait event. */
static __always_inline void
run_at(__u32 pid, struct pgwt_sched_target *t, __u64 ts)
{
	if (t->queued_ns)
	{
		__u64		rq = ts > t->queued_ns ? ts - t->queued_ns : 0;

		t->runq_ns += rq;
		t->runq_count++;
		count_add(PGWT_SC_RUNQ_NS, rq);
		count_add(PGWT_SC_RUNQ_COUNT, 1);
		t->queued_ns = 0;
	}
	if (t->off_ns && t->event == 0)
	{
		/* woken without a wakeup placed: the whole off-CPU time was blocked */
		t->unnamed_off_ns += ts - t->off_ns;
		count_add(PGWT_SC_UNNAMED_OFF_NS, ts - t->off_ns);
	}
	t->off_ns = 0;
	if (t->event != 0)
		emit(pid, t, ts, 0, t->query_id, t->xact_key);
}

/*
 * When next, switching in now, entered the run queue, by the kernel's
 * accounting (what sched_info_arrive, which runs just after this
 * tracepoint, adds to run_delay): the part of this wait still open,
 * rq clock - last_queued, plus any part closed before (a migration while
 * queued dequeues it, adding that part to run_delay) since the switch-out
 * seen last, unless the kernel counts an arrival the program did not see
 * (then that difference holds older waits). Kept within [lo, now];
 * fallback where the kernel has no stamp (not a fair-class task).
 */
static __always_inline __u64
runq_start(struct pgwt_sched_target *t, struct task_struct *next, __u64 now,
		   __u64 lo, __u64 fallback)
{
	__u64		rq_now = rq_clock_of(next),
				lq = next->sched_info.last_queued,
				d = 0,
				ts;

	if (t->seen && next->sched_info.pcount == t->k_pcount &&
		next->sched_info.run_delay > t->k_run_delay)
		d = next->sched_info.run_delay - t->k_run_delay;
	if (rq_now && lq && lq <= rq_now)
		d += rq_now - lq;
	else if (d == 0)
		return fallback;
	ts = d < now ? now - d : 0;
	if (ts < lo)
		ts = lo;
	return ts > now ? now : ts;
}

/*
 * next switches in: it entered the run queue at runq_start (a wakeup seen
 * or not, or a preemption), and its wait, if it was blocked, ended there.
 */
static __always_inline void
on_run(__u32 pid, struct pgwt_sched_target *t, struct task_struct *next, __u64 now)
{
	if (t->seen && !t->off_ns && !t->queued_ns)
		count_add(PGWT_SC_MISSED_OFF, 1);
	if (t->off_ns)
	{
		if (!t->queued_ns)
			count_add(PGWT_SC_MISSED_WAKE, 1);
		wake_at(pid, t, runq_start(t, next, now, t->off_ns,
								   t->queued_ns ? t->queued_ns : now));
	}
	else if (t->queued_ns)
		preempted_at(pid, t, runq_start(t, next, now, t->since_ns, t->queued_ns));
	run_at(pid, t, now);
}

/*
 * prev switches out, so it ran: where the program still has it off the CPU
 * (blocked, or runnable), the switch-in before this run, and maybe the
 * wakeup before that, ran without the program (the kernel can skip a
 * tracepoint program, and counts only some of the skips). Without this, a
 * wait whose end was missed would run on into the next wait of the same
 * event (on_block emits nothing for it) and two waits would count as one.
 * The kernel's accounting of the task places the missed boundaries: it
 * arrived at sched_info.last_arrival after waiting run_delay - k_run_delay
 * in the run queue (all its waits since the last switch-out seen; with
 * more than one arrival in between, the runs between are billed as run
 * queue and counted).
 */
static __always_inline void
close_missed_run(__u32 pid, struct pgwt_sched_target *t, struct task_struct *prev, __u64 now)
{
	__u64		arrived,
				rq_wait,
				lo,
				start;

	if (!t->seen || (!t->off_ns && !t->queued_ns))
		return;
	count_add(PGWT_SC_MISSED_RUN, 1);
	if (prev->sched_info.pcount - t->k_pcount > 1)
		count_add(PGWT_SC_MISSED_MULTI, 1);
	arrived = stamp_to_mono(now, rq_clock_of(prev), prev->sched_info.last_arrival, t->since_ns);
	rq_wait = prev->sched_info.run_delay > t->k_run_delay ?
		prev->sched_info.run_delay - t->k_run_delay : 0;
	lo = t->off_ns ? t->off_ns : t->queued_ns;
	start = arrived > lo + rq_wait ? arrived - rq_wait : lo;
	if (t->off_ns)
		wake_at(pid, t, start);
	else
		preempted_at(pid, t, start);
	run_at(pid, t, arrived);
}

SEC("tp_btf/sched_switch")
int
BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
		 unsigned int prev_state)
{
	__u64		now = bpf_ktime_get_ns();
	__u32		ppid = prev->pid;
	__u32		npid = next->pid;
	struct pgwt_sched_target *t;

	if (ppid != 0 && ppid == self_test_tid)
		count_add(PGWT_SC_SELF_TEST, 1);
	else if ((t = bpf_map_lookup_elem(&targets, &ppid)) != NULL)
	{
		close_missed_run(ppid, t, prev, now);
		t->k_run_delay = prev->sched_info.run_delay;
		t->k_pcount = prev->sched_info.pcount;
		t->seen = 1;
		/*
		 * preempted (or preempted while going to sleep): still runnable.
		 * Its statement is read now, while its memory is the current
		 * one; the record waits for the switch-in (on_run).
		 */
		if (preempt || prev_state == 0)
		{
			t->queued_ns = now;
			if (t->event == 0)
				read_statement(t, &t->query_id, &t->xact_key);
		}
		else
			on_block(ppid, t, now);
	}
	if ((t = bpf_map_lookup_elem(&targets, &npid)) != NULL)
		on_run(npid, t, next, now);
	return 0;
}

/*
 * A blocked backend is made runnable: noted only, as the switch-in places
 * the end of its wait from the kernel's accounting (runq_start) and emits
 * its records.
 */
static __always_inline void
on_wake(struct task_struct *p)
{
	__u32		pid = p->pid;
	struct pgwt_sched_target *t = bpf_map_lookup_elem(&targets, &pid);

	if (!t)
		return;
	if (!t->off_ns || t->queued_ns)
	{
		count_add(PGWT_SC_WAKE_NOT_BLOCKED, 1);
		return;
	}
	t->queued_ns = bpf_ktime_get_ns();
}

SEC("tp_btf/sched_wakeup")
int
BPF_PROG(on_wakeup, struct task_struct *p)
{
	on_wake(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int
BPF_PROG(on_wakeup_new, struct task_struct *p)
{
	on_wake(p);
	return 0;
}
