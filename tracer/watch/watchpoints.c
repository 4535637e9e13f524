/*
 * watchpoints.c
 *		Loader and consumer of the wait_watch BPF program (libbpf skeleton):
 *		open -> load -> per-backend perf watchpoint + attach -> poll -> destroy.
 *
 * Not thread-safe: one daemon thread owns a pgwt_watch. Backends are kept in
 * a small open-addressed table (pid -> perf fd + bpf link + the pid's
 * query-id carry, applied as its events are drained).
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/clock.h"
#include "watch_record.h"
#include "watchpoints.h"
#include "wait_watch.skel.h"

#define WATCH_SLOTS 16384		/* the BPF maps' max_entries */

typedef struct watch_slot
{
	pid_t		pid;			/* 0 = free */
	int			perf_fd;
	struct bpf_link *link;
	PgwtQidCarry carry;
} watch_slot;

struct pgwt_watch
{
	struct wait_watch_bpf *skel;
	struct ring_buffer *rb;
	bool		lightweight;
	int			nwatched;
	int			ncpus;
	pgwt_watch_sink sink;		/* valid only inside pgwt_watch_poll */
	void	   *sink_arg;
	watch_slot	slots[WATCH_SLOTS];
};

static int
watch_libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

int
pgwt_watch_perf_open(pid_t pid, uint64_t addr)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.size = sizeof(attr);
	attr.bp_type = HW_BREAKPOINT_W;
	attr.bp_addr = addr;
	attr.bp_len = HW_BREAKPOINT_LEN_4;
	attr.sample_period = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return (int) syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static watch_slot *
watch_find(pgwt_watch *w, pid_t pid, bool for_insert)
{
	uint32_t	h = ((uint32_t) pid * 2654435761u) % WATCH_SLOTS;

	for (int i = 0; i < WATCH_SLOTS; i++)
	{
		watch_slot *s = &w->slots[(h + i) % WATCH_SLOTS];

		if (s->pid == pid)
			return s;
		if (s->pid == 0)
			return for_insert ? s : NULL;
	}
	return NULL;
}

static int
watch_on_event(void *ctx, void *data, size_t size)
{
	pgwt_watch *w = ctx;
	const struct pgwt_watch_event *e = data;
	watch_slot *s;
	pgwt_record rec;

	if (size < sizeof(struct pgwt_watch_event))
		return 0;
	s = watch_find(w, (pid_t) e->pid, false);
	pgwt_watch_event_to_record(e, s && s->pid == (pid_t) e->pid ? &s->carry : NULL, &rec);
	w->sink(&rec, w->sink_arg);
	return 0;
}

int
pgwt_watch_open(pgwt_watch **out, bool lightweight, char *err, size_t errlen)
{
	pgwt_watch *w;
	int			rc;

	*out = NULL;
	libbpf_set_print(watch_libbpf_quiet);
	w = calloc(1, sizeof(*w));
	if (!w)
	{
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->lightweight = lightweight;
	w->ncpus = libbpf_num_possible_cpus();
	w->skel = wait_watch_bpf__open();
	if (!w->skel)
	{
		snprintf(err, errlen, "cannot open the BPF program: %s", strerror(errno));
		free(w);
		return -errno;
	}
	w->skel->rodata->lightweight = lightweight;
	rc = wait_watch_bpf__load(w->skel);
	if (rc)
	{
		snprintf(err, errlen, "cannot load the BPF program (need root or CAP_BPF+CAP_PERFMON): %s",
				 strerror(-rc));
		goto cleanup;
	}
	if (!lightweight)
	{
		w->rb = ring_buffer__new(bpf_map__fd(w->skel->maps.events), watch_on_event, w, NULL);
		if (!w->rb)
		{
			rc = -errno;
			snprintf(err, errlen, "cannot open the ring buffer: %s", strerror(errno));
			goto cleanup;
		}
	}
	*out = w;
	return 0;

cleanup:
	wait_watch_bpf__destroy(w->skel);
	free(w);
	return rc ? rc : -EINVAL;
}

int
pgwt_watch_add(pgwt_watch *w, pid_t pid, uint64_t wait_addr, uint64_t query_id_addr,
			   uint64_t xact_addr, uint32_t current_event, char *err, size_t errlen)
{
	struct pgwt_watch_target target;
	struct timespec now;
	watch_slot *s;
	__u32		key = (__u32) pid;
	int			fd;

	s = watch_find(w, pid, true);
	if (!s)
	{
		snprintf(err, errlen, "too many watched backends (%d)", WATCH_SLOTS);
		return -ENOSPC;
	}
	if (s->pid == pid)
		return 0;				/* already watched */

	/* Target and initial state first, so the first trap finds them. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	memset(&target, 0, sizeof(target));
	target.wait_addr = wait_addr;
	target.query_id_addr = query_id_addr;
	target.xact_addr = query_id_addr ? xact_addr : 0;
	target.since_ns = (uint64_t) now.tv_sec * 1000000000u + (uint64_t) now.tv_nsec;
	target.event = current_event;
	if (bpf_map_update_elem(bpf_map__fd(w->skel->maps.targets), &key, &target, BPF_ANY))
	{
		snprintf(err, errlen, "cannot register pid %d: %s", (int) pid, strerror(errno));
		return -errno;
	}

	fd = pgwt_watch_perf_open(pid, wait_addr);
	if (fd < 0)
	{
		int			e = errno;

		snprintf(err, errlen, "cannot set a watchpoint in pid %d: %s%s", (int) pid, strerror(e),
				 e == ENOSPC ? " (all hardware debug registers are in use)" : "");
		bpf_map_delete_elem(bpf_map__fd(w->skel->maps.targets), &key);
		return -e;
	}
	s->link = bpf_program__attach_perf_event(w->skel->progs.on_wait_write, fd);
	if (!s->link)
	{
		int			e = errno;

		snprintf(err, errlen, "cannot attach the program to pid %d: %s", (int) pid, strerror(e));
		close(fd);
		bpf_map_delete_elem(bpf_map__fd(w->skel->maps.targets), &key);
		return -e;
	}
	s->pid = pid;
	memset(&s->carry, 0, sizeof(s->carry));
	s->perf_fd = fd;
	w->nwatched++;
	return 0;
}

int
pgwt_watch_remove(pgwt_watch *w, pid_t pid)
{
	watch_slot *s = watch_find(w, pid, false);
	__u32		key = (__u32) pid;
	uint32_t	i,
				j;

	if (!s)
		return -ENOENT;
	bpf_link__destroy(s->link);
	close(s->perf_fd);
	bpf_map_delete_elem(bpf_map__fd(w->skel->maps.targets), &key);
	w->nwatched--;

	/* Backward-shift deletion keeps the linear probe chains intact. */
	i = (uint32_t) (s - w->slots);
	memset(s, 0, sizeof(*s));
	for (j = (i + 1) % WATCH_SLOTS; w->slots[j].pid != 0; j = (j + 1) % WATCH_SLOTS)
	{
		uint32_t	home = ((uint32_t) w->slots[j].pid * 2654435761u) % WATCH_SLOTS;

		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j)))
		{
			w->slots[i] = w->slots[j];
			memset(&w->slots[j], 0, sizeof(w->slots[j]));
			i = j;
		}
	}
	return 0;
}

