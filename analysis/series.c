/*
 * series.c
 *		The one-pass time series of a range (series.h): N buckets, each
 *		wait cut at the bucket edges it crosses by span_cut.h's rule, each
 *		sample billed to the bucket of its instant. Owned by its caller;
 *		the engine only bills into it. Single-threaded, no I/O.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/series.h"
#include "analysis/span_cut.h"

struct pgwt_series
{
	uint64_t	from,
				to,
				width;
	unsigned	n;
	pgwt_series_bucket *b;
};

pgwt_series *
pgwt_series_create(uint64_t from, uint64_t to, unsigned points, const char **err)
{
	pgwt_series *s;
	const char *dummy;

	if (!err)
		err = &dummy;
	if (from >= to || to == UINT64_MAX || points == 0 || points > PGWT_SERIES_MAX)
	{
		*err = "a series needs from < to (a closed range) and 1..100000 points";
		return NULL;
	}
	if (!(s = calloc(1, sizeof(*s))))
	{
		*err = "out of memory";
		return NULL;
	}
	s->from = from;
	s->to = to;
	/* ceil without overflow: (to - from) can be close to 2^64 */
	s->width = (to - from) / points + ((to - from) % points != 0);
	s->n = (unsigned) ((to - from) / s->width + ((to - from) % s->width != 0));
	if (!(s->b = calloc(s->n, sizeof(*s->b))))
	{
		free(s);
		*err = "out of memory";
		return NULL;
	}
	pgwt_series_reset(s);
	return s;
}

void
pgwt_series_free(pgwt_series *s)
{
	if (!s)
		return;
	free(s->b);
	free(s);
}

void
pgwt_series_reset(pgwt_series *s)
{
	memset(s->b, 0, s->n * sizeof(*s->b));
	for (unsigned i = 0; i < s->n; i++)
	{
		s->b[i].from_ns = s->from + (uint64_t) i * s->width;
		s->b[i].to_ns = i + 1 == s->n ? s->to : s->b[i].from_ns + s->width;
	}
}

unsigned
pgwt_series_len(const pgwt_series *s)
{
	return s->n;
}

uint64_t
pgwt_series_width(const pgwt_series *s)
{
	return s->width;
}

const pgwt_series_bucket *
pgwt_series_get(const pgwt_series *s, unsigned i)
{
	return i < s->n ? &s->b[i] : NULL;
}

pgwt_fidelity
pgwt_series_fidelity(const pgwt_series_bucket *b)
{
	/* a window with no time billed is "no data" to the time model */
	return b->any_ns == 0 ? PGWT_FIDELITY_NONE : pgwt_fidelity_of(b->exact, b->sampled);
}

/* The bucket holding instant ts (from <= ts < to). */
static inline unsigned
series_index(const pgwt_series *s, uint64_t ts)
{
	return (unsigned) ((ts - s->from) / s->width);
}

void
pgwt_series_bill_wait(pgwt_series *s, uint32_t ev, uint64_t start, uint64_t end, bool db)
{
	unsigned	cls = pgwt_event_class(ev);
	unsigned	first,
				last;
	uint64_t	lo,
				hi;

	/* counted where it ends; "to" itself belongs to the last bucket */
	if (end >= s->from && end <= s->to)
		s->b[end == s->to ? s->n - 1 : series_index(s, end)].exact = true;
	if (pgwt_span_cut(start, end, s->from, s->to, &lo, &hi) == 0)
		return;
	first = series_index(s, lo);
	last = series_index(s, hi - 1);
	for (unsigned i = first; i <= last; i++)
	{
		pgwt_series_bucket *b = &s->b[i];
		uint64_t	blo,
					bhi,
					ns = pgwt_span_cut(lo, hi, b->from_ns, b->to_ns, &blo, &bhi);

		b->exact = true;
		b->any_ns += ns;
		if (db)
			b->class_ns[cls] += ns;
	}
}

void
pgwt_series_bill_sample(pgwt_series *s, uint32_t ev, uint64_t ts, uint64_t weight_ns, bool db)
{
	pgwt_series_bucket *b;

	if (ts < s->from || ts >= s->to)
		return;
	b = &s->b[series_index(s, ts)];
	b->sampled = true;
	b->any_ns += weight_ns;
	if (db)
		b->class_ns[pgwt_event_class(ev)] += weight_ns;
}

void
pgwt_series_bill_block(pgwt_series *s, uint32_t ev, uint64_t at, uint64_t ns,
					   bool db, bool exact, bool sampled)
{
	pgwt_series_bucket *b;

	if (at < s->from || at >= s->to)
		return;
	b = &s->b[series_index(s, at)];
	b->exact |= exact;
	b->sampled |= sampled;
	b->any_ns += ns;
	if (db)
		b->class_ns[pgwt_event_class(ev)] += ns;
}
