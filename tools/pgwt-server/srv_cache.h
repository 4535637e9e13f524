/*
 * srv_cache.h
 *		pgwt-server's loaded ranges kept between requests (srv_cache.c):
 *		the page's first view asks for the chart and four tables of the
 *		same range, which then cost two reads of it (the shared one and
 *		the one with per-key histograms), not five.
 */
#ifndef PGWT_SRV_CACHE_H
#define PGWT_SRV_CACHE_H

#include "srv_load.h"

/* The page's chart resolution: the series the cached read also fills. */
#define SRV_CACHE_POINTS 300

/*
 * The range [from, to) of path loaded over one window labelled
 * "from..to" (with the side files) and, for a closed range, the AAS
 * series of SRV_CACHE_POINTS buckets (srv_sum_series) filled in the same
 * read: from the cache when the same range of the directory in the same
 * state (every entry's name, size and mtime) was loaded last; else loaded
 * and kept in place of the last one. From the summaries where they
 * answer (srv_load_range_fast; *from_sum), unless the series is cut finer
 * than their minutes: then from records. series / from_sum may be NULL.
 * The result stays valid until srv_cache_release. NULL with err set on
 * failure. Call srv_cache_release after every call, NULL or not.
 */
struct pgwt_series;
const srv_loaded *srv_cache_range(const char *path, uint64_t from, uint64_t to,
								  const struct pgwt_series **series, bool *from_sum,
								  char *err, size_t errlen);
/*
 * The same range loaded with per-key histograms (p50/p95/p99 of session
 * and query rows, which only records give), kept in a second entry under
 * the same rules: the sessions and queries tables of one view share one
 * read of the records. Call srv_cache_release after every call.
 */
const srv_loaded *srv_cache_range_keyed(const char *path, uint64_t from, uint64_t to,
										char *err, size_t errlen);
void		srv_cache_release(void);

#endif							/* PGWT_SRV_CACHE_H */
