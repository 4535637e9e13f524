/*
 * clock_cost.c
 *	  Benchmark-only program: what one clock read costs on this machine, for
 *	  each clock the coop tier could time its waits with.
 *
 * Candidates (x86-64): rdtsc, rdtscp, lfence+rdtsc, and through the vDSO
 * clock_gettime(CLOCK_MONOTONIC) and CLOCK_MONOTONIC_COARSE (a few ms of
 * resolution: listed as the floor of a memory-only read, not usable for
 * waits of microseconds). "tsc_scaled" is what pgwt_clock_ns() does per
 * read: rdtsc, then ticks to ns with one 64x64->128 multiply.
 *
 * Each candidate is read in a loop of N reads whose results feed a running
 * sum (so no read is optimised away), in R rounds; it prints one JSON line
 * per candidate and round:
 *   {"bench":"clock_read","arm":C,"rep":R,"ns_per_read":X,"reads":N}
 * The fastest round is the least disturbed on a shared machine.
 *
 *	  clock_cost [reads-per-round [rounds]]     (defaults 10000000 5)
 *
 * Built by bench/programs/waitpair --clock (cc -O2); no shared state.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

typedef uint64_t (*clock_fn) (void);

static uint64_t clock_mult = UINT64_C(1) << 32;	/* ns per tick, 32.32 */
static uint64_t clock_base;

static uint64_t
ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}

static uint64_t
read_monotonic(void)
{
	return ts_ns(CLOCK_MONOTONIC);
}

static uint64_t
read_monotonic_coarse(void)
{
	return ts_ns(CLOCK_MONOTONIC_COARSE);
}

#if defined(__x86_64__)
static uint64_t
read_rdtsc(void)
{
	return __rdtsc();
}

static uint64_t
read_rdtscp(void)
{
	unsigned int aux;

	return __rdtscp(&aux);
}

static uint64_t
read_lfence_rdtsc(void)
{
	_mm_lfence();
	return __rdtsc();
}

static uint64_t
read_tsc_scaled(void)
{
	uint64_t	ticks = __rdtsc() - clock_base;

	return (uint64_t) (((unsigned __int128) ticks * clock_mult) >> 32);
}
#endif

struct candidate
{
	const char *name;
	clock_fn	fn;
};

static const struct candidate candidates[] = {
#if defined(__x86_64__)
	{"rdtsc", read_rdtsc},
	{"rdtscp", read_rdtscp},
	{"lfence_rdtsc", read_lfence_rdtsc},
	{"tsc_scaled", read_tsc_scaled},
#endif
	{"clock_gettime_monotonic", read_monotonic},
	{"clock_gettime_monotonic_coarse", read_monotonic_coarse},
};

/*
 * ns per read of fn, through a function pointer: the call costs the same
 * for every candidate, and read_nothing measures it (loop_ns_per_read).
 */
static double
time_reads(clock_fn fn, long reads, uint64_t *sink)
{
	clock_fn	volatile call = fn;	/* never inlined: same call for all */
	uint64_t	t0 = ts_ns(CLOCK_MONOTONIC);
	uint64_t	sum = 0;
	long		i;

	for (i = 0; i < reads; i++)
		sum += call();
	*sink += sum;
	return (double) (ts_ns(CLOCK_MONOTONIC) - t0) / (double) reads;
}

/* The same loop with a constant function: the loop's own cost, subtracted. */
static uint64_t
read_nothing(void)
{
	return 1;
}

int
main(int argc, char **argv)
{
	long		reads = argc > 1 ? strtol(argv[1], NULL, 10) : 10000000;
	long		rounds = argc > 2 ? strtol(argv[2], NULL, 10) : 5;
	uint64_t	sink = 0;
	long		r;
	size_t		c;

	if (reads < 1 || rounds < 1 || argc > 3)
	{
		fprintf(stderr, "usage: clock_cost [reads-per-round >= 1 [rounds >= 1]]\n");
		return 2;
	}
#if defined(__x86_64__)
	clock_base = __rdtsc();
#endif
	for (r = 1; r <= rounds; r++)
	{
		double		loop_ns = time_reads(read_nothing, reads, &sink);

		for (c = 0; c < sizeof(candidates) / sizeof(candidates[0]); c++)
		{
			double		ns = time_reads(candidates[c].fn, reads, &sink);

			printf("{\"bench\":\"clock_read\",\"arm\":\"%s\",\"rep\":%ld,"
				   "\"ns_per_read\":%.3f,\"loop_ns_per_read\":%.3f,\"reads\":%ld}\n",
				   candidates[c].name, r, ns, loop_ns, reads);
		}
	}
	/* keeps the sums alive; never true in practice */
	if (sink == 42)
		fprintf(stderr, "clock_cost: unlikely sum\n");
	return 0;
}
