/*
 * ordinary_pair_probe.c
 *	  One function using the ordinary pgstat_report_wait_start()/end() pair.
 *	  test/suites/15-hook-patch compiles it against the stock and the patched
 *	  server headers and compares the disassembly: the patch must not change
 *	  a single instruction of the ordinary pair.
 */
#include "postgres.h"

#include "utils/wait_event.h"

extern void probe_ordinary_pair(uint32 wait_event_info);

void
probe_ordinary_pair(uint32 wait_event_info)
{
	pgstat_report_wait_start(wait_event_info);
	pgstat_report_wait_end();
}
