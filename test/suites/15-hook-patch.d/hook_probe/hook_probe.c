/*
 * hook_probe.c
 *	  Test-only module: checks inside a running patched server that a real
 *	  wait (WaitLatch with a timeout) goes through the wait-event hooks.
 *
 * Loading the library chains counting hooks onto wait_event_begin_hook and
 * wait_event_end_hook (previous begin first, previous end last, as the hook
 * contract asks). hook_probe_wait(ms) zeroes the counters, waits ms
 * milliseconds on the latch under the Extension wait event, and returns
 * "begins ends begin_info end_info depth" for that one wait, as text.
 *
 * All state is backend-local and preallocated; the hooks only count.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/wait_event.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(hook_probe_wait);

static wait_event_hook_type probe_prev_begin = NULL;
static wait_event_hook_type probe_prev_end = NULL;

static uint64 probe_begins;
static uint64 probe_ends;
static uint32 probe_begin_info;
static uint32 probe_end_info;
static int	probe_depth_seen;

static void
probe_wait_begin(uint32 wait_event_info)
{
	if (probe_prev_begin)
		probe_prev_begin(wait_event_info);
	probe_begins++;
	probe_begin_info = wait_event_info;
	probe_depth_seen = wait_event_hook_depth;
}

static void
probe_wait_end(uint32 wait_event_info)
{
	probe_ends++;
	probe_end_info = wait_event_info;
	if (probe_prev_end)
		probe_prev_end(wait_event_info);
}

void
_PG_init(void)
{
	probe_prev_begin = wait_event_begin_hook;
	wait_event_begin_hook = probe_wait_begin;
	probe_prev_end = wait_event_end_hook;
	wait_event_end_hook = probe_wait_end;
}

Datum
hook_probe_wait(PG_FUNCTION_ARGS)
{
	int32		ms = PG_GETARG_INT32(0);
	uint64		begins;
	uint64		ends;

	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();

	probe_begins = probe_ends = 0;
	probe_begin_info = probe_end_info = 0;
	probe_depth_seen = -1;
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					 ms, PG_WAIT_EXTENSION);
	begins = probe_begins;
	ends = probe_ends;

	PG_RETURN_TEXT_P(cstring_to_text(psprintf(UINT64_FORMAT " " UINT64_FORMAT " %u %u %d",
											  begins, ends, probe_begin_info,
											  probe_end_info, probe_depth_seen)));
}
