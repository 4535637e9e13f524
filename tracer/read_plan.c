/*
 * read_plan.c
 *		Merge small remote reads into few ranges; find a value in them.
 */
#include "tracer/read_plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
plan_cmp(const void *a, const void *b)
{
	const pgwt_read *x = a,
			   *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

size_t
pgwt_plan_ranges(pgwt_read *reads, size_t n, uint64_t max_gap,
				 pgwt_span *out, size_t max_out, uint64_t *total)
{
	size_t		nr = 0;
	uint64_t	off = 0;

	*total = 0;
	qsort(reads, n, sizeof(pgwt_read), plan_cmp);
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	a = reads[i].addr;
		uint64_t	end = a + reads[i].len;

		if (nr > 0 && a <= out[nr - 1].addr + out[nr - 1].len + max_gap)
		{
			if (end > out[nr - 1].addr + out[nr - 1].len)
				out[nr - 1].len = end - out[nr - 1].addr;
			continue;
		}
		if (nr == max_out)
			return 0;
		out[nr].addr = a;
		out[nr].len = end - a;
		nr++;
	}
	for (size_t i = 0; i < nr; i++)
	{
		out[i].buf_off = off;
		off += out[i].len;
	}
	*total = off;
	return nr;
}

int64_t
pgwt_plan_locate(const pgwt_span *r, size_t nr, uint64_t addr, uint32_t len)
{
	size_t		lo = 0,
				hi = nr;

	while (lo < hi)
	{
		size_t		mid = (lo + hi) / 2;

		if (r[mid].addr + r[mid].len <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == nr || addr < r[lo].addr || addr + len > r[lo].addr + r[lo].len)
		return -1;
	return (int64_t) (r[lo].buf_off + (addr - r[lo].addr));
}

int
pgwt_plan_find_shared(const char *maps_text, uint64_t lo, uint64_t hi,
					  uint64_t *start, uint64_t *end, uint64_t *pgoff)
{
	for (const char *line = maps_text; line && *line;)
	{
		const char *nl = strchr(line, '\n');
		uint64_t	a,
					b,
					off;
		char		perms[8];

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64, &a, &b, perms, &off) == 4 &&
			strlen(perms) == 4 && perms[3] == 's' && perms[0] == 'r' && a <= lo && hi <= b)
		{
			*start = a;
			*end = b;
			*pgoff = off;
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}
