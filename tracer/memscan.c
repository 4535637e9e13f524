/*
 * memscan.c
 *		Value search and candidate narrowing over memory copies (pure).
 */
#include "tracer/memscan.h"

#include <string.h>

int
pgwt_find_u64(const uint8_t *buf, size_t len, uint64_t v, int *offsets, int max)
{
	int			n = 0;

	for (size_t off = 0; off + 8 <= len; off += 8)
	{
		uint64_t	x;

		memcpy(&x, buf + off, 8);
		if (x == v && n < max)
			offsets[n++] = (int) off;
	}
	return n;
}

int
pgwt_offsets_intersect(int *cand, int ncand, const int *found, int nfound)
{
	int			keep = 0;

	for (int k = 0; k < ncand; k++)
		for (int j = 0; j < nfound; j++)
			if (cand[k] == found[j])
			{
				cand[keep++] = cand[k];
				break;
			}
	return keep;
}
