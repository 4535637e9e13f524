/*
 * unit.h
 *		Minimal test reporting for the tracer unit tests: each TEST prints
 *		one "PASS name" or "FAIL name: why" line, as test/run expects.
 */
#ifndef PGWT_TRACER_UNIT_H
#define PGWT_TRACER_UNIT_H

#include <stdio.h>

extern int	unit_failures;
extern const char *unit_current;
extern int	unit_current_failed;

#define UNIT_CHECK(cond) do { \
	if (!(cond) && !unit_current_failed) { \
		printf("FAIL %s: %s:%d: %s\n", unit_current, __FILE__, __LINE__, #cond); \
		unit_current_failed = 1; unit_failures++; \
	} } while (0)

#define UNIT_RUN(fn) do { \
	unit_current = #fn; unit_current_failed = 0; fn(); \
	if (!unit_current_failed) printf("PASS %s\n", #fn); } while (0)

void		run_elf_tests(void);
void		run_maps_tests(void);
void		run_wait_tests(void);
void		run_tick_tests(void);
void		run_cli_tests(void);
void		run_target_tests(void);
void		run_ring_tests(void);
void		run_plan_tests(void);
void		run_tier_tests(void);
void		run_session_rule_tests(void);
void		run_self_test_tests(void);
void		run_watch_record_tests(void);

#endif
