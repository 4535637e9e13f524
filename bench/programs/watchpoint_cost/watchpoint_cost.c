/*
 * watchpoint_cost.c
 *		Cost of one watchpoint hit, with and without our BPF program, measured
 *		side by side in one run.
 *
 * A child process writes a 4-byte variable in a tight loop (alternating two
 * values, as wait_event_info alternates); the parent arms, in interleaved
 * order and for several repetitions:
 *   none      no watchpoint: the loop's own cost
 *   bare      a hardware write-watchpoint with no program (the trap alone)
 *   bpf       the watchpoint running wait_watch.bpf.c, ring buffer drained by
 *             polling (the full tier as the daemon runs it)
 *   bpf-light the same program in lightweight mode (per-CPU aggregates)
 *   bpf-noop  an empty program: the kernel's floor for running any program
 * Prints one JSON line per cell: {"bench":"watchpoint_cost","arm":...,
 * "rep":...,"order":...,"writes":...,"ns_per_write":...,"events":...,
 * "drops":...}. Needs root (perf breakpoints + BPF). Where the watchpoint
 * self-test fails (watchpoints that never fire) it measures nothing: it
 * says why on stderr and exits with status 3, rather than record traps that
 * did not happen.
 *
 *   watchpoint_cost [--writes N] [--reps R]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "tracer/watch/watchpoints.h"
#include "noop.skel.h"

static volatile uint32_t wc_target;

static uint64_t
wc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* Child: wait for a go byte, write N times, report elapsed ns. */
static void
wc_child(int go_fd, int done_fd, long writes)
{
	char		c;

	while (read(go_fd, &c, 1) == 1)
	{
		uint64_t	t0 = wc_now_ns(),
					dt;

		for (long i = 0; i < writes; i++)
			wc_target = (i & 1) ? 0x0A000001u : 0x01000007u;
		dt = wc_now_ns() - t0;
		if (write(done_fd, &dt, sizeof(dt)) != sizeof(dt))
			_exit(1);
	}
	_exit(0);
}

static long wc_events;

static void
wc_sink(const pgwt_record *rec, void *arg)
{
	(void) rec;
	(void) arg;
	wc_events++;
}

static uint64_t
wc_run_cell(int go_fd, int done_fd, pgwt_watch *w)
{
	uint64_t	dt;
	char		c = 'g';
	fd_set		rfds;

	if (write(go_fd, &c, 1) != 1)
		return 0;
	for (;;)
	{
		struct timeval tv = {0, 10000};

		FD_ZERO(&rfds);
		FD_SET(done_fd, &rfds);
		if (select(done_fd + 1, &rfds, NULL, NULL, &tv) > 0)
			break;
		if (w)
			pgwt_watch_poll(w, 0, wc_sink, NULL);
	}
	if (read(done_fd, &dt, sizeof(dt)) != sizeof(dt))
		return 0;
	if (w)
		pgwt_watch_poll(w, 0, wc_sink, NULL);
	return dt;
}

