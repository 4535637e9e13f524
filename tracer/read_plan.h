/*
 * read_plan.h
 *		Turn many small remote reads into a few large ones (pure).
 *
 * Every backend's PGPROC and PgBackendStatus live in the one shared memory
 * segment, mapped at the same address in the postmaster and all its
 * children, and both are arrays: the values of all backends sit in a few
 * dense address ranges. Reading those ranges once per tick (from any one
 * process of the cluster) replaces one system call per backend, and each
 * remote page is pinned once instead of once per value.
 */
#ifndef PGWT_TRACER_READ_PLAN_H
#define PGWT_TRACER_READ_PLAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct pgwt_span
{
	uint64_t	addr;
	uint64_t	len;
	uint64_t	buf_off;		/* where the range lands in the local buffer */
} pgwt_span;

typedef struct pgwt_read
{
	uint64_t	addr;
	uint32_t	len;
} pgwt_read;

/*
 * Cover the n reads with at most max_out ranges, merging reads less than
 * max_gap bytes apart (reads[] is sorted in place). Returns the number of
 * ranges, or 0 when more than max_out would be needed (the caller then
 * reads value by value). *total gets the bytes to read.
 */
extern size_t pgwt_plan_ranges(pgwt_read *reads, size_t n, uint64_t max_gap,
							   pgwt_span *out, size_t max_out, uint64_t *total);

/*
 * Where the read [addr, addr + len) lies in the local buffer, or -1 when no
 * range covers it.
 */
extern int64_t pgwt_plan_locate(const pgwt_span *r, size_t nr, uint64_t addr, uint32_t len);

/*
 * The shared mapping of /proc/PID/maps text that holds [lo, hi): its start,
 * end and file offset. 0 on success, -1 when no shared ("s") mapping covers
 * the whole range.
 */
extern int	pgwt_plan_find_shared(const char *maps_text, uint64_t lo, uint64_t hi,
								  uint64_t *start, uint64_t *end, uint64_t *pgoff);

#endif
