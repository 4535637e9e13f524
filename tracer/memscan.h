/*
 * memscan.h
 *		Find a known 64-bit value in a copy of remote memory (pure). Used to
 *		locate st_query_id in PgBackendStatus at run time.
 */
#ifndef PGWT_TRACER_MEMSCAN_H
#define PGWT_TRACER_MEMSCAN_H

#include <stddef.h>
#include <stdint.h>

/* Offsets (8-aligned, +8 <= len) where buf holds v; returns the count. */
extern int	pgwt_find_u64(const uint8_t *buf, size_t len, uint64_t v,
						  int *offsets, int max);

/* Keep in cand[] only offsets also present in found[]; returns new count. */
extern int	pgwt_offsets_intersect(int *cand, int ncand, const int *found, int nfound);

#endif
