/*
 * proc_maps.h
 *		Parse /proc/PID/maps text and turn ELF symbol values into runtime
 *		addresses. Pure functions: the caller reads the file.
 */
#ifndef PGWT_TRACER_PROC_MAPS_H
#define PGWT_TRACER_PROC_MAPS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Lowest start address of a mapping whose path equals `path` exactly
 * (a " (deleted)" suffix does not match: the file on disk is then not the
 * one running). 0 and *base on success, -1 when no mapping matches.
 */
extern int	pgwt_maps_find_base(const char *maps_text, const char *path,
								uint64_t *base);

/*
 * Runtime address of a symbol: value - page-aligned lowest PT_LOAD vaddr +
 * load base. For a non-PIE binary the caller passes base == load_lo.
 */
extern uint64_t pgwt_runtime_addr(uint64_t sym_value, uint64_t load_lo,
								  uint64_t base);

/* True when addr lies in the binary's own image [lo, hi) as loaded. */
extern int	pgwt_addr_in_image(uint64_t addr, uint64_t load_lo, uint64_t load_hi,
							   uint64_t base);

#endif
