/*
 * clock.c
 *		Chooses and calibrates the coop tier's clock (see pgwt_clock.h).
 *
 * Runs once in the postmaster (from _PG_init); the chosen source and the
 * calibration are plain statics that every forked child inherits, so all
 * processes of one server read the same time base. No shared state.
 */
#include "postgres.h"

#include <stdio.h>
#include <string.h>

#include "miscadmin.h"

#include "extension/pgwt_clock.h"

PGWT_LOCAL_SYMBOL bool pgwt_clock_tsc = false;
PGWT_LOCAL_SYMBOL uint64_t pgwt_tsc_base_tick = 0;
PGWT_LOCAL_SYMBOL uint64_t pgwt_tsc_base_ns = 0;
PGWT_LOCAL_SYMBOL uint64_t pgwt_tsc_mult = 0;

#define PGWT_CLOCKSOURCE_FILE "/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define PGWT_CALIBRATION_NS (20 * 1000 * 1000)

#if defined(__x86_64__)
/* Does the kernel keep time with the TSC (so it vouches for it)? */
static bool
pgwt_kernel_uses_tsc(void)
{
	char		buf[32] = {0};
	FILE	   *f = fopen(PGWT_CLOCKSOURCE_FILE, "r");
	bool		tsc;

	if (f == NULL)
		return false;
	tsc = fgets(buf, sizeof(buf), f) != NULL && strncmp(buf, "tsc", 3) == 0 &&
		(buf[3] == '\n' || buf[3] == '\0');
	fclose(f);
	return tsc;
}

/* A (monotonic ns, tick) pair taken as close together as we can. */
static void
pgwt_clock_pair(uint64_t *ns, uint64_t *tick)
{
	uint64_t	best = UINT64_MAX;
	int			i;

	for (i = 0; i < 5; i++)
	{
		uint64_t	a = pgwt_monotonic_ns();
		uint64_t	t = __rdtsc();
		uint64_t	b = pgwt_monotonic_ns();

		if (b - a < best)
		{
			best = b - a;
			*ns = a + (b - a) / 2;
			*tick = t;
		}
	}
}
#endif

void
pgwt_clock_init(void)
{
#if defined(__x86_64__)
	uint64_t	ns0,
				ns1,
				t0,
				t1;

	if (!pgwt_kernel_uses_tsc())
		return;
	pgwt_clock_pair(&ns0, &t0);
	pg_usleep(PGWT_CALIBRATION_NS / 1000);
	pgwt_clock_pair(&ns1, &t1);
	if (t1 <= t0 || ns1 <= ns0)
		return;
	pgwt_tsc_mult = (uint64_t) ((((unsigned __int128) (ns1 - ns0)) << 32) / (t1 - t0));
	pgwt_tsc_base_tick = t1;
	pgwt_tsc_base_ns = ns1;
	pgwt_clock_tsc = pgwt_tsc_mult > 0;
#endif
}

uint64_t
pgwt_clock_monotonic_ns(void)
{
	return pgwt_monotonic_ns();
}

const char *
pgwt_clock_name(void)
{
	return pgwt_clock_tsc ? "tsc" : "monotonic";
}
