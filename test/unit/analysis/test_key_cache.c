/*
 * test_key_cache.c
 *		How the engine's key cache spreads keys over its sets
 *		(engine_key_set, analysis/engine_internal.h): the keys of a trace
 *		are structured (a few pids in a row, a few event ids differing in
 *		their class byte, query ids that may be small integers), and a
 *		set that three keys share makes them evict each other on every
 *		record of theirs. The bounds hold what a uniform hash gives for
 *		800 keys in 2,048 sets (about 660 sets used, a dozen of three).
 */
#include "analysis/engine_internal.h"
#include "unit.h"

#define KC_SETS (1u << ENGINE_KEY_CACHE_SET_BITS)

static const uint32_t kc_events[] = {0x00000000u, 0x0A000001u, 0x01000000u, 0x03000004u, 0x06000000u};

/* 8 backends x 5 events x 20 queries: sets used, the fullest, sets of 3+ */
static void
kc_spread(uint32_t pid0, bool small_queries, unsigned *used, unsigned *fullest, unsigned *crowded)
{
	static uint16_t load[KC_SETS];
	uint64_t	rng = 0x243F6A8885A308D3ull;
	uint64_t	qid[20];

	memset(load, 0, sizeof(load));
	for (int q = 0; q < 20; q++)
	{
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		qid[q] = small_queries ? (uint64_t) q + 1 : rng;
	}
	for (uint32_t pid = pid0; pid < pid0 + 8; pid++)
		for (size_t e = 0; e < sizeof(kc_events) / sizeof(kc_events[0]); e++)
			for (int q = 0; q < 20; q++)
				load[engine_key_set((uint64_t) pid << 32 | kc_events[e], qid[q])]++;
	*used = *fullest = *crowded = 0;
	for (unsigned s = 0; s < KC_SETS; s++)
	{
		*used += load[s] > 0;
		*crowded += load[s] >= 3;
		if (load[s] > *fullest)
			*fullest = load[s];
	}
}

/* pgwt-synth's keys: pids 1001.., query ids 1..20 (the old hash: 555
 * sets, 42 of three or four) */
static void
test_small_query_ids_spread(void)
{
	unsigned	used,
				fullest,
				crowded;

	kc_spread(1001, true, &used, &fullest, &crowded);
	EXPECT(used >= 640);
	EXPECT(fullest <= 3);
	EXPECT(crowded <= 16);
	kc_spread(20001, true, &used, &fullest, &crowded);
	EXPECT(used >= 640);
	EXPECT(crowded <= 16);
}

/* pg_stat_statements' query ids: 64-bit hashes */
static void
test_hashed_query_ids_spread(void)
{
	unsigned	used,
				fullest,
				crowded;

	kc_spread(1001, false, &used, &fullest, &crowded);
	EXPECT(used >= 640);
	EXPECT(fullest <= 4);
	EXPECT(crowded <= 20);
}

int
main(void)
{
	RUN(test_small_query_ids_spread);
	RUN(test_hashed_query_ids_spread);
	return unit_failures ? 1 : 0;
}
