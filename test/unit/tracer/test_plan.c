/*
 * test_plan.c
 *		Read planning: merging nearby reads, splitting far ones, the range
 *		limit, and locating each value in the local buffer.
 */
#include "tracer/read_plan.h"
#include "unit.h"

static void
plan_merges_and_locates(void)
{
	/* two arrays: PGPROC-like (stride 880) and status-like (stride 400) */
	pgwt_read reads[8];
	pgwt_span r[4];
	uint64_t	total;
	size_t		nr,
				k = 0;

	for (int i = 0; i < 4; i++)
	{
		reads[k++] = (pgwt_read) {0x7f0000100000ull + 880u * (unsigned) (3 - i) + 12, 4};
		reads[k++] = (pgwt_read) {0x7f0000900000ull + 400u * (unsigned) i + 424, 8};
	}
	nr = pgwt_plan_ranges(reads, k, 4096, r, 4, &total);
	UNIT_CHECK(nr == 2);
	UNIT_CHECK(r[0].addr == 0x7f0000100000ull + 12);
	UNIT_CHECK(r[0].len == 880 * 3 + 4);
	UNIT_CHECK(r[1].addr == 0x7f0000900000ull + 424);
	UNIT_CHECK(r[1].len == 400 * 3 + 8);
	UNIT_CHECK(r[1].buf_off == r[0].len);
	UNIT_CHECK(total == r[0].len + r[1].len);
	/* every read is found at its offset, inside the buffer */
	UNIT_CHECK(pgwt_plan_locate(r, nr, 0x7f0000100000ull + 880 * 2 + 12, 4) == 880 * 2);
	UNIT_CHECK(pgwt_plan_locate(r, nr, 0x7f0000900000ull + 400 * 3 + 424, 8) ==
			   (int64_t) (r[0].len + 400 * 3));
	/* not covered: before, between, straddling the end */
	UNIT_CHECK(pgwt_plan_locate(r, nr, 0x7f0000100000ull, 4) == -1);
	UNIT_CHECK(pgwt_plan_locate(r, nr, 0x7f0000500000ull, 4) == -1);
	UNIT_CHECK(pgwt_plan_locate(r, nr, 0x7f0000900000ull + 400 * 3 + 428, 8) == -1);
}

static void
plan_range_limit(void)
{
	pgwt_read reads[5];
	pgwt_span r[4];
	uint64_t	total;

	for (int i = 0; i < 5; i++)
		reads[i] = (pgwt_read) {0x1000000ull * (unsigned) (i + 1), 4};
	UNIT_CHECK(pgwt_plan_ranges(reads, 5, 4096, r, 4, &total) == 0);
	UNIT_CHECK(pgwt_plan_ranges(reads, 4, 4096, r, 4, &total) == 4);
	UNIT_CHECK(total == 16);
	UNIT_CHECK(pgwt_plan_ranges(reads, 0, 4096, r, 4, &total) == 0 && total == 0);
	/* duplicates and overlaps collapse */
	reads[0] = (pgwt_read) {100, 8};
	reads[1] = (pgwt_read) {100, 4};
	reads[2] = (pgwt_read) {104, 8};
	UNIT_CHECK(pgwt_plan_ranges(reads, 3, 0, r, 4, &total) == 1);
	UNIT_CHECK(r[0].addr == 100 && r[0].len == 12);
}

static void
plan_finds_shared_mapping(void)
{
	const char *maps =
		"55d0c0a00000-55d0c0b00000 r-xp 00001000 08:01 1234   /usr/lib/postgresql/15/bin/postgres\n"
		"7f75fa99d000-7f7603abf000 rw-s 00000000 00:01 17844  /dev/zero (deleted)\n"
		"7f7605e2e000-7f7605e38000 rw-s 00002000 00:1b 6825   /dev/shm/PostgreSQL.1864476274\n"
		"7f7606000000-7f7606100000 rw-p 00000000 00:00 0\n"
		"7f7607672000-7f7607673000 rw-s 00000000 00:01 3833892  /SYSV00a9c005 (deleted)";
	uint64_t	a,
				b,
				off;

	UNIT_CHECK(pgwt_plan_find_shared(maps, 0x7f76036d01c8ull, 0x7f760370e2f8ull + 8, &a, &b, &off) == 0);
	UNIT_CHECK(a == 0x7f75fa99d000ull && b == 0x7f7603abf000ull && off == 0);
	UNIT_CHECK(pgwt_plan_find_shared(maps, 0x7f7605e30000ull, 0x7f7605e30010ull, &a, &b, &off) == 0);
	UNIT_CHECK(off == 0x2000);
	/* the last line has no newline */
	UNIT_CHECK(pgwt_plan_find_shared(maps, 0x7f7607672000ull, 0x7f7607672004ull, &a, &b, &off) == 0);
	/* private, executable, straddling two mappings, nowhere */
	UNIT_CHECK(pgwt_plan_find_shared(maps, 0x7f7606000010ull, 0x7f7606000014ull, &a, &b, &off) == -1);
	UNIT_CHECK(pgwt_plan_find_shared(maps, 0x55d0c0a00010ull, 0x55d0c0a00014ull, &a, &b, &off) == -1);
	UNIT_CHECK(pgwt_plan_find_shared(maps, 0x7f7603abeff0ull, 0x7f7603abf010ull, &a, &b, &off) == -1);
	UNIT_CHECK(pgwt_plan_find_shared(maps, 0x1000ull, 0x1004ull, &a, &b, &off) == -1);
	UNIT_CHECK(pgwt_plan_find_shared("", 0x1000ull, 0x1004ull, &a, &b, &off) == -1);
}

void
run_plan_tests(void)
{
	UNIT_RUN(plan_merges_and_locates);
	UNIT_RUN(plan_range_limit);
	UNIT_RUN(plan_finds_shared_mapping);
}
