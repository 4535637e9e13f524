/*
 * read_plan.c
 *		Merge small remote reads into few ranges; find a value in them.
 */
#include "tracer/read_plan.h"

#include <stdlib.h>

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
