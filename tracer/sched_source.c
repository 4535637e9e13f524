/*
 * sched_source.c
 *		Loader and consumer of the sched_wait BPF program (libbpf skeleton),
 *		as the kernel side of an exact source (exact_kernel.h): targets in a
 *		hash map the program filters on, one ring buffer of transitions,
 *		per-CPU counters.
 *
 * The three tracepoints run for every task switch on the machine (a task
 * that is no target costs one hash lookup), so they are attached only
 * while the source is enabled (an escalation window, or all of --mode
 * sched) and for the self-test: between windows the programs stay loaded
 * but no link exists, and the scheduler runs none of them. Adding a
 * backend is one map update (no perf event, no debug register), so any
 * number of backends can be traced at once.
 *
 * The query-id carry (common/query_carry.h) is applied as events are
 * drained, with one carry per traced pid, found by the pid itself
 * (pgwt_carry_table): made at the add, forgotten at the removal; an event
 * drained after its backend left bills the raw id.
 *
 * Single-threaded: the daemon loop owns it. The program updates the
 * targets concurrently; user space writes a target only to add it, to
 * move a just-added one (the attach race) and to remove it.
 */
#include "tracer/sched_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/sched_wait.h"
#include "common/clock.h"
#include "common/event_ids.h"
#include "tracer/attach.h"
#include "tracer/exact_kernel.h"
#include "tracer/watch/watch_record.h"
#include "sched_wait.skel.h"

#define SK_SELF_TEST_SLEEPS 8

_Static_assert(PGWT_SCHED_RUNQUEUE == PGWT_EVENT_CPU_RUNQUEUE,
			   "the BPF program's run-queue state is the reserved CPU:RunQueue id");

typedef struct sk_t
{
	struct sched_wait_bpf *skel;
	struct ring_buffer *rb;
	int			ntargets;
	int			ncpus;
	pgwt_watch_sink sink;		/* valid only inside sk_poll */
	void	   *sink_arg;
	pgwt_carry_table carry;
	bool		attached;		/* the tracepoint links exist */
	uint64_t	attaches;
} sk_t;

static int
sk_libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int
sk_on_event(void *ctx, void *data, size_t size)
{
	sk_t	   *k = ctx;
	const struct pgwt_watch_event *e = data;
	pgwt_record rec;

	if (size < sizeof(*e))
		return 0;
	pgwt_watch_event_to_record(e, pgwt_carry_table_get(&k->carry, e->pid, false), &rec);
	k->sink(&rec, k->sink_arg);
	return 0;
}

static int
sk_fd(sk_t *k)
{
	return bpf_map__fd(k->skel->maps.targets);
}

static int
sk_add(void *h, pid_t pid, uint64_t wait_addr, uint64_t qid_addr, uint64_t xact_addr,
	   uint32_t current_event, char *err, size_t errlen)
{
	sk_t	   *k = h;
	struct pgwt_sched_target t;
	__u32		key = (__u32) pid;

	if (bpf_map_lookup_elem(sk_fd(k), &key, &t) == 0)
		return 0;				/* already traced */
	memset(&t, 0, sizeof(t));
	t.wait_addr = wait_addr;
	t.query_id_addr = qid_addr;
	t.xact_addr = qid_addr ? xact_addr : 0;
	t.since_ns = pgwt_mono_ns();
	/*
	 * A backend found blocked in a wait leaves it at its next switch-in
	 * (counted from now, as the watchpoint tier counts a first transition);
	 * one found on CPU with an event set keeps it through its next block.
	 */
	t.event = current_event;
	if (qid_addr)
		pgwt_remote_read((int) pid, qid_addr, &t.query_id, sizeof(t.query_id));
	if (bpf_map_update_elem(sk_fd(k), &key, &t, BPF_NOEXIST) != 0)
	{
		int			e = errno;

		snprintf(err, errlen, "cannot trace pid %d: %s%s", (int) pid, strerror(e),
				 e == E2BIG ? " (16384 backends traced)" : "");
		return -e;
	}
	/* a pid the kernel gave again starts with an empty carry */
	pgwt_carry_table_forget(&k->carry, key);
	pgwt_carry_table_get(&k->carry, key, true);
	k->ntargets++;
	return 0;
}

static int
sk_remove(void *h, pid_t pid)
{
	sk_t	   *k = h;
	__u32		key = (__u32) pid;

	if (bpf_map_delete_elem(sk_fd(k), &key) != 0)
		return -errno;
	pgwt_carry_table_forget(&k->carry, key);
	k->ntargets--;
	return 0;
}

static int
sk_count(void *h)
{
	return ((sk_t *) h)->ntargets;
}

static int
sk_target_get(void *h, pid_t pid, struct pgwt_watch_target *out)
{
	sk_t	   *k = h;
	struct pgwt_sched_target t;
	__u32		key = (__u32) pid;

	if (bpf_map_lookup_elem(sk_fd(k), &key, &t) != 0)
		return -errno;
	memset(out, 0, sizeof(*out));
	out->wait_addr = t.wait_addr;
	out->query_id_addr = t.query_id_addr;
	out->xact_addr = t.xact_addr;
	out->since_ns = t.since_ns;
	out->event = t.event;
	return 0;
}

