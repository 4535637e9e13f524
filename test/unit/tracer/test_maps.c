/*
 * test_maps.c
 *		/proc/PID/maps parsing and runtime-address arithmetic.
 */
#include <string.h>

#include "tracer/memscan.h"
#include "tracer/proc_maps.h"
#include "unit.h"

static const char maps[] =
	"55d0c1a00000-55d0c1acd000 r--p 00000000 08:01 1234                       /usr/lib/postgresql/15/bin/postgres\n"
	"55d0c1ace000-55d0c2003000 r-xp 000ce000 08:01 1234                       /usr/lib/postgresql/15/bin/postgres\n"
	"55d0c2260000-55d0c2295000 rw-p 0085f000 08:01 1234                       /usr/lib/postgresql/15/bin/postgres\n"
	"55d0c2295000-55d0c22c7000 rw-p 00000000 00:00 0 \n"
	"7f0000000000-7f0000100000 rw-s 00000000 00:01 99                         /dev/zero (deleted)\n"
	"7f1000000000-7f1000001000 r--p 00000000 08:01 55                         /usr/lib/postgresql/15/bin/postgres.old\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]";

static void
maps_base_exact_path(void)
{
	uint64_t	base = 0;

	UNIT_CHECK(pgwt_maps_find_base(maps, "/usr/lib/postgresql/15/bin/postgres", &base) == 0);
	UNIT_CHECK(base == 0x55d0c1a00000ull);
	UNIT_CHECK(pgwt_maps_find_base(maps, "/usr/lib/postgresql/15/bin/postgres.old", &base) == 0);
	UNIT_CHECK(base == 0x7f1000000000ull);
	/* prefix, missing, and a deleted file do not match */
	UNIT_CHECK(pgwt_maps_find_base(maps, "/usr/lib/postgresql/15/bin/post", &base) == -1);
	UNIT_CHECK(pgwt_maps_find_base(maps, "/usr/bin/postgres", &base) == -1);
	UNIT_CHECK(pgwt_maps_find_base(maps, "/dev/zero", &base) == -1);
	UNIT_CHECK(pgwt_maps_find_base("", "/x", &base) == -1);
	UNIT_CHECK(pgwt_maps_find_base("garbage\n\n-\n", "/x", &base) == -1);
}

static void
maps_lowest_mapping_wins(void)
{
	/* mappings listed out of order: the lowest start is the base */
	const char *m =
		"7000-8000 r-xp 00001000 08:01 1 /bin/pg\n"
		"5000-6000 r--p 00000000 08:01 1 /bin/pg\n";
	uint64_t	base;

	UNIT_CHECK(pgwt_maps_find_base(m, "/bin/pg", &base) == 0);
	UNIT_CHECK(base == 0x5000);
}

static void
addr_math(void)
{
	/* PIE with lowest vaddr 0: runtime = value + base */
	UNIT_CHECK(pgwt_runtime_addr(0x884ec8, 0, 0x55d0c1a00000ull) == 0x55d0c2284ec8ull);
	/* lowest PT_LOAD not at 0: subtract its page-aligned vaddr */
	UNIT_CHECK(pgwt_runtime_addr(0x401234, 0x400000, 0x400000) == 0x401234);
	UNIT_CHECK(pgwt_runtime_addr(0x2010, 0x1040, 0x7f0000000000ull) == 0x7f0000001010ull);
	/* image bounds */
	UNIT_CHECK(pgwt_addr_in_image(0x55d0c1a00000ull, 0, 0x8c6aa0, 0x55d0c1a00000ull));
	UNIT_CHECK(pgwt_addr_in_image(0x55d0c1a00000ull + 0x8c6a9f, 0, 0x8c6aa0, 0x55d0c1a00000ull));
	UNIT_CHECK(!pgwt_addr_in_image(0x55d0c1a00000ull + 0x8c6aa0, 0, 0x8c6aa0, 0x55d0c1a00000ull));
	UNIT_CHECK(!pgwt_addr_in_image(0x7f0000000000ull, 0, 0x8c6aa0, 0x55d0c1a00000ull));
}

static void
memscan_finds_and_narrows(void)
{
	uint8_t		buf[64];
	uint64_t	v = 0x1122334455667788ull,
				w = 0x0102030405060708ull;
	int			off[8],
				off2[8],
				n,
				n2;

	memset(buf, 0, sizeof(buf));
	memcpy(buf + 8, &v, 8);
	memcpy(buf + 40, &v, 8);
	memcpy(buf + 20, &v, 8);	/* unaligned copy is ignored */
	n = pgwt_find_u64(buf, sizeof(buf), v, off, 8);
	UNIT_CHECK(n == 2 && off[0] == 8 && off[1] == 40);
	/* second probe: only offset 40 changed to the new value */
	memcpy(buf + 40, &w, 8);
	n2 = pgwt_find_u64(buf, sizeof(buf), w, off2, 8);
	UNIT_CHECK(n2 == 1);
	n = pgwt_offsets_intersect(off, n, off2, n2);
	UNIT_CHECK(n == 1 && off[0] == 40);
	/* short buffer: never reads past it */
	UNIT_CHECK(pgwt_find_u64(buf, 7, 0, off, 8) == 0);
}

void
run_maps_tests(void)
{
	UNIT_RUN(maps_base_exact_path);
	UNIT_RUN(maps_lowest_mapping_wins);
	UNIT_RUN(addr_math);
	UNIT_RUN(memscan_finds_and_narrows);
}