void
pgwt_watch_set_qid_source(pgwt_watch *w, uint64_t be_var, int qid_offset, int xact_offset)
{
	/* .bss and .data are memory-mapped: plain stores, seen by the next trap */
	w->skel->bss->be_var_addr = be_var;
	w->skel->data->xact_offset = xact_offset;
	w->skel->data->qid_offset = qid_offset;
}

int
pgwt_watch_target_get(pgwt_watch *w, pid_t pid, struct pgwt_watch_target *out)
{
	__u32		key = (__u32) pid;

	if (bpf_map_lookup_elem(bpf_map__fd(w->skel->maps.targets), &key, out) != 0)
		return -errno;
	return 0;
}

int
pgwt_watch_target_set(pgwt_watch *w, pid_t pid, const struct pgwt_watch_target *t)
{
	__u32		key = (__u32) pid;

	if (bpf_map_update_elem(bpf_map__fd(w->skel->maps.targets), &key, t, BPF_EXIST) != 0)
		return -errno;
	return 0;
}

int
pgwt_watch_count(const pgwt_watch *w)
{
	return w->nwatched;
}

int
pgwt_watch_poll(pgwt_watch *w, int timeout_ms, pgwt_watch_sink sink, void *arg)
{
	int			n;

	if (!w->rb)
	{
		if (timeout_ms > 0)
			usleep((useconds_t) timeout_ms * 1000);
		return 0;
	}
	w->sink = sink;
	w->sink_arg = arg;
	/* Producers never wake us (BPF_RB_NO_WAKEUP): consume, then sleep. */
	n = ring_buffer__consume(w->rb);
	if (n == 0 && timeout_ms > 0)
	{
		usleep((useconds_t) timeout_ms * 1000);
		n = ring_buffer__consume(w->rb);
	}
	w->sink = NULL;
	return n;
}

void
pgwt_watch_counters(pgwt_watch *w, uint64_t out[PGWT_WC_NCOUNTERS])
{
	uint64_t   *percpu = calloc((size_t) w->ncpus, sizeof(uint64_t));

	for (__u32 k = 0; k < PGWT_WC_NCOUNTERS; k++)
	{
		out[k] = 0;
		if (percpu && bpf_map_lookup_elem(bpf_map__fd(w->skel->maps.counters), &k, percpu) == 0)
			for (int c = 0; c < w->ncpus; c++)
				out[k] += percpu[c];
	}
	free(percpu);
}

