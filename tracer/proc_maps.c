/*
 * proc_maps.c
 *		/proc/PID/maps parsing and load-address arithmetic.
 *
 * A maps line is "START-END PERMS OFFSET DEV INODE   PATH". The path is
 * everything after the inode column with leading blanks removed; it may
 * contain spaces, so it is compared whole rather than tokenised.
 */
#include "tracer/proc_maps.h"

#include <stdlib.h>
#include <string.h>

#define PGWT_PAGE_MASK	((uint64_t) 0xfff)

/* Parse one line; returns 0 and the start address and path span. */
static int
maps_parse_line(const char *line, const char *eol, uint64_t *start,
				const char **path, size_t *pathlen)
{
	const char *p = line;
	char	   *end;
	int			field;

	*start = strtoull(p, &end, 16);
	if (end == p || *end != '-')
		return -1;
	p = end;
	/* skip the five columns before the path: range perms offset dev inode */
	for (field = 0; field < 5; field++)
	{
		while (p < eol && *p != ' ')
			p++;
		while (p < eol && *p == ' ')
			p++;
	}
	*path = p;
	*pathlen = (size_t) (eol - p);
	return 0;
}

int
pgwt_maps_find_base(const char *maps_text, const char *path, uint64_t *base)
{
	const char *line = maps_text;
	size_t		want = strlen(path);
	int			found = 0;

	while (*line)
	{
		const char *eol = strchr(line, '\n');
		uint64_t	start;
		const char *p;
		size_t		plen;

		if (!eol)
			eol = line + strlen(line);
		if (maps_parse_line(line, eol, &start, &p, &plen) == 0 &&
			plen == want && memcmp(p, path, want) == 0)
		{
			if (!found || start < *base)
				*base = start;
			found = 1;
		}
		line = *eol ? eol + 1 : eol;
	}
	return found ? 0 : -1;
}

uint64_t
pgwt_runtime_addr(uint64_t sym_value, uint64_t load_lo, uint64_t base)
{
	return sym_value - (load_lo & ~PGWT_PAGE_MASK) + base;
}

int
pgwt_addr_in_image(uint64_t addr, uint64_t load_lo, uint64_t load_hi,
				   uint64_t base)
{
	uint64_t	lo = pgwt_runtime_addr(load_lo, load_lo, base);
	uint64_t	hi = pgwt_runtime_addr(load_hi, load_lo, base);

	return addr >= lo && addr < hi;
}
