/*
 * test_parse_u64.c
 *		Unit tests of the one parser of outside integers (common/
 *		parse_u64.h): digits only, the whole string, overflow and the
 *		maximum refused, base 16 for query ids. Runs without a server under
 *		ASan+UBSan (extension/test.mk, test/suites/44-ext-unit). Prints one
 *		PASS/FAIL line per test; exits non-zero on any failure.
 */
#include <stdio.h>

#include "common/parse_u64.h"

static int	pu_failures = 0;

static void
pu_expect(const char *s, int base, uint64_t max, bool ok, uint64_t want)
{
	uint64_t	v = 12345;
	bool		got = pgwt_parse_u64(s, base, max, &v);

	if (got != ok || (ok && v != want) || (!ok && v != 12345))
	{
		printf("FAIL parse_u64 '%s' base %d: %s %llu\n", s ? s : "(null)", base,
			   got ? "accepted" : "refused", (unsigned long long) v);
		pu_failures++;
	}
}

int
main(void)
{
	pu_expect("0", 10, UINT64_MAX, true, 0);
	pu_expect("18446744073709551615", 10, UINT64_MAX, true, UINT64_MAX);
	pu_expect("18446744073709551616", 10, UINT64_MAX, false, 0);
	pu_expect("99999999999999999999", 10, UINT64_MAX, false, 0);
	pu_expect("4294967295", 10, UINT32_MAX, true, UINT32_MAX);
	pu_expect("4294967296", 10, UINT32_MAX, false, 0);
	/* what strtoull would take */
	pu_expect("-1", 10, UINT64_MAX, false, 0);
	pu_expect("+1", 10, UINT64_MAX, false, 0);
	pu_expect(" 1", 10, UINT64_MAX, false, 0);
	pu_expect("1 ", 10, UINT64_MAX, false, 0);
	pu_expect("0x10", 16, UINT64_MAX, false, 0);
	pu_expect("", 10, UINT64_MAX, false, 0);
	pu_expect(NULL, 10, UINT64_MAX, false, 0);
	pu_expect("12a", 10, UINT64_MAX, false, 0);
	pu_expect("ffffffffffffffff", 16, UINT64_MAX, true, UINT64_MAX);
	pu_expect("FfFf", 16, UINT64_MAX, true, 0xffff);
	pu_expect("10000000000000000", 16, UINT64_MAX, false, 0);
	pu_expect("g", 16, UINT64_MAX, false, 0);
	pu_expect("12", 8, UINT64_MAX, false, 0);
	printf("%s parse_u64\n", pu_failures ? "FAIL" : "PASS");
	return pu_failures ? 1 : 0;
}
