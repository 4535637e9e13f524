/*
 * srv_sum.h
 *		pgwt-server's summary-backed answers for long ranges (srv_sum.c);
 *		srv_load_range_fast itself is declared in srv_load.h.
 */
#ifndef PGWT_SRV_SUM_H
#define PGWT_SRV_SUM_H

#include <stdbool.h>
#include <stdint.h>

/*
 * AAS buckets at the summaries' grain for [from, to) in at most points
 * buckets: a width of whole minutes, the first edge on a minute of the
 * trace's clock at or before from (*sfrom), the series' end *sto >= to.
 * false when the buckets would be under a minute (the caller cuts the
 * range as before, from records).
 */
bool		srv_sum_align(const char *path, uint64_t from, uint64_t to, unsigned points,
						  uint64_t *sfrom, uint64_t *sto, unsigned *npoints);

/*
 * The AAS series of [from, to) in at most points buckets: aligned to the
 * summaries' minutes when its buckets are a minute or wider (*aligned),
 * else cut at from. NULL out of memory.
 */
struct pgwt_series;
struct pgwt_series *srv_sum_series(const char *path, uint64_t from, uint64_t to, unsigned points,
								   bool *aligned);

#endif							/* PGWT_SRV_SUM_H */
