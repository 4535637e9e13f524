/*
 * self_test.c
 *		The watchpoint self-test's verdict (see self_test.h). Pure: the
 *		figures come from watchpoints.c, the words go to the daemon's status,
 *		its refusals and the test suites' skip lines.
 */
#include "self_test.h"

#include <stdio.h>

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
