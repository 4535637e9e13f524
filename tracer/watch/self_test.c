/*
 * self_test.c
 *		The watchpoint self-test's verdict (see self_test.h). Pure: the
 *		figures come from watchpoints.c, the words go to the daemon's status,
 *		its refusals and the test suites' skip lines.
 */
#include "self_test.h"

#include <stdio.h>
#include <stdlib.h>

static int
self_test_cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static uint64_t
self_test_median(uint64_t *v, int n)
{
	qsort(v, (size_t) n, sizeof(*v), self_test_cmp_u64);
	return v[n / 2];
}

uint64_t
pgwt_watch_trap_stall(uint64_t *armed, uint64_t *bare, int n)
{
	uint64_t	a,
				b;

	if (n <= 0)
		return 0;
	a = self_test_median(armed, n);
	b = self_test_median(bare, n);
	return a > b ? a - b : 0;
}

void
pgwt_watch_self_test_judge(pgwt_watch_self_test *r)
{
	unsigned long long w = (unsigned long long) (r->writes > 0 ? r->writes : 0);
	unsigned long long h = (unsigned long long) r->hits;
	unsigned long long n = (unsigned long long) r->runs;

	r->ok = false;
	if (w == 0)
		snprintf(r->why, sizeof(r->why), "the watchpoint self-test made no writes");
	else if (n >= w)
	{
		r->ok = true;
		snprintf(r->why, sizeof(r->why),
				 "hardware watchpoints fire: %llu of %llu test writes seen by the BPF program",
				 n, w);
	}
	else if (h == 0 && n == 0)
		snprintf(r->why, sizeof(r->why),
				 "hardware watchpoints do not fire here: 0 of %llu test writes trapped", w);
	else if (n == 0)
		snprintf(r->why, sizeof(r->why),
				 "watchpoints fire (%llu of %llu test writes) but never run the BPF program",
				 h, w);
	else
		snprintf(r->why, sizeof(r->why),
				 "hardware watchpoints miss writes here: %llu of %llu test writes seen", n, w);
}