static int
sk_target_set(void *h, pid_t pid, const struct pgwt_watch_target *in)
{
	sk_t	   *k = h;
	struct pgwt_sched_target t;
	__u32		key = (__u32) pid;

	if (bpf_map_lookup_elem(sk_fd(k), &key, &t) != 0)
		return -errno;
	t.event = in->event;
	t.since_ns = in->since_ns;
	if (bpf_map_update_elem(sk_fd(k), &key, &t, BPF_EXIST) != 0)
		return -errno;
	return 0;
}

static void
sk_set_qid_source(void *h, uint64_t be_var, int qid_offset, int xact_offset)
{
	sk_t	   *k = h;

	/* .bss and .data are memory-mapped: plain stores, seen by the next switch */
	k->skel->bss->be_var_addr = be_var;
	k->skel->data->xact_offset = xact_offset;
	k->skel->data->qid_offset = qid_offset;
}

static int
sk_poll(void *h, int timeout_ms, pgwt_watch_sink sink, void *arg)
{
	sk_t	   *k = h;
	int			n;

	k->sink = sink;
	k->sink_arg = arg;
	/* producers never wake us (BPF_RB_NO_WAKEUP): consume, then sleep */
	n = ring_buffer__consume(k->rb);
	if (n == 0 && timeout_ms > 0)
	{
		usleep((useconds_t) timeout_ms * 1000);
		n = ring_buffer__consume(k->rb);
	}
	k->sink = NULL;
	return n;
}

static void
sk_sum(sk_t *k, uint64_t out[PGWT_SC_NCOUNTERS])
{
	uint64_t   *percpu = calloc((size_t) k->ncpus, sizeof(uint64_t));

	for (__u32 i = 0; i < PGWT_SC_NCOUNTERS; i++)
	{
		out[i] = 0;
		if (percpu && bpf_map_lookup_elem(bpf_map__fd(k->skel->maps.counters), &i, percpu) == 0)
			for (int c = 0; c < k->ncpus; c++)
				out[i] += percpu[c];
	}
	free(percpu);
}

static void
sk_counters(void *h, uint64_t out[PGWT_WC_NCOUNTERS])
{
	uint64_t	c[PGWT_SC_NCOUNTERS];

	sk_sum(h, c);
	memset(out, 0, PGWT_WC_NCOUNTERS * sizeof(uint64_t));
	out[PGWT_WC_TRANSITIONS] = c[PGWT_SC_TRANSITIONS];
	out[PGWT_WC_DROPS] = c[PGWT_SC_DROPS];
	out[PGWT_WC_READ_FAULTS] = c[PGWT_SC_READ_FAULTS];
	out[PGWT_WC_SELF_TEST] = c[PGWT_SC_SELF_TEST];
}

/* Attach or detach the three tracepoint programs (exact_kernel.h). */
static int
sk_set_active(void *h, bool on, char *err, size_t errlen)
{
	sk_t	   *k = h;
	int			rc;

	if (on == k->attached)
		return 0;
	if (!on)
	{
		sched_wait_bpf__detach(k->skel);
		k->attached = false;
		return 0;
	}
	if ((rc = sched_wait_bpf__attach(k->skel)) != 0)
	{
		/* a partial attach leaves links behind: drop them */
		sched_wait_bpf__detach(k->skel);
		snprintf(err, errlen, "cannot attach to the scheduler tracepoints (tp_btf sched_switch, sched_wakeup): %s",
				 strerror(-rc));
		return rc;
	}
	k->attached = true;
	k->attaches++;
	return 0;
}

/*
 * The tracepoints fire and this program runs on them: this thread sleeps a
 * few times and each switch-out must be counted. Proves the attach, not
 * the reading of a backend's memory (which a live test checks).
 */
static int
sk_self_test(void *h, pgwt_watch_self_test *r)
{
	sk_t	   *k = h;
	uint64_t	before[PGWT_SC_NCOUNTERS],
				after[PGWT_SC_NCOUNTERS];
	uint64_t	t0 = pgwt_mono_ns();
	struct timespec nap = {0, 1000000};
	bool		was = k->attached;

	memset(r, 0, sizeof(*r));
	if (sk_set_active(k, true, r->why, sizeof(r->why)) != 0)
		return -1;
	sk_sum(k, before);
	k->skel->bss->self_test_tid = (__u32) syscall(SYS_gettid);
	for (int i = 0; i < SK_SELF_TEST_SLEEPS; i++)
		nanosleep(&nap, NULL);
	k->skel->bss->self_test_tid = 0;
	sk_sum(k, after);
	if (!was)
		sk_set_active(k, false, NULL, 0);
	r->writes = SK_SELF_TEST_SLEEPS;
	r->runs = after[PGWT_SC_SELF_TEST] - before[PGWT_SC_SELF_TEST];
	r->hits = r->runs;
	r->elapsed_ns = pgwt_mono_ns() - t0;
	r->ok = r->runs >= (uint64_t) r->writes;
	if (r->ok)
		snprintf(r->why, sizeof(r->why), "the scheduler tracepoints fire: %d of %d sleeps seen",
				 (int) r->runs, r->writes);
	else
		snprintf(r->why, sizeof(r->why),
				 "the scheduler tracepoints do not fire here: %d of %d sleeps seen",
				 (int) r->runs, r->writes);
	return r->ok ? 0 : -1;
}

