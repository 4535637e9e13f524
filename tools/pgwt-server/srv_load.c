/*
 * srv_load.c
 *		Reads a range of a trace directory for pgwt-server through the one
 *		range loader of analysis/ (wall-clock time, the open escalation
 *		window first, waits cut to the range), so every figure the server
 *		shows is the one pgwt-dump shows for the same range. Each request
 *		loads afresh: live files are seen as they grow. The one setting
 *		shared by the threads, the bound of records per request, is written
 *		before they start and only read afterwards.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/backends_load.h"
#include "analysis/names_load.h"
#include "analysis/range_load.h"
#include "tracefmt/tracefmt.h"
#include "srv.h"
#include "srv_load.h"

/*
 * Records one request reads at most: set once by main before the HTTP
 * layer starts its threads, read-only afterwards (no lock).
 */
static uint64_t srv_load_max = SRV_MAX_RECORDS_DEFAULT;

void
srv_load_set_max_records(uint64_t n)
{
	srv_load_max = n ? n : SRV_MAX_RECORDS_DEFAULT;
}

bool
srv_load_count(srv_loaded *out, uint32_t n, char *err, size_t errlen)
{
	out->records += n;
	if (out->records <= srv_load_max)
		return true;
	snprintf(err, errlen, "%s", SRV_TOO_LARGE_MSG);
	return false;
}

static int
srv_load_feed(pgwt_range_loader *l, srv_loaded *out, char *err, size_t errlen)
{
	pgwt_range_batch blk;
	int			rc;

	out->first_rt = UINT64_MAX;
	out->last_rt = 0;
	while ((rc = pgwt_range_next(l, &blk)) > 0)
	{
		if (blk.n == 0)
			continue;
		if (blk.first_ts < out->first_rt)
			out->first_rt = blk.first_ts;
		if (blk.last_ts > out->last_rt)
			out->last_rt = blk.last_ts;
		if (!out->eng)
			out->records += blk.n;	/* the extent alone: no engine, no bound */
		else if (!srv_load_count(out, blk.n, err, errlen))
			return -1;
		else
			pgwt_engine_add_many(out->eng, blk.recs, blk.n);
	}
	if (rc < 0)
	{
		snprintf(err, errlen, "reading the trace failed: %s", pgwt_tf_strerror(rc));
		return -1;
	}
	return 0;
}

int
srv_load_side(const char *path, const pgwt_tf_reader *r, srv_loaded *out)
{
	int			pg_major = 0;

	if (pgwt_tf_reader_nfiles(r) > 0)
		pg_major = (int) pgwt_tf_pg_major(pgwt_tf_reader_file_header(r, 0)->pg_version);
	pgwt_names_init(&out->names, pg_major);
	pgwt_names_load_dir(&out->names, path, NULL, NULL);
	/* before the records: the metadata says who is background */
	pgwt_backends_load(out->eng, path, NULL);
	return pgwt_query_texts_load(&out->qt, path) != 0 ? -1 : 0;
}

int
srv_load_range(const char *path, uint64_t from, uint64_t to,
			   const pgwt_window_spec *win, int nwin, bool with_side,
			   struct pgwt_series *series,
			   srv_loaded *out, char *err, size_t errlen)
{
	srv_load_extra x = {NULL, series, NULL, NULL, NULL};

	return srv_load_range_ex(path, from, to, win, nwin, with_side, &x, out, err, errlen);
}

int
srv_load_range_ex(const char *path, uint64_t from, uint64_t to,
				  const pgwt_window_spec *win, int nwin, bool with_side,
				  const srv_load_extra *x, srv_loaded *out, char *err, size_t errlen)
{
	pgwt_engine_config cfg = {0};
	pgwt_range_loader *l = NULL;
	const char *eerr = NULL;
	int			rc;

	memset(out, 0, sizeof(*out));
	if ((rc = pgwt_range_open(path, from, to, &l)) < 0)
	{
		snprintf(err, errlen, "cannot read the trace: %s", pgwt_tf_strerror(rc));
		return -1;
	}
	if (x->cfg)
		cfg = *x->cfg;
	out->eng = pgwt_engine_create(&cfg, win, nwin, &eerr);
	if (!out->eng)
	{
		snprintf(err, errlen, "%s", eerr ? eerr : "out of memory");
		pgwt_range_close(l);
		return -1;
	}
	if (with_side && srv_load_side(path, pgwt_range_reader(l), out) != 0)
	{
		snprintf(err, errlen, "out of memory");
		pgwt_range_close(l);
		srv_loaded_free(out);
		return -1;
	}
	if (x->before_feed && (rc = x->before_feed(x->arg, out)) != 0)
	{
		err[0] = '\0';
		pgwt_range_close(l);
		srv_loaded_free(out);
		return rc;
	}
	pgwt_engine_set_series(out->eng, x->series);
	pgwt_engine_set_hist_probe(out->eng, x->probe);
	rc = srv_load_feed(l, out, err, errlen);
	pgwt_range_close(l);
	if (rc < 0)
	{
		srv_loaded_free(out);
		return -1;
	}
	pgwt_engine_flush(out->eng);
	return 0;
}

int
srv_load_extent(const char *path, srv_loaded *out, char *err, size_t errlen)
{
	pgwt_range_loader *l = NULL;
	int			rc;

	memset(out, 0, sizeof(*out));
	if ((rc = pgwt_range_open(path, 0, UINT64_MAX, &l)) < 0)
	{
		snprintf(err, errlen, "cannot read the trace: %s", pgwt_tf_strerror(rc));
		return -1;
	}
	rc = srv_load_feed(l, out, err, errlen);
	pgwt_range_close(l);
	return rc;
}

void
srv_loaded_free(srv_loaded *l)
{
	pgwt_engine_free(l->eng);
	l->eng = NULL;
	pgwt_names_free(&l->names);
	pgwt_query_texts_free(&l->qt);
}
