/*
 * pgwt_clock.h
 *		The coop tier's clock: monotonic nanoseconds, read twice per wait.
 *
 * Two sources (chosen once, in the postmaster, by pgwt_clock_init() in
 * clock.c; children inherit the choice and the calibration):
 *  - the TSC (rdtsc, 11.5 ns per read on the development VM), scaled by a
 *    factor calibrated against CLOCK_MONOTONIC at start-up; used only when
 *    the kernel itself uses the TSC as its clocksource, i.e. the kernel has
 *    found it invariant and synchronised across CPUs;
 *  - otherwise clock_gettime(CLOCK_MONOTONIC) through the vDSO (28 ns).
 * Both give the same time base in every process of one server, which is
 * all the extension needs: durations, and "now" against a wait's start.
 */
#ifndef PGWT_CLOCK_H
#define PGWT_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/*
 * Hidden: the hooks read these on every wait, and a library-local symbol is
 * addressed directly instead of through the GOT (one load instead of two).
 */
#if defined(__GNUC__)
#define PGWT_LOCAL_SYMBOL __attribute__((visibility("hidden")))
#else
#define PGWT_LOCAL_SYMBOL
#endif

extern PGWT_LOCAL_SYMBOL bool pgwt_clock_tsc;
extern PGWT_LOCAL_SYMBOL uint64_t pgwt_tsc_base_tick;
extern PGWT_LOCAL_SYMBOL uint64_t pgwt_tsc_base_ns;
extern PGWT_LOCAL_SYMBOL uint64_t pgwt_tsc_mult;	/* ns per tick, 32.32 fixed point */

extern void pgwt_clock_init(void);
/* CLOCK_MONOTONIC in ns, out of line: keeps the TSC path frameless */
extern PGWT_LOCAL_SYMBOL uint64_t pgwt_clock_monotonic_ns(void);
extern const char *pgwt_clock_name(void);

static inline uint64_t
pgwt_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}

static inline uint64_t
pgwt_clock_ns(void)
{
#if defined(__x86_64__)
	/*
	 * Plain rdtsc, no lfence/rdtscp: those cost 2-4x here (25-60 ns vs 12
	 * on the development VM) to order the read against neighbouring
	 * instructions, a few ns that do not matter for waits whose ends are
	 * far apart.
	 */
	if (pgwt_clock_tsc)
	{
		uint64_t	ticks = __rdtsc() - pgwt_tsc_base_tick;

		return pgwt_tsc_base_ns +
			(uint64_t) (((unsigned __int128) ticks * pgwt_tsc_mult) >> 32);
	}
#endif
	return pgwt_clock_monotonic_ns();
}

#endif							/* PGWT_CLOCK_H */
