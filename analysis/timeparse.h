/*
 * timeparse.h
 *		Parsing of the time arguments users type (--from, --to, --window).
 *
 *	absolute: "2026-02-25T14:30:00" or "2026-02-25 14:30:00", optional
 *	          fraction ".123", optional zone "Z" or "+02:00"; without a zone
 *	          the local time zone applies (TZ)
 *	relative: "1h", "30m", "90s", "2h30m", "1d", "500ms": that long before now
 *	special:  "now"
 *
 * Results are CLOCK_REALTIME nanoseconds; errors are one line, no I/O.
 */
#ifndef PGWT_ANALYSIS_TIMEPARSE_H
#define PGWT_ANALYSIS_TIMEPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A duration "2h30m" in ns. */
bool		pgwt_parse_duration(const char *text, uint64_t *ns, char *err, size_t errlen);

/* A point in time; now_ns is the current CLOCK_REALTIME. */
bool		pgwt_parse_time(const char *text, int64_t now_ns, int64_t *out_ns,
							char *err, size_t errlen);

/* "5s,1m,5m": up to max durations, strictly increasing. Returns the count or -1. */
int			pgwt_parse_duration_list(const char *text, uint64_t *ns, int max,
									 char *err, size_t errlen);

#endif							/* PGWT_ANALYSIS_TIMEPARSE_H */
