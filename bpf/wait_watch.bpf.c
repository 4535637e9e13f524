// SPDX-License-Identifier: PostgreSQL
/*
 * wait_watch.bpf.c
 *		Runs on every hardware write-watchpoint hit on a backend's
 *		wait_event_info and turns the write into a transition record.
 *
 * A watchpoint traps after the writing instruction completes, so the value
 * read here is the new one (and a wait's start is moved past the trap's own
 * stall: trap_stall_ns below). Writes that store the value already there are
 * counted and ignored. The program keeps the last state per pid in a hash
 * map it alone updates (one perf event per backend thread, so one writer per
 * key), and either pushes a record into the ring buffer without waking the
 * consumer (the consumer polls) or, in lightweight mode, folds it into
 * per-CPU aggregates.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "wait_watch.h"
#include "../common/event_bits.h"

char		LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool lightweight = false;

/*
 * Where a backend's query id lives, for backends watched before their
 * PgBackendStatus was known (a watchpoint can be set as soon as InitProcess
 * ran; MyBEEntry is set later in InitPostgres): the address of the
 * MyBEEntry variable (the same in every backend: forked from one image) and
 * st_query_id's and st_xact_start_timestamp's offsets in PgBackendStatus
 * (the transaction start is the query-id carry's key). Set by user space
 * once known; -1 = do not read that field.
 */
volatile __u64 be_var_addr = 0;
volatile __s64 qid_offset = -1;
volatile __s64 xact_offset = -1;

/*
 * The loader's self-test (tracer/watch/): while non-zero, traps from this
 * process are counted as PGWT_WC_SELF_TEST and go no further, so the test
 * proves that the hardware fires and that this very program runs on it,
 * without a record or an aggregate of its own.
 */
volatile __u32 self_test_tgid = 0;

/*
 * What one trap stalls the writing thread (the self-test's median, set by
 * user space; 0 until measured). A watchpoint traps after the write, so
 * the thread stalls in the state the write began, and a wait would carry
 * the stall of the trap that opened it: a few us per wait in a VM, which
 * the process without the tracer never spends. A wait's start is taken
 * that much later, so the stall goes to the state before, where a tracer
 * inside the process (the coop hooks) sees it too. Never past the next
 * transition: a wait shorter than the stall lasts 0. Not when the new
 * state is idle (Client:ClientRead, Activity): the stall after a query's
 * last write is the tracer's, not the query's, and billing it to CPU*
 * would add it to DB time (once per statement under pgbench, ~6% of DB
 * time here), where a sampler, reading the idle state, never sees it.
 */
volatile __u64 trap_stall_ns = 0;

struct
{
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct pgwt_watch_target);
}			targets SEC(".maps");

struct
{
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 1024 * 1024);
}			events SEC(".maps");

struct
{
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PGWT_WC_NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
}			counters SEC(".maps");

struct
{
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct pgwt_watch_agg);
}			aggregates SEC(".maps");

static __always_inline void
count(__u32 which)
{
	__u64	   *v = bpf_map_lookup_elem(&counters, &which);

	if (v)
		*v += 1;
}

static __always_inline void
fold(__u32 event, __u64 dur)
{
	struct pgwt_watch_agg *a = bpf_map_lookup_elem(&aggregates, &event);

	if (!a)
	{
		struct pgwt_watch_agg init = {1, dur, dur};

		bpf_map_update_elem(&aggregates, &event, &init, BPF_NOEXIST);
		return;
	}
	a->count++;
	a->total_ns += dur;
	if (dur > a->max_ns)
		a->max_ns = dur;
}

SEC("perf_event")
int
on_wait_write(void *ctx)
{
	__u32		pid = bpf_get_current_pid_tgid() >> 32;
	struct pgwt_watch_target *t;
	struct pgwt_watch_event *e;
	__u32		now_event;
	__u64		now;

	if (pid == self_test_tgid)
	{
		count(PGWT_WC_SELF_TEST);
		return 0;
	}
	t = bpf_map_lookup_elem(&targets, &pid);
	if (!t)
	{
		count(PGWT_WC_UNKNOWN_PID);
		return 0;
	}
	if (bpf_probe_read_user(&now_event, sizeof(now_event), (void *) t->wait_addr) != 0)
	{
		count(PGWT_WC_READ_FAULTS);
		return 0;
	}
	if (t->event == now_event)
	{
		count(PGWT_WC_SAME_VALUE);
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (now_event != 0 && !PGWT_EVENT_IS_IDLE(now_event))
		now += trap_stall_ns;
	if (now < t->since_ns)
		now = t->since_ns;
	count(PGWT_WC_TRANSITIONS);

	if (lightweight)
		fold(t->event, now - t->since_ns);
	else
	{
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e)
			count(PGWT_WC_DROPS);
		else
		{
			e->ts_ns = now;
			e->duration_ns = now - t->since_ns;
			e->pid = pid;
			e->old_event = t->event;
			e->new_event = now_event;
			e->pad = 0;
			e->query_id = 0;
			e->xact_key = 0;
			if (!t->query_id_addr && qid_offset >= 0 && be_var_addr)
			{
				__u64		be = 0;

				/* learn it once: the program alone writes this target */
				if (bpf_probe_read_user(&be, sizeof(be), (void *) be_var_addr) == 0 && be)
				{
					t->query_id_addr = be + qid_offset;
					if (xact_offset >= 0)
						t->xact_addr = be + xact_offset;
				}
			}
			if (t->query_id_addr)
				bpf_probe_read_user(&e->query_id, sizeof(e->query_id),
									(void *) t->query_id_addr);
			if (t->xact_addr)
				bpf_probe_read_user(&e->xact_key, sizeof(e->xact_key),
									(void *) t->xact_addr);
			bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
		}
	}
	t->event = now_event;
	t->since_ns = now;
	return 0;
}
