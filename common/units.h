/*
 * units.h
 *		The display precision of every view, in one place: durations in
 *		milliseconds to 3 decimals (1 us), in microseconds to 1 decimal
 *		(100 ns), percentages to 2 decimals. Values are rounded, not
 *		formatted: they stay numbers, so a view can still be sorted and
 *		summed, and a float8 column prints "197.4", not "197.43612894845063".
 *
 * Pure and header-only: the extension, the tracer and the tools include it.
 */
#ifndef PGWT_COMMON_UNITS_H
#define PGWT_COMMON_UNITS_H

#include <math.h>
#include <stdint.h>

/* nanoseconds as milliseconds, rounded to the microsecond */
static inline double
pgwt_ms_of_ns(double ns)
{
	return round(ns / 1e3) / 1e3;
}

/* nanoseconds as microseconds, rounded to 100 ns */
static inline double
pgwt_us_of_ns(double ns)
{
	return round(ns / 1e2) / 10.0;
}

/* nanoseconds as seconds, rounded to the millisecond */
static inline double
pgwt_s_of_ns(double ns)
{
	return round(ns / 1e6) / 1e3;
}

/* part of whole in percent, to 2 decimals; 0 when whole is not positive */
static inline double
pgwt_pct(double part, double whole)
{
	return whole > 0 ? round(1e4 * part / whole) / 100.0 : 0.0;
}

#endif							/* PGWT_COMMON_UNITS_H */
