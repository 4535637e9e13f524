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
	char		why[256];		/* the verdict in words (a reason when !ok) */
} pgwt_watch_self_test;

/*
 * Fills r->ok and r->why from r->writes, r->hits and r->runs. Every write
 * must trap and run the program: a watchpoint that misses some writes is
 * not exact either.
 */
void		pgwt_watch_self_test_judge(pgwt_watch_self_test *r);

#endif							/* PGWT_TRACER_WATCH_SELF_TEST_H */
