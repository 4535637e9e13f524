/*
 * unit_main.c
 *		Runs every tracer unit test; exit status 1 when any failed.
 */
#include "unit.h"

int			unit_failures = 0;
const char *unit_current = "";
int			unit_current_failed = 0;

int
main(void)
{
	run_elf_tests();
	run_maps_tests();
	run_wait_tests();
	run_tick_tests();
	run_cli_tests();
	run_target_tests();
	run_ring_tests();
	run_plan_tests();
	run_tier_tests();
	run_session_rule_tests();
	run_self_test_tests();
	run_watch_record_tests();
	return unit_failures ? 1 : 0;
}
