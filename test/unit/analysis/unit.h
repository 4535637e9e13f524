/*
 * unit.h
 *		A minimal harness for the analysis unit tests: each TEST prints one
 *		"PASS name" or "FAIL name: first failed check" line (the format of
 *		test/run), and the program exits 1 if any test failed.
 */
#ifndef PGWT_TEST_UNIT_H
#define PGWT_TEST_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int	unit_failures;
static char unit_why[512];

#define UNIT_FAIL(...) do { if (!unit_why[0]) snprintf(unit_why, sizeof(unit_why), __VA_ARGS__); } while (0)

#define EXPECT(cond) do { if (!(cond)) UNIT_FAIL("line %d: %s", __LINE__, #cond); } while (0)
#define EXPECT_U64(got, want) do { uint64_t g_ = (uint64_t) (got), w_ = (uint64_t) (want); \
	if (g_ != w_) UNIT_FAIL("line %d: %s = %" PRIu64 ", want %" PRIu64, __LINE__, #got, g_, w_); } while (0)
#define EXPECT_STR(got, want) do { const char *g_ = (got), *w_ = (want); \
	if (!g_ || strcmp(g_, w_) != 0) UNIT_FAIL("line %d: %s = '%s', want '%s'", __LINE__, #got, g_ ? g_ : "(null)", w_); } while (0)
#define EXPECT_DBL(got, want) do { double g_ = (got), w_ = (want); \
	if (g_ - w_ > 1e-9 || w_ - g_ > 1e-9) UNIT_FAIL("line %d: %s = %.12g, want %.12g", __LINE__, #got, g_, w_); } while (0)

#define RUN(fn) do { \
		unit_why[0] = '\0'; \
		fn(); \
		if (unit_why[0]) { printf("FAIL %s: %s\n", #fn, unit_why); unit_failures++; } \
		else { printf("PASS %s\n", #fn); } \
		fflush(stdout); \
	} while (0)

#endif
