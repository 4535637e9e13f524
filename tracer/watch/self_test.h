/*
 * self_test.h
 *		Does the exact tier see? The watchpoint self-test's verdict (pure,
 *		unit-tested) and the figures it is drawn from.
 *
 * The loader (watchpoints.c) arms a write watchpoint on a variable of its
 * own, runs the wait_watch program on it, writes the variable a known
 * number of times and reads back how often the hardware trapped (the perf
 * event's count) and how often the program ran (its self-test counter).
 * Some machines open the breakpoint and never fire it (AMD EPYC guests
 * under some hypervisors): an exact tier built there would report nothing
 * and call it exact. Nothing exact is built unless the verdict is ok.
 */
#ifndef PGWT_TRACER_WATCH_SELF_TEST_H
#define PGWT_TRACER_WATCH_SELF_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PGWT_WATCH_SELF_TEST_WRITES 64

typedef struct pgwt_watch_self_test
{
	bool		ok;
	int			writes;			/* writes made with the watchpoint armed */
	uint64_t	hits;			/* the perf event's count */
	uint64_t	runs;			/* the BPF program's self-test counter */
	uint64_t	elapsed_ns;		/* the whole test, arming included */
	uint64_t	trap_ns;		/* what one trap stalls the writer (median) */
	char		why[256];		/* the verdict in words (a reason when !ok) */
} pgwt_watch_self_test;

/*
 * Fills r->ok and r->why from r->writes, r->hits and r->runs. Every write
 * must trap and run the program: a watchpoint that misses some writes is
 * not exact either.
 */
void		pgwt_watch_self_test_judge(pgwt_watch_self_test *r);

/*
 * What a trap adds to the writing thread: the median of n timed writes with
 * the watchpoint armed less the median of n without, never below 0. The
 * arrays are sorted in place. A trap traps after the write, so the thread
 * stalls inside the state the write began: the program bills that stall to
 * the state before a wait, as the process itself would (see
 * bpf/wait_watch.bpf.c).
 */
uint64_t	pgwt_watch_trap_stall(uint64_t *armed, uint64_t *bare, int n);

#endif							/* PGWT_TRACER_WATCH_SELF_TEST_H */
