/*
 * seed_layout.c
 *		Blocks of versions 2 and 3 as the seed tool writes them
 *		(docs/TRACE_FORMAT.md, "Reading the seed tool's directories"), and
 *		the header's pg_version rule both tools share. Pure: no I/O.
 *
 * The seed tool's writer differs from ours in three ways the block layout
 * cannot show: its first ts delta counts from 0 (not from first_ts), its
 * records keep the order it received them in (deltas wrap modulo 2^64
 * when a record is older than the previous one), and its block header's
 * first_ts / last_ts are the first and last records' ts, not the least
 * and greatest. Its markers carry the marker id in old_event as well as
 * new_event, and an escalation marker packs its length in seconds and a
 * reason byte into query_id. A block is in the seed's layout when its
 * first delta equals first_ts (not 0) and the deltas add up to last_ts:
 * in our layout the same sum is last_ts - first_ts, so the two cannot
 * both hold unless first_ts is 0, which the seed's rule excludes.
 */
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

/* Markers the seed tool writes: exec/plan start/end, escalation, command. */
#define TF_SEED_MARKER_LAST	0xFFFFFFF7u
#define TF_SEED_IS_MARKER(e) ((e) >= PGWT_MARKER_FIRST && (e) <= TF_SEED_MARKER_LAST)

uint32_t
pgwt_tf_pg_major(uint32_t pg_version)
{
	/* server_version_num is MMmmpp (90603 = 9.6, 150004 = 15); the seed
	 * tool writes the bare major version (18), always below 1000 */
	if (pg_version < 1000)
		return pg_version;
	return pg_version / 10000;
}

bool
tf_seed_timestamps(const uint8_t **pp, const uint8_t *end, uint32_t n,
				   const pgwt_tf_block_header *hdr, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	uint64_t	ts = 0;
	uint32_t	i;

	if (hdr->first_ts == 0 || n == 0)
		return false;
	for (i = 0; i < n; i++)
	{
		uint64_t	d;

		if (tf_get_leb(&p, end, &d) < 0)
			return false;
		if (i == 0 && d != hdr->first_ts)
			return false;
		ts += d;				/* modulo 2^64, as the seed subtracted */
		recs[i].ts_ns = ts;
	}
	if (ts != hdr->last_ts)
		return false;
	*pp = p;
	return true;
}

/* The seed's marker conventions in ours (section 5 of the spec). */
static void
tf_seed_marker(pgwt_record *r)
{
	uint32_t	m;

	if (TF_SEED_IS_MARKER(r->new_event))
		m = r->new_event;
	else if (TF_SEED_IS_MARKER(r->old_event))
		m = r->old_event;
	else
		return;
	r->new_event = m;
	if (m == PGWT_MARKER_ESC_START || m == PGWT_MARKER_ESC_END)
	{
		uint64_t	secs = r->query_id >> 8;
		unsigned	reason = (unsigned) (r->query_id & 0xFF);

		/* seed reasons: 0 manual, 1 anomaly, 6 CPU saturation open a
		 * window; 2..5 say why one closed, which ours does not record */
		r->old_event = PGWT_ESC_CODE_UNSPECIFIED;
		if (m == PGWT_MARKER_ESC_START)
			r->old_event = reason == 0 ? PGWT_ESC_CODE_MANUAL
				: reason == 1 ? PGWT_ESC_CODE_ANOMALY
				: reason == 6 ? PGWT_ESC_CODE_ANOMALY_CPU
				: PGWT_ESC_CODE_UNSPECIFIED;
		r->duration_ns = secs > UINT64_MAX / 1000000000ull ? UINT64_MAX
			: secs * 1000000000ull;
		r->query_id = 0;
	}
	else
	{
		r->old_event = PGWT_EVENT_NONE;
		r->duration_ns = 0;
	}
}

/* Stable merge sort by ts (equal instants keep the writer's order). */
static int
tf_seed_sort(pgwt_record *recs, uint32_t n)
{
	pgwt_record *tmp;
	uint32_t	width,
				i;

	for (i = 1; i < n; i++)
		if (recs[i].ts_ns < recs[i - 1].ts_ns)
			break;
	if (i >= n)
		return 0;
	tmp = malloc((size_t) n * sizeof(*tmp));
	if (!tmp)
		return -PGWT_TF_NOMEM;
	for (width = 1; width < n; width *= 2)
	{
		for (i = 0; i < n; i += 2 * width)
		{
			uint32_t	mid = i + width < n ? i + width : n;
			uint32_t	hi = i + 2 * width < n ? i + 2 * width : n;
			uint32_t	a = i,
						b = mid,
						k = i;

			while (a < mid && b < hi)
				tmp[k++] = recs[b].ts_ns < recs[a].ts_ns ? recs[b++] : recs[a++];
			while (a < mid)
				tmp[k++] = recs[a++];
			while (b < hi)
				tmp[k++] = recs[b++];
		}
		memcpy(recs, tmp, (size_t) n * sizeof(*tmp));
	}
	free(tmp);
	return 0;
}

int
tf_seed_normalize(pgwt_record *recs, uint32_t n)
{
	uint32_t	i;

	for (i = 0; i < n; i++)
		if (recs[i].kind == PGWT_REC_TRANSITION)
			tf_seed_marker(&recs[i]);
	return tf_seed_sort(recs, n);
}
