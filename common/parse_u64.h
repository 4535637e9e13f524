/*
 * parse_u64.h
 *		The one parser of unsigned integers that come from outside: side-file
 *		fields, API parameters, command-line values, blocker observations.
 *		Digits only (no sign, no space, no 0x prefix: strtoull would take
 *		" +12" and wrap "-1"), the whole string, checked against overflow
 *		and a maximum. Pure and header-only.
 */
#ifndef PGWT_COMMON_PARSE_U64_H
#define PGWT_COMMON_PARSE_U64_H

#include <stdbool.h>
#include <stdint.h>

/* s in base 10 or 16 (either case), at most max; false leaves *out alone. */
static inline bool
pgwt_parse_u64(const char *s, int base, uint64_t max, uint64_t *out)
{
	uint64_t	v = 0;

	if (!s || !*s || (base != 10 && base != 16))
		return false;
	for (; *s; s++)
	{
		unsigned	d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned) (*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned) (*s - 'a') + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned) (*s - 'A') + 10;
		else
			return false;
		if (v > (UINT64_MAX - d) / (unsigned) base)
			return false;
		v = v * (unsigned) base + d;
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

#endif							/* PGWT_COMMON_PARSE_U64_H */
