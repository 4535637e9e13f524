/*
 * clock.h
 *		The monotonic clock of user space, in nanoseconds: the one every
 *		timer, deadline and record timestamp of the tracer is read from
 *		(BPF's bpf_ktime_get_ns() reads the same clock).
 *
 * Pure and header-only. The extension has its own clock (extension/clock.c:
 * TSC or monotonic, chosen at start).
 */
#ifndef PGWT_COMMON_CLOCK_H
#define PGWT_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
pgwt_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

#endif							/* PGWT_COMMON_CLOCK_H */