int
main(int argc, char **argv)
{
	long		writes = 100000;
	int			reps = 5;
	int			go[2],
				done[2];
	pid_t		child;
	const char *arms[] = {"none", "bare", "bpf", "bpf-light", "bpf-noop"};
	int			narms = 5;
	char		err[256];

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--writes") == 0 && i + 1 < argc)
			writes = atol(argv[++i]);
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: watchpoint_cost [--writes N] [--reps R]\n");
			return 2;
		}
	}
	if (writes < 1000 || reps < 1)
	{
		fprintf(stderr, "watchpoint_cost: --writes must be >= 1000 and --reps >= 1\n");
		return 2;
	}
	{
		pgwt_watch *probe = NULL;
		pgwt_watch_self_test st;

		if (pgwt_watch_open(&probe, true, err, sizeof(err)) != 0)
		{
			fprintf(stderr, "watchpoint_cost: refused: %s\n", err);
			return 3;
		}
		if (pgwt_watch_run_self_test(probe, &st) != 0)
		{
			fprintf(stderr, "watchpoint_cost: refused: %s\n", st.why);
			pgwt_watch_close(probe);
			return 3;
		}
		pgwt_watch_close(probe);
	}
	if (pipe(go) || pipe(done))
		return 1;
	child = fork();
	if (child == 0)
	{
		close(go[1]);
		close(done[0]);
		wc_child(go[0], done[1], writes);
	}
	close(go[0]);
	close(done[1]);

	for (int rep = 1; rep <= reps; rep++)
	{
		for (int k = 0; k < narms; k++)
		{
			/* Rotate the order each repetition: every arm takes every slot. */
			int			a = (k + rep) % narms;
			const char *arm = arms[a];
			pgwt_watch *w = NULL;
			int			bare_fd = -1;
			struct noop_bpf *noop = NULL;
			struct bpf_link *noop_link = NULL;
			uint64_t	counters[PGWT_WC_NCOUNTERS] = {0};
			uint64_t	dt,
						hits;

			wc_events = 0;
			if (strcmp(arm, "bare") == 0)
			{
				bare_fd = pgwt_watch_perf_open(child, (uint64_t) (uintptr_t) &wc_target);
				if (bare_fd < 0)
				{
					fprintf(stderr, "watchpoint_cost: perf_event_open: %s\n", strerror(errno));
					kill(child, SIGKILL);
					return 1;
				}
			}
			else if (strcmp(arm, "bpf-noop") == 0)
			{
				bare_fd = pgwt_watch_perf_open(child, (uint64_t) (uintptr_t) &wc_target);
				noop = noop_bpf__open_and_load();
				if (bare_fd < 0 || !noop ||
					!(noop_link = bpf_program__attach_perf_event(noop->progs.on_write_noop, bare_fd)))
				{
					fprintf(stderr, "watchpoint_cost: cannot attach the no-op program: %s\n",
							strerror(errno));
					kill(child, SIGKILL);
					return 1;
				}
			}
			else if (strncmp(arm, "bpf", 3) == 0)
			{
				if (pgwt_watch_open(&w, strcmp(arm, "bpf-light") == 0, err, sizeof(err)) ||
					pgwt_watch_add(w, child, (uint64_t) (uintptr_t) &wc_target, 0, 0, wc_target,
								   err, sizeof(err)))
				{
					fprintf(stderr, "watchpoint_cost: %s\n", err);
					kill(child, SIGKILL);
					return 1;
				}
			}
			dt = wc_run_cell(go[1], done[0], w);
			if (w)
			{
				pgwt_watch_counters(w, counters);
				pgwt_watch_close(w);
			}
			bpf_link__destroy(noop_link);
			noop_bpf__destroy(noop);
			if (bare_fd >= 0)
				close(bare_fd);
			hits = counters[PGWT_WC_TRANSITIONS] + counters[PGWT_WC_SAME_VALUE] +
				counters[PGWT_WC_DROPS] + counters[PGWT_WC_READ_FAULTS] +
				counters[PGWT_WC_UNKNOWN_PID];
			/* a cell whose traps went missing measures nothing: refuse it */
			if (w && hits < (uint64_t) writes)
			{
				fprintf(stderr, "watchpoint_cost: refused: arm %s saw %llu of %ld writes\n",
						arm, (unsigned long long) hits, writes);
				kill(child, SIGKILL);
				return 3;
			}
			printf("{\"bench\":\"watchpoint_cost\",\"arm\":\"%s\",\"rep\":%d,\"order\":%d,"
				   "\"writes\":%ld,\"ns_per_write\":%.2f,\"hits\":%llu,\"transitions\":%llu,"
				   "\"events\":%ld,\"drops\":%llu}\n",
				   arm, rep, k + 1, writes, (double) dt / (double) writes,
				   (unsigned long long) hits,
				   (unsigned long long) counters[PGWT_WC_TRANSITIONS], wc_events,
				   (unsigned long long) counters[PGWT_WC_DROPS]);
			fflush(stdout);
		}
	}
	close(go[1]);
	waitpid(child, NULL, 0);
	return 0;
}
