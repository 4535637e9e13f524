/*
 * windows_side.c
 *		Which exact source the escalation windows of a range used, from
 *		windows.tsv (docs/TRACE_FORMAT.md 8.5; the file and its source
 *		names are sidefiles.c's): the count per source of the windows
 *		that start in a range, and the one line every view prints from it
 *		("exact windows: 2, source sched").
 *		Pure apart from pgwt_tf_window_sources_load, which reads the file
 *		through sidefiles.c.
 */
#include <stdio.h>
#include <string.h>

#include "tracefmt/tracefmt.h"

void
pgwt_tf_window_sources_add(pgwt_tf_window_sources *s, const pgwt_tf_window *w,
						   uint64_t from_rt, uint64_t to_rt)
{
	if (w->start_rt_ns < from_rt || (to_rt && w->start_rt_ns >= to_rt))
		return;
	s->windows++;
	s->by_source[(unsigned) w->source < PGWT_TF_XSRC_COUNT ? w->source : PGWT_TF_XSRC_UNKNOWN]++;
}

size_t
pgwt_tf_window_sources_text(const pgwt_tf_window_sources *s, char *buf, size_t len)
{
	size_t		n = 0;
	int			kinds = 0;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (!s->present)
		return 0;
	for (int i = 0; i < PGWT_TF_XSRC_COUNT; i++)
		kinds += s->by_source[i] > 0;
#define TF_ADD(...) do { int k_ = snprintf(buf + n, len - n, __VA_ARGS__); \
		if (k_ > 0) n = n + (size_t) k_ < len ? n + (size_t) k_ : len - 1; } while (0)
	TF_ADD("exact windows: %llu", (unsigned long long) s->windows);
	if (kinds == 1)
	{
		for (int i = 0; i < PGWT_TF_XSRC_COUNT; i++)
			if (s->by_source[i])
				TF_ADD(", source %s", pgwt_tf_exact_source_name((pgwt_tf_exact_source) i));
	}
	else if (kinds > 1)
	{
		TF_ADD(", sources");
		for (int i = 1; i <= PGWT_TF_XSRC_COUNT; i++)
		{
			int			j = i % PGWT_TF_XSRC_COUNT;	/* unknown last */

			if (s->by_source[j])
				TF_ADD(" %s %llu", pgwt_tf_exact_source_name((pgwt_tf_exact_source) j), (unsigned long long) s->by_source[j]);
		}
	}
	if (s->bad)
		TF_ADD(" (%llu lines of %s skipped)", (unsigned long long) s->bad, PGWT_TF_WINDOWS_NAME);
#undef TF_ADD
	return n;
}

typedef struct tf_ws_arg
{
	pgwt_tf_window_sources *s;
	uint64_t	from_rt,
				to_rt;
} tf_ws_arg;

static int
tf_ws_cb(const pgwt_tf_window *w, void *arg)
{
	tf_ws_arg  *a = arg;

	pgwt_tf_window_sources_add(a->s, w, a->from_rt, a->to_rt);
	return 0;
}

int
pgwt_tf_window_sources_load(const char *dir, uint64_t from_rt, uint64_t to_rt,
							pgwt_tf_window_sources *s)
{
	tf_ws_arg	a = {s, from_rt, to_rt};
	int			rc;

	memset(s, 0, sizeof(*s));
	rc = pgwt_tf_windows_read(dir, tf_ws_cb, &a, &s->bad);
	if (rc == -PGWT_TF_NOT_FOUND)
		return 0;
	s->present = true;
	return rc;
}
