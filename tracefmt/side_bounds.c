/*
 * side_bounds.c
 *		How big side files may grow, which query texts a writer still
 *		has to write, and what an event name may hold (pure;
 *		docs/TRACE_FORMAT.md 6.6, 8.2 and 8.3).
 *
 * Side files are written from what the database shows (every backend,
 * every query id and text), which any database user can multiply. So each
 * file has a bound (an append past it is refused, sidefiles.c), retention
 * cuts a file over its bound to its newest lines, and the directory's cap
 * counts them. A writer of texts remembers, per trace file, the ids it
 * wrote in a fixed-size set: an id in use is never written twice in one
 * file; when more distinct ids come than the set holds, the one seen least
 * recently in its set goes, and costs one line if it comes back.
 *
 * An event name in events.tsv comes from the server (a tranche or custom
 * wait event any extension may register), so it is held to one rule on
 * both sides: bounded, no control characters (a terminal or a TSV reader
 * downstream must not be steered by it).
 *
 * No state beyond the caller's objects.
 */
#include <string.h>

#include "tracefmt/tf_internal.h"

uint64_t
pgwt_tf_side_bound(uint64_t retention_bytes)
{
	uint64_t	b;

	if (retention_bytes == 0)
		return PGWT_TF_SIDE_MAX_DEFAULT;
	b = retention_bytes / 8;
	if (b < PGWT_TF_SIDE_MAX_FLOOR)
		b = PGWT_TF_SIDE_MAX_FLOOR;
	if (b > PGWT_TF_SIDE_MAX_DEFAULT)
		b = PGWT_TF_SIDE_MAX_DEFAULT;
	return b;
}

size_t
pgwt_tf_side_trim(const size_t *len, size_t n, bool keep_first, uint64_t target,
				  bool *keep)
{
	uint64_t	total = 0;
	size_t		dropped = 0;
	size_t		first = keep_first && n > 0 ? 1 : 0;
	size_t		i;

	if (first)
	{
		keep[0] = true;
		total = len[0];
	}
	/* newest first: a line is kept while it and all newer ones fit */
	for (i = n; i > first; i--)
	{
		size_t		k = i - 1;

		if (total + len[k] <= target && dropped == 0)
		{
			keep[k] = true;
			total += len[k];
		}
		else
		{
			keep[k] = false;
			dropped++;
		}
	}
	return dropped;
}

void
pgwt_tf_query_seen_reset(pgwt_tf_query_seen *s)
{
	memset(s, 0, sizeof(*s));
}

bool
pgwt_tf_query_seen_add(pgwt_tf_query_seen *s, uint64_t id)
{
	uint32_t	set;
	int			w,
				victim = 0;

	if (id == 0)
		return false;
	/* the top bits of a multiplicative hash pick the set */
	set = (uint32_t) ((id * 0x9E3779B97F4A7C15ull) >> 53) & (PGWT_TF_QUERY_SEEN_SETS - 1);
	s->clock++;
	for (w = 0; w < PGWT_TF_QUERY_SEEN_WAYS; w++)
		if (s->id[set][w] == id)
		{
			s->used[set][w] = s->clock;
			return true;
		}
	for (w = 0; w < PGWT_TF_QUERY_SEEN_WAYS; w++)
	{
		if (s->id[set][w] == 0)
		{
			victim = w;
			break;
		}
		/* least recently seen; the clock's wrap is harmless (unsigned age) */
		if (s->clock - s->used[set][w] > s->clock - s->used[set][victim])
			victim = w;
	}
	if (s->id[set][victim] != 0)
		s->evicted++;
	s->id[set][victim] = id;
	s->used[set][victim] = s->clock;
	return false;
}

bool
pgwt_tf_event_name_ok(const char *name)
{
	size_t		n = 0;

	if (!name || !*name)
		return false;
	for (; name[n]; n++)
		if ((unsigned char) name[n] < 0x20 || name[n] == 0x7F ||
			n >= PGWT_TF_EVENT_NAME_MAX)
			return false;
	return true;
}

size_t
pgwt_tf_event_name_clean(const char *in, char *out, size_t outlen)
{
	size_t		max,
				n;

	if (outlen == 0)
		return 0;
	max = outlen - 1 < PGWT_TF_EVENT_NAME_MAX ? outlen - 1 : PGWT_TF_EVENT_NAME_MAX;
	n = in ? strlen(in) : 0;
	if (n > max)
	{
		/* cut before a continuation byte: never half a UTF-8 character */
		n = max;
		while (n > 0 && ((unsigned char) in[n] & 0xC0) == 0x80)
			n--;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = ((unsigned char) in[i] < 0x20 || in[i] == 0x7F) ? '?' : in[i];
	out[n] = '\0';
	return n;
}
