/*
 * watch_truth.c
 *		Known-truth test of the watchpoint capture path (BPF program, ring
 *		buffer, record conversion) without a server: a child process plays a
 *		backend, entering a "PgSleep" state for exactly 200 ms ten times, and
 *		every transition must come back with the right events and durations.
 *		Also checks same-value writes are not transitions, and lightweight mode
 *		aggregates the same totals. Prints PASS/FAIL lines; needs root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracer/watch/watchpoints.h"

#define EV_SLEEP	0x09000002u	/* Timeout:PgSleep */
#define EV_READ		0x06000000u	/* Client:ClientRead */
#define ROUNDS		10
#define SLEEP_MS	200

static volatile uint32_t wt_target = EV_READ;

typedef struct wt_result
{
	int			sleeps;
	uint64_t	sleep_ns;
	uint64_t	sleep_max;
	uint64_t	sleep_min;
	int			others;
} wt_result;

static void
wt_sink(const pgwt_record *rec, void *arg)
{
	wt_result  *r = arg;

	if (rec->kind != PGWT_REC_TRANSITION)
		return;
	if (rec->old_event == EV_SLEEP)
	{
		r->sleeps++;
		r->sleep_ns += rec->duration_ns;
		if (rec->duration_ns > r->sleep_max)
			r->sleep_max = rec->duration_ns;
		if (r->sleep_min == 0 || rec->duration_ns < r->sleep_min)
			r->sleep_min = rec->duration_ns;
	}
	else
		r->others++;
}

static void
wt_play(int go_fd)
{
	char		c;
	struct timespec ts = {0, SLEEP_MS * 1000000L};
	struct timespec gap = {0, 20 * 1000000L};

	if (read(go_fd, &c, 1) != 1)
		_exit(1);
	for (int i = 0; i < ROUNDS; i++)
	{
		wt_target = EV_SLEEP;
		nanosleep(&ts, NULL);
		wt_target = EV_READ;
		wt_target = EV_READ;	/* same value: must not be a transition */
		nanosleep(&gap, NULL);
	}
	_exit(0);
}

/* Lightweight mode: keep the aggregate of the sleep event. */
static void
wt_agg(uint32_t ev, const struct pgwt_watch_agg *a, void *arg)
{
	if (ev == EV_SLEEP)
		*(struct pgwt_watch_agg *) arg = *a;
}

static int
wt_run(int lightweight, wt_result *r, uint64_t counters[PGWT_WC_NCOUNTERS],
	   struct pgwt_watch_agg *agg_sleep)
{
	int			go[2];
	pid_t		child;
	pgwt_watch *w;
	char		err[256];
	int			status;

	memset(r, 0, sizeof(*r));
	if (pipe(go))
		return -1;
	child = fork();
	if (child == 0)
	{
		close(go[1]);
		wt_play(go[0]);
	}
	close(go[0]);
	if (pgwt_watch_open(&w, lightweight, err, sizeof(err)) ||
		pgwt_watch_add(w, child, (uint64_t) (uintptr_t) &wt_target, 0, EV_READ, err, sizeof(err)))
	{
		printf("FAIL watch-setup: %s\n", err);
		kill(child, 9);
		return -1;
	}
	if (write(go[1], "g", 1) != 1)
		return -1;
	while (waitpid(child, &status, WNOHANG) == 0)
		pgwt_watch_poll(w, 20, wt_sink, r);
	pgwt_watch_poll(w, 0, wt_sink, r);
	pgwt_watch_counters(w, counters);
	if (lightweight)
		pgwt_watch_aggregates(w, wt_agg, agg_sleep);
	pgwt_watch_close(w);
	close(go[1]);
	return 0;
}

static int	wt_failed;

static void
wt_check(int ok, const char *name, const char *fmt, double a, double b)
{
	if (ok)
		printf("PASS %s\n", name);
	else
	{
		printf("FAIL %s: ", name);
		printf(fmt, a, b);
		printf("\n");
		wt_failed = 1;
	}
}

int
main(void)
{
	wt_result	r;
	uint64_t	c[PGWT_WC_NCOUNTERS];
	struct pgwt_watch_agg agg = {0, 0, 0};
	double		expect = (double) ROUNDS * SLEEP_MS * 1e6;

	if (wt_run(0, &r, c, NULL) != 0)
		return 1;
	wt_check(r.sleeps == ROUNDS, "watch-sleep-count", "got %.0f, want %.0f", r.sleeps, ROUNDS);
	wt_check(r.sleep_ns >= expect && r.sleep_ns < expect * 1.01, "watch-sleep-total-within-1pct",
			 "got %.0f ns, want %.0f ns (+1%%)", (double) r.sleep_ns, expect);
	wt_check(r.sleep_min >= SLEEP_MS * 1e6, "watch-sleep-min", "min %.0f ns < %.0f ns",
			 (double) r.sleep_min, SLEEP_MS * 1e6);
	wt_check(r.others == ROUNDS, "watch-other-transitions", "got %.0f, want %.0f", r.others, ROUNDS);
	wt_check(c[PGWT_WC_SAME_VALUE] == ROUNDS, "watch-same-value-ignored", "same-value %.0f, want %.0f",
			 (double) c[PGWT_WC_SAME_VALUE], ROUNDS);
	wt_check(c[PGWT_WC_DROPS] == 0 && c[PGWT_WC_READ_FAULTS] == 0, "watch-no-drops-or-faults",
			 "drops %.0f faults %.0f", (double) c[PGWT_WC_DROPS], (double) c[PGWT_WC_READ_FAULTS]);

	if (wt_run(1, &r, c, &agg) != 0)
		return 1;
	wt_check(r.sleeps == 0, "watch-light-no-ring-events", "got %.0f events, want %.0f", r.sleeps, 0);
	wt_check(agg.count == ROUNDS, "watch-light-count", "got %.0f, want %.0f", (double) agg.count, ROUNDS);
	wt_check(agg.total_ns >= expect && agg.total_ns < expect * 1.01, "watch-light-total-within-1pct",
			 "got %.0f ns, want %.0f ns", (double) agg.total_ns, expect);
	wt_check(agg.max_ns >= SLEEP_MS * 1e6 && agg.max_ns < SLEEP_MS * 1e6 * 1.05, "watch-light-max",
			 "max %.0f ns, want ~%.0f", (double) agg.max_ns, SLEEP_MS * 1e6);
	return wt_failed;
}