static void
sk_close(void *h)
{
	sk_t	   *k = h;

	if (!k)
		return;
	ring_buffer__free(k->rb);
	sched_wait_bpf__destroy(k->skel);
	free(k);
}

static int
sk_open(sk_t **out, char *err, size_t errlen)
{
	sk_t	   *k;
	int			rc;

	*out = NULL;
	libbpf_set_print(sk_libbpf_quiet);
	k = calloc(1, sizeof(*k));
	if (!k)
	{
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	k->ncpus = libbpf_num_possible_cpus();
	k->skel = sched_wait_bpf__open();
	if (!k->skel)
	{
		rc = -errno;
		snprintf(err, errlen, "cannot open the scheduler BPF program: %s", strerror(errno));
		free(k);
		return rc;
	}
	if ((rc = sched_wait_bpf__load(k->skel)) != 0)
	{
		snprintf(err, errlen,
				 "cannot load the scheduler BPF program (needs root or CAP_BPF+CAP_PERFMON, and BTF in /sys/kernel/btf/vmlinux): %s",
				 strerror(-rc));
		goto fail;
	}
	/* attached once to say now whether it can be; detached till enabled */
	if ((rc = sk_set_active(k, true, err, errlen)) != 0)
		goto fail;
	k->rb = ring_buffer__new(bpf_map__fd(k->skel->maps.events), sk_on_event, k, NULL);
	if (!k->rb)
	{
		rc = -errno;
		snprintf(err, errlen, "cannot open the ring buffer: %s", strerror(errno));
		goto fail;
	}
	*out = k;
	return 0;

fail:
	sk_close(k);
	return rc ? rc : -EINVAL;
}

/*
 * The kernel's own counts per program: runs skipped because the same
 * program was already running on that CPU (a tracepoint hit inside it),
 * and runs when kernel.bpf_stats_enabled is on (else 0: counting costs
 * two clock reads per run, so it stays the administrator's choice).
 */
static void
sk_prog_stats(sk_t *k, pgwt_self_metrics *m)
{
	const struct bpf_program *p[3] = {k->skel->progs.on_switch, k->skel->progs.on_wakeup,
	k->skel->progs.on_wakeup_new};

	for (int i = 0; i < 3; i++)
	{
		struct bpf_prog_info info;
		__u32		len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p[i]), &info, &len) != 0)
			continue;
		m->sched_recursion_misses[i] = info.recursion_misses;
		m->sched_prog_runs[i] = info.run_cnt;
	}
}

static void
sk_metrics(void *h, pgwt_self_metrics *m)
{
	uint64_t	c[PGWT_SC_NCOUNTERS];

	sk_sum(h, c);
	m->sched_on = 1;
	m->sched_blocks_total = c[PGWT_SC_BLOCKS];
	m->sched_unnamed_blocks_total = c[PGWT_SC_UNNAMED_BLOCKS];
	m->sched_unnamed_off_ns = c[PGWT_SC_UNNAMED_OFF_NS];
	m->sched_missed_run_total = c[PGWT_SC_MISSED_RUN];
	m->sched_missed_off_total = c[PGWT_SC_MISSED_OFF];
	m->sched_missed_multi_total = c[PGWT_SC_MISSED_MULTI];
	m->sched_missed_wake_total = c[PGWT_SC_MISSED_WAKE];
	m->sched_wake_not_blocked_total = c[PGWT_SC_WAKE_NOT_BLOCKED];
	sk_prog_stats(h, m);
}

/*
 * The status's run-queue figures are watch_source.c's, counted over every
 * record the views see (the closing record of a backend that exits while
 * queued included); here only the attach state.
 */
static void
sk_metrics_drained(void *h, pgwt_self_metrics *m)
{
	sk_t	   *k = h;

	m->sched_on = 1;
	m->sched_attached = k->attached;
	m->sched_attaches_total = k->attaches;
}

static const pgwt_exact_kernel sk_ops = {
	.tier = "sched", .cpu_event = PGWT_EVENT_CPU_ONCPU, .add = sk_add, .remove = sk_remove, .count = sk_count,
	.target_get = sk_target_get, .target_set = sk_target_set,
	.set_qid_source = sk_set_qid_source, .poll = sk_poll, .counters = sk_counters,
	.self_test = sk_self_test, .close = sk_close, .metrics = sk_metrics,
	.metrics_drained = sk_metrics_drained, .set_active = sk_set_active,
};

pgwt_capture_source *
pgwt_sched_source_create(const pgwt_watch_source_config *cfg, char *err, size_t errlen)
{
	pgwt_exact_kernel k = sk_ops;
	sk_t	   *h;

	if (sk_open(&h, err, errlen) != 0)
		return NULL;
	k.h = h;
	return pgwt_exact_source_create(cfg, &k, err, errlen);
}
