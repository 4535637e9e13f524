/*
 * blockers_load.c
 *		Blocker observations, side file blockers.tsv, as the tracer writes it
 * (tracer/blockers.h; proposed for tracefmt's side files):
 *
 *	<ts_ns><TAB><waiter_pid><TAB><pid>[,<pid>...]
 *
 * one line per pg_blocking_pids() answer, decimal numbers only, ts_ns on
 * CLOCK_MONOTONIC like the records (mapped to wall-clock time through the
 * trace's first file header); an empty list (no blocker any more) is
 * valid; lines starting with '#' are comments. Loaded whole (bounded),
 * sorted by time, and handed to the engine between the records so each
 * observation meets the Lock wait it falls in.
 */
#include "blockers_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/parse_u64.h"

static bool
blk_line(char *line, pgwt_blocker_obs *o)
{
	char	   *f[3],
			   *save = NULL,
			   *p;
	uint64_t	v;
	int			nf = 0;

	memset(o, 0, sizeof(*o));
	/* strtok would merge empty fields: split on every TAB by hand */
	f[nf++] = line;
	for (p = line; *p && nf < 3; p++)
		if (*p == '\t')
		{
			*p = '\0';
			f[nf++] = p + 1;
		}
	if (nf != 3 || strchr(f[2], '\t'))
		return false;
	if (!pgwt_parse_u64(f[0], 10, UINT64_MAX, &o->ts_ns) ||
		!pgwt_parse_u64(f[1], 10, UINT32_MAX, &v) || v == 0)
		return false;
	o->waiter_pid = (uint32_t) v;
	if (!*f[2])
		return true;
	for (p = strtok_r(f[2], ",", &save); p; p = strtok_r(NULL, ",", &save))
	{
		if (!pgwt_parse_u64(p, 10, UINT32_MAX, &v) || v == 0)
			return false;
		if (o->nblockers < PGWT_MAX_BLOCKERS)
			o->blocker_pids[o->nblockers++] = (uint32_t) v;
	}
	return true;
}

static int
blk_obs_cmp(const void *a, const void *b)
{
	uint64_t	x = ((const pgwt_blocker_obs *) a)->ts_ns,
				y = ((const pgwt_blocker_obs *) b)->ts_ns;

	return x < y ? -1 : x > y;
}

/* Returns false only when out of memory; a missing file is no observations. */
bool
pgwt_blkobs_read(const char *dir, const pgwt_tf_file_header *hdr, pgwt_blkobs *bl)
{
	char		path[4096];
	char		line[1024];
	long		len;
	int			err = 0;
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/blockers.tsv", dir);
	f = pgwt_tf_fopen_regular(path, &err);
	if (!f)
	{
		if (err != -PGWT_TF_NOT_FOUND)
			bl->bad++;			/* a link, FIFO or device: never followed */
		return true;
	}
	while ((len = pgwt_tf_getline_max(line, sizeof(line) - 2, f)) >= 0)
	{
		if (len == 0 || line[len - 1] != '\n')
		{
			bl->bad++;			/* torn last line, or longer than any valid one */
			continue;
		}
		line[len - 1] = '\0';
		bl->present = true;
		if (line[0] == '#')
			continue;
		if (bl->n == DUMP_MAX_BLOCKER_OBS)
		{
			bl->dropped++;
			continue;
		}
		if (bl->n == bl->cap)
		{
			size_t		cap = bl->cap ? bl->cap * 2 : 4096;
			pgwt_blocker_obs *grown = realloc(bl->obs, cap * sizeof(*grown));

			if (!grown)
			{
				fclose(f);
				return false;
			}
			bl->obs = grown;
			bl->cap = cap;
		}
		if (blk_line(line, &bl->obs[bl->n]))
		{
			if (hdr)
				bl->obs[bl->n].ts_ns = pgwt_tf_to_realtime(hdr, bl->obs[bl->n].ts_ns);
			bl->n++;
		}
		else
			bl->bad++;
	}
	fclose(f);
	qsort(bl->obs, bl->n, sizeof(*bl->obs), blk_obs_cmp);
	return true;
}

/* Hand the engine the observations up to ts (realtime). */
void
pgwt_blkobs_feed(pgwt_engine *eng, pgwt_blkobs *bl, uint64_t ts)
{
	while (bl->next < bl->n && bl->obs[bl->next].ts_ns <= ts)
		pgwt_engine_feed_blockers(eng, &bl->obs[bl->next++]);
}

/* One batch to the engine (transitions: pgwt_engine_add_transitions). */
static void
blk_add(pgwt_engine *eng, bool transitions, const pgwt_record *recs, size_t n)
{
	if (transitions)
		pgwt_engine_add_transitions(eng, recs, n);
	else
		pgwt_engine_add_many(eng, recs, n);
}

/* Hand the engine n records with the observations up to each in between,
 * so an observation meets the Lock wait it falls in. */
void
pgwt_blkobs_add_records(pgwt_engine *eng, pgwt_blkobs *bl, const pgwt_record *recs, size_t n,
						bool transitions)
{
	size_t		from = 0;

	if (!bl || bl->next >= bl->n)
	{
		blk_add(eng, transitions, recs, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (bl->next < bl->n && bl->obs[bl->next].ts_ns <= recs[i].ts_ns)
		{
			blk_add(eng, transitions, recs + from, i - from);
			from = i;
			pgwt_blkobs_feed(eng, bl, recs[i].ts_ns);
		}
	blk_add(eng, transitions, recs + from, n - from);
}
