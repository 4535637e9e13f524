/*
 * fidelity.h
 *		How a figure was measured: from exact records, from samples, from
 *		both, or from nothing. Every view row and time-series bucket
 *		carries one; the rule that combines the two sources lives here.
 */
#ifndef PGWT_FIDELITY_H
#define PGWT_FIDELITY_H

#include <stdbool.h>

typedef enum pgwt_fidelity
{
	PGWT_FIDELITY_NONE = 0,		/* no data */
	PGWT_FIDELITY_EXACT,
	PGWT_FIDELITY_SAMPLED,
	PGWT_FIDELITY_MIXED
} pgwt_fidelity;

static inline const char *
pgwt_fidelity_name(pgwt_fidelity f)
{
	switch (f)
	{
		case PGWT_FIDELITY_EXACT:
			return "exact";
		case PGWT_FIDELITY_SAMPLED:
			return "sampled";
		case PGWT_FIDELITY_MIXED:
			return "mixed";
		case PGWT_FIDELITY_NONE:
			break;
	}
	return "none";
}

static inline pgwt_fidelity
pgwt_fidelity_of(bool has_exact, bool has_sampled)
{
	if (has_exact && has_sampled)
		return PGWT_FIDELITY_MIXED;
	if (has_exact)
		return PGWT_FIDELITY_EXACT;
	if (has_sampled)
		return PGWT_FIDELITY_SAMPLED;
	return PGWT_FIDELITY_NONE;
}

#endif							/* PGWT_FIDELITY_H */
