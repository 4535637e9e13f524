/*
 * timed_pair_probe.c
 *	  Unit test of the timed wait-report pair declared by a patched server's
 *	  utils/wait_event.h, run without a server: this file supplies the
 *	  variables that wait_event.c would define, installs recording hooks and
 *	  checks the order and arguments of every call.  Built and run (under
 *	  ASan+UBSan) by test/suites/15-hook-patch; prints PASS/FAIL lines.
 *
 * Single-threaded; all state is file-static.
 */
#include "postgres.h"

#include <stdio.h>

#include "utils/wait_event.h"

/* port.h maps printf to libpgport's; this program links libc only. */
#undef printf

/* What the backend's wait_event.c defines. */
static uint32 probe_local_info;
uint32	   *my_wait_event_info = &probe_local_info;
wait_event_hook_type wait_event_begin_hook = NULL;
wait_event_hook_type wait_event_end_hook = NULL;
int			wait_event_hook_depth = 0;

#define PROBE_EVENT_A 0x0A000001U
#define PROBE_EVENT_B 0x09000002U

/* One record per hook call. */
typedef struct ProbeCall
{
	char		kind;			/* 'b' = begin, 'e' = end */
	uint32		arg;			/* argument passed to the hook */
	uint32		stored;			/* *my_wait_event_info during the call */
	int			depth;			/* wait_event_hook_depth during the call */
} ProbeCall;

static ProbeCall probe_calls[16];
static int	probe_ncalls;
static bool probe_nest;			/* hooks report a nested wait themselves */
static int	probe_failures;

static void
probe_record(char kind, uint32 arg)
{
	if (probe_ncalls < (int) lengthof(probe_calls))
	{
		ProbeCall  *c = &probe_calls[probe_ncalls];

		c->kind = kind;
		c->arg = arg;
		c->stored = *my_wait_event_info;
		c->depth = wait_event_hook_depth;
	}
	probe_ncalls++;
	if (probe_nest)
	{
		/* a wait inside a hook must not re-enter the hooks */
		pgstat_report_wait_start_timed(PROBE_EVENT_B);
		pgstat_report_wait_end_timed();
	}
}

static void
probe_begin(uint32 info)
{
	probe_record('b', info);
}

static void
probe_end(uint32 info)
{
	probe_record('e', info);
}

static void
probe_reset(bool hooks)
{
	probe_ncalls = 0;
	probe_nest = false;
	probe_local_info = 0;
	wait_event_hook_depth = 0;
	wait_event_begin_hook = hooks ? probe_begin : NULL;
	wait_event_end_hook = hooks ? probe_end : NULL;
}

static void
probe_check(const char *name, bool ok, const char *why)
{
	if (ok)
		printf("PASS timed-pair-%s\n", name);
	else
	{
		printf("FAIL timed-pair-%s: %s\n", name, why);
		probe_failures++;
	}
}

int
main(void)
{
	/* NULL hooks: the timed pair is a plain store and clear. */
	probe_reset(false);
	pgstat_report_wait_start_timed(PROBE_EVENT_A);
	{
		bool		stored = probe_local_info == PROBE_EVENT_A;

		pgstat_report_wait_end_timed();
		probe_check("null-hooks", stored && probe_local_info == 0 &&
					wait_event_hook_depth == 0,
					"event not stored or not cleared");
	}

	/* Begin: the event is stored first, the hook sees it at depth 1. */
	probe_reset(true);
	pgstat_report_wait_start_timed(PROBE_EVENT_A);
	probe_check("begin-hook",
				probe_ncalls == 1 && probe_calls[0].kind == 'b' &&
				probe_calls[0].arg == PROBE_EVENT_A &&
				probe_calls[0].stored == PROBE_EVENT_A &&
				probe_calls[0].depth == 1 && wait_event_hook_depth == 0 &&
				probe_local_info == PROBE_EVENT_A,
				"begin hook not called once, after the store, at depth 1");

	/* End: the hook sees the current event, which is cleared afterwards. */
	pgstat_report_wait_end_timed();
	probe_check("end-hook",
				probe_ncalls == 2 && probe_calls[1].kind == 'e' &&
				probe_calls[1].arg == PROBE_EVENT_A &&
				probe_calls[1].stored == PROBE_EVENT_A &&
				probe_calls[1].depth == 1 && wait_event_hook_depth == 0 &&
				probe_local_info == 0,
				"end hook not called once with the current event before the clear");

	/* An error-path end with nothing started passes 0. */
	probe_reset(true);
	pgstat_report_wait_end_timed();
	probe_check("end-without-begin",
				probe_ncalls == 1 && probe_calls[0].kind == 'e' &&
				probe_calls[0].arg == 0,
				"end hook not called with 0");

	/* A wait reported inside a hook does not call the hooks again. */
	probe_reset(true);
	probe_nest = true;
	pgstat_report_wait_start_timed(PROBE_EVENT_A);
	pgstat_report_wait_end_timed();
	probe_check("no-reentry",
				probe_ncalls == 2 && probe_calls[0].kind == 'b' &&
				probe_calls[1].kind == 'e' && wait_event_hook_depth == 0,
				"hooks re-entered from inside a hook");

	/* Depth above 0 suppresses the hooks but not the report itself. */
	probe_reset(true);
	wait_event_hook_depth = 1;
	pgstat_report_wait_start_timed(PROBE_EVENT_A);
	{
		bool		stored = probe_local_info == PROBE_EVENT_A;

		pgstat_report_wait_end_timed();
		probe_check("depth-guard",
					probe_ncalls == 0 && stored && probe_local_info == 0 &&
					wait_event_hook_depth == 1,
					"hooks called while depth > 0, or report lost");
	}

	/* The ordinary pair never calls the hooks. */
	probe_reset(true);
	pgstat_report_wait_start(PROBE_EVENT_A);
	{
		bool		stored = probe_local_info == PROBE_EVENT_A;

		pgstat_report_wait_end();
		probe_check("ordinary-pair-no-hooks",
					probe_ncalls == 0 && stored && probe_local_info == 0,
					"ordinary pair called a hook or lost the report");
	}

	return probe_failures == 0 ? 0 : 1;
}