int
pgwt_watch_aggregates(pgwt_watch *w,
					  void (*fn) (uint32_t event, const struct pgwt_watch_agg *agg, void *arg),
					  void *arg)
{
	int			fd = bpf_map__fd(w->skel->maps.aggregates);
	struct pgwt_watch_agg *percpu = calloc((size_t) w->ncpus, sizeof(*percpu));
	__u32		key,
				next;
	__u32	   *prev = NULL;
	int			n = 0;

	if (!percpu)
		return -ENOMEM;
	while (bpf_map_get_next_key(fd, prev, &next) == 0)
	{
		struct pgwt_watch_agg sum = {0, 0, 0};

		if (bpf_map_lookup_elem(fd, &next, percpu) == 0)
		{
			for (int c = 0; c < w->ncpus; c++)
			{
				sum.count += percpu[c].count;
				sum.total_ns += percpu[c].total_ns;
				if (percpu[c].max_ns > sum.max_ns)
					sum.max_ns = percpu[c].max_ns;
			}
			fn(next, &sum, arg);
			n++;
		}
		key = next;
		prev = &key;
	}
	free(percpu);
	return n;
}

/* The self-test's target: written only by pgwt_watch_run_self_test. */
static volatile uint32_t watch_self_test_var __attribute__((aligned(8)));

int
pgwt_watch_run_self_test(pgwt_watch *w, pgwt_watch_self_test *r)
{
	uint64_t	before[PGWT_WC_NCOUNTERS],
				after[PGWT_WC_NCOUNTERS];
	uint64_t	t0 = pgwt_mono_ns();
	const char *force = getenv("PGWT_WATCH_SELF_TEST");
	struct bpf_link *link;
	uint64_t	hits = 0;
	uint64_t	armed[PGWT_WATCH_SELF_TEST_WRITES],
				bare[PGWT_WATCH_SELF_TEST_WRITES];
	int			fd;

	memset(r, 0, sizeof(*r));
	if (force && strcmp(force, "fail") == 0)
	{
		snprintf(r->why, sizeof(r->why),
				 "the watchpoint self-test was made to fail (PGWT_WATCH_SELF_TEST=fail)");
		return -1;
	}
	/* the same timed writes unwatched: the baseline of the trap's stall */
	for (int i = 0; i < PGWT_WATCH_SELF_TEST_WRITES; i++)
	{
		uint64_t	a = pgwt_mono_ns();

		watch_self_test_var = 0;
		bare[i] = pgwt_mono_ns() - a;
	}
	/* this thread, any CPU: the writes below are ours */
	fd = pgwt_watch_perf_open(0, (uint64_t) (uintptr_t) &watch_self_test_var);
	if (fd < 0)
	{
		int			e = errno;

		snprintf(r->why, sizeof(r->why), "cannot open a hardware write watchpoint: %s%s",
				 strerror(e), e == ENOSPC ? " (every debug register is in use)" :
				 e == ENOENT || e == EOPNOTSUPP ? " (no hardware breakpoints here)" : "");
		return -1;
	}
	w->skel->bss->self_test_tgid = (__u32) getpid();
	pgwt_watch_counters(w, before);
	link = bpf_program__attach_perf_event(w->skel->progs.on_wait_write, fd);
	if (!link)
	{
		snprintf(r->why, sizeof(r->why),
				 "cannot run the BPF program on a watchpoint: %s", strerror(errno));
		w->skel->bss->self_test_tgid = 0;
		close(fd);
		return -1;
	}
	r->writes = PGWT_WATCH_SELF_TEST_WRITES;
	for (int i = 0; i < r->writes; i++)
	{
		uint64_t	a = pgwt_mono_ns();

		watch_self_test_var = (uint32_t) i + 1;	/* every write a new value */
		armed[i] = pgwt_mono_ns() - a;
	}
	if (read(fd, &hits, sizeof(hits)) != (ssize_t) sizeof(hits))
		hits = 0;
	bpf_link__destroy(link);
	close(fd);
	pgwt_watch_counters(w, after);
	w->skel->bss->self_test_tgid = 0;
	r->hits = hits;
	r->runs = after[PGWT_WC_SELF_TEST] - before[PGWT_WC_SELF_TEST];
	r->elapsed_ns = pgwt_mono_ns() - t0;
	pgwt_watch_self_test_judge(r);
	if (r->ok)
	{
		/* the program takes each wait's start past its trap's stall */
		size_t		n = strlen(r->why);

		r->trap_ns = pgwt_watch_trap_stall(armed, bare, r->writes);
		w->skel->bss->trap_stall_ns = r->trap_ns;
		snprintf(r->why + n, sizeof(r->why) - n, "; a trap stalls the writer %.1f us (left out of each wait)",
				 (double) r->trap_ns / 1e3);
	}
	return r->ok ? 0 : -1;
}

void
pgwt_watch_close(pgwt_watch *w)
{
	if (!w)
		return;
	for (int i = 0; i < WATCH_SLOTS; i++)
		if (w->slots[i].pid)
		{
			bpf_link__destroy(w->slots[i].link);
			close(w->slots[i].perf_fd);
		}
	ring_buffer__free(w->rb);
	wait_watch_bpf__destroy(w->skel);
	free(w);
}
