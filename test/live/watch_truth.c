/*
 * watch_truth.c
 *		Known-truth test of the watchpoint capture path (BPF program, ring
 *		buffer, record conversion) without a server: a child process plays a
 *		backend, entering a "PgSleep" state for exactly 200 ms ten times, and
 *		every transition must come back with the right events and durations.
 *		Also checks same-value writes are not transitions, and lightweight mode
 *		aggregates the same totals. Prints PASS/FAIL lines; needs root.
 *
 * First, the loader's self-test is held against an independent probe: a
 * bare perf watchpoint (no BPF) on another process writing 1,000 times.
 * Both must agree. Where they agree the hardware never fires, the
 * known-truth checks cannot run: each is reported SKIP with the reason.
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

#define SHORT_WAITS 200

/*
 * Waits of no length: the trap that opens each one stalls the child inside
 * it, so the stall is all a watchpoint sees of them unless the program takes
 * the wait's start past it (trap_stall_ns, set by the self-test).
 */
static void
wt_play_short(int go_fd)
{
	char		c;
	struct timespec gap = {0, 1000000L};

	if (read(go_fd, &c, 1) != 1)
		_exit(1);
	for (int i = 0; i < SHORT_WAITS; i++)
	{
		wt_target = EV_SLEEP;
		wt_target = 0;			/* on CPU: no wait, no stall taken out */
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

/*
 * One child under a fresh loader: play(go) as the backend. With stall_test,
 * the loader's self-test runs first, which sets the trap stall the program
 * removes from each wait.
 */
static int
wt_run(int lightweight, wt_result *r, uint64_t counters[PGWT_WC_NCOUNTERS],
	   struct pgwt_watch_agg *agg_sleep, void (*play) (int), bool stall_test,
	   pgwt_watch_self_test *st)
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
		play(go[0]);
	}
	close(go[0]);
	if (pgwt_watch_open(&w, lightweight, err, sizeof(err)) ||
		(stall_test && pgwt_watch_run_self_test(w, st) != 0 && snprintf(err, sizeof(err), "self-test: %s", st->why)) ||
		pgwt_watch_add(w, child, (uint64_t) (uintptr_t) &wt_target, 0, 0, EV_READ, err, sizeof(err)))
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

#define BARE_WRITES 1000

/*
 * Traps of a bare watchpoint on a child writing BARE_WRITES times: the
 * perf event's own count, no BPF involved. -1 when it cannot be opened.
 */
static long
wt_bare_probe(void)
{
	int			go[2],
				done[2];
	pid_t		child;
	char		c = 'g';
	uint64_t	count = 0;
	int			fd;

	if (pipe(go) || pipe(done))
		return -1;
	child = fork();
	if (child == 0)
	{
		close(go[1]);
		close(done[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (int i = 0; i < BARE_WRITES; i++)
			wt_target = (i & 1) ? EV_SLEEP : EV_READ;
		if (write(done[1], "d", 1) != 1)
			_exit(1);
		(void) read(go[0], &c, 1);	/* exit only once counted */
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	fd = pgwt_watch_perf_open(child, (uint64_t) (uintptr_t) &wt_target);
	if (fd >= 0 && write(go[1], &c, 1) == 1 && read(done[0], &c, 1) == 1 &&
		read(fd, &count, sizeof(count)) != (ssize_t) sizeof(count))
		count = 0;
	close(go[1]);
	close(done[0]);
	waitpid(child, NULL, 0);
	if (fd < 0)
		return -1;
	close(fd);
	return (long) count;
}

static const char *const wt_truth_checks[] = {
	"watch-sleep-count", "watch-sleep-total-within-1pct", "watch-sleep-min",
	"watch-other-transitions", "watch-same-value-ignored", "watch-no-drops-or-faults",
	"watch-light-no-ring-events", "watch-light-count", "watch-light-total-within-1pct",
	"watch-light-max", "watch-stall-short-waits-seen", "watch-stall-removed-from-waits"
};

int
main(void)
{
	wt_result	r;
	uint64_t	c[PGWT_WC_NCOUNTERS];
	struct pgwt_watch_agg agg = {0, 0, 0};
	double		expect = (double) ROUNDS * SLEEP_MS * 1e6;
	pgwt_watch *probe = NULL;
	pgwt_watch_self_test st;
	char		err[256];
	long		bare;

	if (pgwt_watch_open(&probe, true, err, sizeof(err)) != 0)
	{
		printf("FAIL watch-open: %s\n", err);
		return 1;
	}
	(void) pgwt_watch_run_self_test(probe, &st);
	pgwt_watch_close(probe);
	bare = wt_bare_probe();
	if ((st.ok && bare == BARE_WRITES) || (!st.ok && bare == 0 && st.runs == 0))
		printf("PASS watch-self-test-agrees (self-test: %s; bare probe: %ld of %d writes trapped)\n",
			   st.why, bare, BARE_WRITES);
	else
	{
		printf("FAIL watch-self-test-agrees: self-test %s (%s), bare probe %ld of %d writes\n",
			   st.ok ? "passed" : "failed", st.why, bare, BARE_WRITES);
		return 1;
	}
	if (!st.ok)
	{
		for (size_t i = 0; i < sizeof(wt_truth_checks) / sizeof(wt_truth_checks[0]); i++)
			printf("SKIP %s: %s\n", wt_truth_checks[i], st.why);
		return 0;
	}

	if (wt_run(0, &r, c, NULL, wt_play, false, NULL) != 0)
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

	if (wt_run(1, &r, c, &agg, wt_play, false, NULL) != 0)
		return 1;
	wt_check(r.sleeps == 0, "watch-light-no-ring-events", "got %.0f events, want %.0f", r.sleeps, 0);
	wt_check(agg.count == ROUNDS, "watch-light-count", "got %.0f, want %.0f", (double) agg.count, ROUNDS);
	wt_check(agg.total_ns >= expect && agg.total_ns < expect * 1.01, "watch-light-total-within-1pct",
			 "got %.0f ns, want %.0f ns", (double) agg.total_ns, expect);
	wt_check(agg.max_ns >= SLEEP_MS * 1e6 && agg.max_ns < SLEEP_MS * 1e6 * 1.05, "watch-light-max",
			 "max %.0f ns, want ~%.0f", (double) agg.max_ns, SLEEP_MS * 1e6);

	/*
	 * The trap's stall: waits of no length read as the stall without the
	 * self-test's figure, and with it at least half of that figure less
	 * (a wait is never taken below 0, so not always all of it).
	 */
	{
		wt_result	raw,
					fixed;
		pgwt_watch_self_test st2;
		double		mraw,
					mfixed;

		if (wt_run(0, &raw, c, NULL, wt_play_short, false, NULL) != 0 ||
			wt_run(0, &fixed, c, NULL, wt_play_short, true, &st2) != 0)
			return 1;
		mraw = raw.sleeps ? (double) raw.sleep_ns / raw.sleeps : 0;
		mfixed = fixed.sleeps ? (double) fixed.sleep_ns / fixed.sleeps : 0;
		wt_check(raw.sleeps == SHORT_WAITS && fixed.sleeps == SHORT_WAITS, "watch-stall-short-waits-seen",
				 "%.0f and %.0f short waits, want both 200", raw.sleeps, fixed.sleeps);
		printf("# short waits: %.0f ns each without the stall's removal, %.0f ns with it; self-test stall %.0f ns\n",
			   mraw, mfixed, (double) st2.trap_ns);
		wt_check(st2.trap_ns > 0 && mfixed <= mraw - 0.5 * (double) st2.trap_ns, "watch-stall-removed-from-waits",
				 "mean %.0f ns with the removal, %.0f ns without (want at least half the stall less)", mfixed, mraw);
	}
	return wt_failed;
}
