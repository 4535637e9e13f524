/*
 * pgwt_waitloop.c
 *	  Benchmark-only test module: the cost of one reported wait on the
 *	  already-set-latch path of WaitLatch().
 *
 * pgwt_waitloop(iterations) sets the backend's own latch and then calls
 * WaitLatch() on it `iterations` times without resetting it.  Each call
 * reports a wait start and end (through the timed pair on a server with the
 * wait-event hook patch, so the hooks run if any are set) and returns
 * without entering the kernel.  The loop is timed with CLOCK_MONOTONIC and
 * the function returns nanoseconds per iteration.
 *
 * The latch is left set on return: a spurious wakeup is harmless to every
 * latch user, while resetting it could swallow a real one.
 *
 * Not part of the shipped extension; bench/programs/waitpair loads it by
 * absolute path.  It has no shared state.
 */
#include "postgres.h"

#include <time.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/wait_event.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(pgwt_waitloop);

/* Interrupts are checked this often, so a long run can be cancelled. */
#define WAITLOOP_INTERRUPT_MASK ((int64) 0xFFFFF)

static int64
waitloop_elapsed_ns(const struct timespec *from, const struct timespec *to)
{
	return (int64) (to->tv_sec - from->tv_sec) * 1000000000 +
		(to->tv_nsec - from->tv_nsec);
}

Datum
pgwt_waitloop(PG_FUNCTION_ARGS)
{
	int64		iterations = PG_GETARG_INT64(0);
	struct timespec start;
	struct timespec stop;

	if (iterations <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("iterations must be positive, got " INT64_FORMAT,
						iterations)));

	SetLatch(MyLatch);

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int64 i = 0; i < iterations; i++)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, 0,
						 PG_WAIT_EXTENSION);
		if ((i & WAITLOOP_INTERRUPT_MASK) == WAITLOOP_INTERRUPT_MASK)
			CHECK_FOR_INTERRUPTS();
	}
	clock_gettime(CLOCK_MONOTONIC, &stop);

	PG_RETURN_FLOAT8((double) waitloop_elapsed_ns(&start, &stop) /
					 (double) iterations);
}
