/*
 * srv_load.h
 *		pgwt-server's reading of a trace directory: a time range of records
 *		into an analysis engine over caller-given windows, with the side
 *		files (names, backends, query texts) the views and renderers need.
 */
#ifndef PGWT_SRV_LOAD_H
#define PGWT_SRV_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/engine.h"
#include "analysis/query_texts.h"
#include "analysis/wait_event.h"

typedef struct srv_loaded
{
	pgwt_engine *eng;
	pgwt_names	names;
	pgwt_query_texts qt;
	uint64_t	records;
	uint64_t	first_rt;		/* extent of the records read (UINT64_MAX/0: none) */
	uint64_t	last_rt;
} srv_loaded;

/*
 * Load [from, to) of path (a trace directory) into a new engine over the
 * windows (1..PGWT_MAX_WINDOWS; the last one should end at
 * pgwt_range_window_end(to) to show the range whole). with_side: names,
 * backends and query texts too. series (or NULL): filled in the same pass
 * (analysis/series.h). 0, or -1 with a one-line reason in err.
 */
struct pgwt_series;
int			srv_load_range(const char *path, uint64_t from, uint64_t to,
						   const pgwt_window_spec *win, int nwin, bool with_side,
						   struct pgwt_series *series,
						   srv_loaded *out, char *err, size_t errlen);
/*
 * The same with more of the engine: its configuration (NULL: the
 * defaults; key_histograms for per-session and per-query percentiles)
 * and a histogram probe filled in the same pass (analysis/hist_probe.h).
 * Returns 0, -1 with err set, or what before_feed returned.
 */
struct pgwt_hist_probe;
typedef struct srv_load_extra
{
	const pgwt_engine_config *cfg;
	struct pgwt_series *series;
	struct pgwt_hist_probe *probe;
	/* called once the side files are in, before the records (e.g. to
	 * name the probe's event by the trace's names); nonzero stops the
	 * load: srv_load_range_ex returns that value, err left empty */
	int			(*before_feed) (void *arg, const srv_loaded *l);
	void	   *arg;
} srv_load_extra;
int			srv_load_range_ex(const char *path, uint64_t from, uint64_t to,
							  const pgwt_window_spec *win, int nwin, bool with_side,
							  const srv_load_extra *x, srv_loaded *out, char *err, size_t errlen);
/* Names, backends (before any record: who is background) and query
 * texts of path into out (its engine created). 0, or -1 out of memory. */
struct pgwt_tf_reader;
int			srv_load_side(const char *path, const struct pgwt_tf_reader *r, srv_loaded *out);

/*
 * srv_load_range from the per-second summaries where they answer the range
 * (docs/TRACE_FORMAT.md 11.4: the same answer, every column), from
 * records where not (srv_sum.c). The series, when given, gets the frames
 * whole: it must be aligned to them (srv_sum_align). *used: whether the
 * summaries answered.
 */
int			srv_load_range_fast(const char *path, uint64_t from, uint64_t to,
								const pgwt_window_spec *win, bool with_side,
								struct pgwt_series *series, srv_loaded *out, bool *used,
								char *err, size_t errlen);

/*
 * The bound of records per request (--max-records; main sets it before the
 * threads start). srv_load_count adds n to out->records and, past the
 * bound, sets err to SRV_TOO_LARGE_MSG (srv.h) and returns false: every
 * loop that feeds an engine calls it per batch.
 */
void		srv_load_set_max_records(uint64_t n);
bool		srv_load_count(srv_loaded *out, uint32_t n, char *err, size_t errlen);

/* Only the extent of the whole trace (first/last record, count). */
int			srv_load_extent(const char *path, srv_loaded *out, char *err, size_t errlen);
void		srv_loaded_free(srv_loaded *l);

#endif							/* PGWT_SRV_LOAD_H */
