/*
 * srv_cache.c
 *		Loaded ranges kept between requests (srv_cache.h), one entry of each
 *		kind: the shared read (aggregates and the chart's series, from the
 *		summaries where they answer) and the read with per-key histograms
 *		(the sessions and queries tables' percentiles, from records). The
 *		key is the range, the window's label and a signature of the trace
 *		directory: every entry's name, size and mtime (ns), combined
 *		order-free, so a live directory that grew or rotated (the trace, its
 *		summary, a side file) is read afresh, and an unchanged one is not
 *		read again.
 *
 * Locking: both entries are guarded by srv_cache_mu, taken by
 * srv_cache_range / srv_cache_range_keyed and held until
 * srv_cache_release, so a handler never sees an entry replaced under it
 * (libmicrohttpd may run handlers on more than one thread).
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/range_load.h"
#include "analysis/series.h"
#include "srv_cache.h"
#include "srv_sum.h"

typedef struct srv_cache_slot
{
	bool		valid;
	uint64_t	from,
				to,
				sig;
	srv_loaded	l;
	pgwt_series *series;		/* NULL for an open range */
	bool		from_sum;
} srv_cache_slot;

static pthread_mutex_t srv_cache_mu = PTHREAD_MUTEX_INITIALIZER;
static srv_cache_slot srv_cache_entry;	/* the shared read */
static srv_cache_slot srv_cache_keyed;	/* with per-key histograms */

static void
srv_cache_drop_slot(srv_cache_slot *e)
{
	if (e->l.eng)
		srv_loaded_free(&e->l);
	pgwt_series_free(e->series);
	e->series = NULL;
	e->valid = false;
}

static void
srv_cache_drop(void)
{
	srv_cache_drop_slot(&srv_cache_entry);
}

/* The window of a range's load: "from..to", as every view labels it. */
static void
srv_cache_window(uint64_t from, uint64_t to, pgwt_window_spec *win)
{
	memset(win, 0, sizeof(*win));
	win->from_ns = from;
	win->to_ns = to == UINT64_MAX ? UINT64_MAX : pgwt_range_window_end(to);
	snprintf(win->label, sizeof(win->label), "%llu..%llu", (unsigned long long) from,
			 (unsigned long long) to);
}

/* Load the range afresh into the entry. 0 or -1. */
static int
srv_cache_load(const char *path, uint64_t from, uint64_t to, char *err, size_t errlen)
{
	pgwt_window_spec win;
	bool		aligned = false;

	srv_cache_window(from, to, &win);
	if (from != 0 && to != UINT64_MAX &&
		!(srv_cache_entry.series = srv_sum_series(path, from, to, SRV_CACHE_POINTS, &aligned)))
	{
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	srv_cache_entry.from_sum = false;
	/* the summaries bill a frame whole: only into buckets aligned to them */
	if (srv_cache_entry.series && !aligned)
		return srv_load_range(path, from, to, &win, 1, true, srv_cache_entry.series,
							  &srv_cache_entry.l, err, errlen);
	return srv_load_range_fast(path, from, to, &win, true, srv_cache_entry.series,
							   &srv_cache_entry.l, &srv_cache_entry.from_sum, err, errlen);
}

static uint64_t
srv_cache_fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
}

/* The directory's state; false when it cannot be listed (no caching). */
static bool
srv_cache_sig(const char *path, uint64_t *sig)
{
	DIR		   *d = opendir(path);
	struct dirent *e;
	uint64_t	s = 0,
				n = 0;

	if (!d)
		return false;
	while ((e = readdir(d)) != NULL)
	{
		struct stat st;
		uint64_t	h = 14695981039346656037ull,
					v[2];

		/* ".." changes with the parent; the entries say all of ours */
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
			fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		v[0] = (uint64_t) st.st_size;
		v[1] = (uint64_t) st.st_mtim.tv_sec * 1000000000ull + (uint64_t) st.st_mtim.tv_nsec;
		h = srv_cache_fnv(e->d_name, strlen(e->d_name) + 1, h);
		h = srv_cache_fnv(v, sizeof(v), h);
		s += h;					/* order-free */
		n++;
	}
	closedir(d);
	*sig = s ^ (n * 0x9E3779B97F4A7C15ull);
	return true;
}

const srv_loaded *
srv_cache_range(const char *path, uint64_t from, uint64_t to,
				const pgwt_series **series, bool *from_sum, char *err, size_t errlen)
{
	uint64_t	sig = 0;
	bool		have_sig;

	pthread_mutex_lock(&srv_cache_mu);
	have_sig = srv_cache_sig(path, &sig);
	if (!(have_sig && srv_cache_entry.valid && srv_cache_entry.from == from &&
		  srv_cache_entry.to == to && srv_cache_entry.sig == sig))
	{
		srv_cache_drop();
		if (srv_cache_load(path, from, to, err, errlen) != 0)
		{
			pgwt_series_free(srv_cache_entry.series);
			srv_cache_entry.series = NULL;
			memset(&srv_cache_entry.l, 0, sizeof(srv_cache_entry.l));
			return NULL;
		}
		/* without a signature it is not kept (srv_cache_release) */
		srv_cache_entry.valid = have_sig;
		srv_cache_entry.from = from;
		srv_cache_entry.to = to;
		srv_cache_entry.sig = sig;
	}
	if (series)
		*series = srv_cache_entry.series;
	if (from_sum)
		*from_sum = srv_cache_entry.from_sum;
	return &srv_cache_entry.l;
}

const srv_loaded *
srv_cache_range_keyed(const char *path, uint64_t from, uint64_t to, char *err, size_t errlen)
{
	srv_cache_slot *e = &srv_cache_keyed;
	pgwt_engine_config ecfg = {0};
	srv_load_extra x = {&ecfg, NULL, NULL, NULL, NULL};
	pgwt_window_spec win;
	uint64_t	sig = 0;
	bool		have_sig;

	pthread_mutex_lock(&srv_cache_mu);
	have_sig = srv_cache_sig(path, &sig);
	if (!(have_sig && e->valid && e->from == from && e->to == to && e->sig == sig))
	{
		srv_cache_drop_slot(e);
		srv_cache_window(from, to, &win);
		ecfg.key_histograms = true;
		if (srv_load_range_ex(path, from, to, &win, 1, true, &x, &e->l, err, errlen) != 0)
		{
			memset(&e->l, 0, sizeof(e->l));
			return NULL;
		}
		e->valid = have_sig;
		e->from = from;
		e->to = to;
		e->sig = sig;
	}
	return &e->l;
}

void
srv_cache_release(void)
{
	if (!srv_cache_entry.valid)
		srv_cache_drop();
	if (!srv_cache_keyed.valid)
		srv_cache_drop_slot(&srv_cache_keyed);
	pthread_mutex_unlock(&srv_cache_mu);
}
