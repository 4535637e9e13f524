/*
 * test_block.c
 *		Unit tests of the pure codec: little-endian and LEB128 helpers,
 *		file and block headers, block round trips for every type, version
 *		and field extreme, and decoding of damaged payloads.
 */
#include "tf_test.h"
#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

static uint8_t raw[PGWT_TF_PAYLOAD_MAX];
static uint8_t comp[TF_COMPRESSED_MAX];
static uint8_t damaged[TF_COMPRESSED_MAX];
static pgwt_record out[PGWT_TF_BLOCK_MAX_RECORDS];
static pgwt_record in[PGWT_TF_BLOCK_MAX_RECORDS];

static void
test_le_helpers(void)
{
	uint8_t		b[8];

	tf_put_u16(b, 0xBEEF);
	CHECK(b[0] == 0xEF && b[1] == 0xBE && tf_get_u16(b) == 0xBEEF);
	tf_put_u32(b, PGWT_TF_MAGIC);
	CHECK(memcmp(b, "PGWT", 4) == 0 && tf_get_u32(b) == PGWT_TF_MAGIC);
	tf_put_u64(b, 0x0102030405060708ull);
	CHECK(b[0] == 8 && b[7] == 1 && tf_get_u64(b) == 0x0102030405060708ull);
}

static void
test_leb128(void)
{
	uint64_t	vals[] = {0, 1, 127, 128, 255, 16383, 16384, UINT32_MAX,
	(uint64_t) 1 << 63, UINT64_MAX - 1, UINT64_MAX};
	size_t		lens[] = {1, 1, 1, 2, 2, 2, 3, 5, 10, 10, 10};
	uint8_t		b[16];
	size_t		i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
	{
		const uint8_t *p = b;
		uint64_t	v;
		size_t		n = tf_put_leb(b, vals[i]);

		CHECKF(n == lens[i], "len of %llu = %zu", (unsigned long long) vals[i], n);
		CHECK(tf_get_leb(&p, b + n, &v) == 0 && v == vals[i] && p == b + n);
		/* every strict prefix is a truncation */
		p = b;
		CHECK(n == 1 || tf_get_leb(&p, b + n - 1, &v) < 0);
	}
	/* 11 bytes, and a 10th byte carrying bits beyond 64, are refused */
	{
		uint8_t		over[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
		uint8_t		big[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
		const uint8_t *p = over;
		uint64_t	v;

		CHECK(tf_get_leb(&p, over + 11, &v) < 0);
		p = big;
		CHECK(tf_get_leb(&p, big + 10, &v) < 0);
	}
	CHECK(tf_unzigzag(tf_zigzag(INT64_MIN)) == INT64_MIN);
	CHECK(tf_unzigzag(tf_zigzag(-1)) == -1 && tf_zigzag(-1) == 1 && tf_zigzag(1) == 2);
}

static void
test_file_header(void)
{
	pgwt_tf_file_header h = {3, PGWT_TF_FLAG_LZ4, 150004, 1700000000123456789ull, 42};
	pgwt_tf_file_header g;
	uint8_t		b[PGWT_TF_FILE_HEADER_SIZE];

	tf_file_header_encode(&h, b);
	CHECK(tf_file_header_decode(b, &g) == 0);
	CHECK(g.version == 3 && g.flags == 1 && g.pg_version == 150004 &&
		  g.start_realtime_ns == h.start_realtime_ns && g.start_monotonic_ns == 42);
	/* byte positions are the published ones */
	CHECK(tf_get_u16(b + 4) == 3 && tf_get_u32(b + 8) == 150004 && tf_get_u64(b + 20) == 42);
	b[0] ^= 1;
	CHECK(tf_file_header_decode(b, &g) == -PGWT_TF_BAD_MAGIC);
	b[0] ^= 1;
	tf_put_u16(b + 4, 1);
	CHECK(tf_file_header_decode(b, &g) == -PGWT_TF_BAD_VERSION);
	tf_put_u16(b + 4, PGWT_TF_VERSION_MAX + 1);
	CHECK(tf_file_header_decode(b, &g) == -PGWT_TF_BAD_VERSION);
	tf_put_u16(b + 4, 4);
	tf_put_u16(b + 6, 2);
	CHECK(tf_file_header_decode(b, &g) == -PGWT_TF_BAD_HEADER);
}

static void
test_block_header_validation(void)
{
	pgwt_tf_block_header h = {10, 20, 5, 50, 5 * 22, 0, 0, 0};
	pgwt_tf_block_header g;
	uint8_t		b[PGWT_TF_BLOCK_HEADER_SIZE];

	tf_block_header_encode(&h, b);
	CHECK(tf_block_header_decode(b, 2, 1, &g) == 0);
	CHECK(g.first_ts == 10 && g.last_ts == 20 && g.n == 5 && g.compressed == 50);
	h.n = 0;
	tf_block_header_encode(&h, b);
	CHECK(tf_block_header_decode(b, 2, 1, &g) == -PGWT_TF_BAD_BLOCK);
	h.n = PGWT_TF_BLOCK_MAX_RECORDS + 1;
	h.uncompressed = h.n * 22;
	tf_block_header_encode(&h, b);
	CHECK(tf_block_header_decode(b, 2, 1, &g) == -PGWT_TF_BAD_BLOCK);
	h.n = 5;
	h.uncompressed = 5 * 22;
	h.type = 2;
	tf_block_header_encode(&h, b);
	CHECK(tf_block_header_decode(b, 2, 1, &g) == -PGWT_TF_BAD_BLOCK);
	h.type = 0;
	h.first_ts = 21;
	tf_block_header_encode(&h, b);
	/* the seed tool's v2/v3 headers hold the first and last records' ts
	 * in write order: only a v4+ header is refused for it */
	CHECK(tf_block_header_decode(b, 2, 1, &g) == 0);
	h.uncompressed = 5 * 27;
	tf_block_header_encode(&h, b);
	CHECK(tf_block_header_decode(b, 4, 1, &g) == -PGWT_TF_BAD_BLOCK);
	h.uncompressed = 5 * 22;
	h.first_ts = 10;
	h.uncompressed = 5 * 22 - 1;	/* below the smallest possible payload */
	tf_block_header_encode(&h, b);
	CHECK(tf_block_header_decode(b, 2, 1, &g) == -PGWT_TF_BAD_BLOCK);
	h.uncompressed = 5 * 22;
	h.compressed = 100000;		/* beyond LZ4's bound for that payload */
	tf_block_header_encode(&h, b);
	CHECK(tf_block_header_decode(b, 2, 1, &g) == -PGWT_TF_BAD_BLOCK);
	h.compressed = 50;
	h.type = 1;					/* a sample period beyond int64 is garbage */
	h.uncompressed = 5 * 17;
	h.sample_period_ns = (uint64_t) INT64_MAX + 1;
	tf_block_header_encode(&h, b);
	CHECK(tf_block_header_decode(b, 2, 1, &g) == -PGWT_TF_BAD_BLOCK);
	h.sample_period_ns = INT64_MAX;
	tf_block_header_encode(&h, b);
	CHECK(tf_block_header_decode(b, 2, 1, &g) == 0);
	h.type = 0;
	h.uncompressed = 5 * 22;
	h.sample_period_ns = 0;
	/* raw payloads: sizes must agree */
	tf_block_header_encode(&h, b);
	CHECK(tf_block_header_decode(b, 2, 0, &g) == -PGWT_TF_BAD_BLOCK);
}

/* Encodes in[0..n) and decodes it back; compares with expect[]. */
static int
roundtrip(uint16_t version, uint16_t flags, uint16_t type, uint64_t period,
		  uint32_t n, const pgwt_record *expect)
{
	pgwt_tf_block_header h,
				g;
	uint8_t		hb[PGWT_TF_BLOCK_HEADER_SIZE];
	uint32_t	i;

	if (tf_block_encode(version, flags, type, period, in, n, raw, comp, &h) < 0)
		return -1;
	tf_block_header_encode(&h, hb);
	if (tf_block_header_decode(hb, version, flags, &g) < 0)
		return -2;
	if (tf_block_decode(version, flags, &g, comp, raw, out) < 0)
		return -3;
	for (i = 0; i < n; i++)
		if (!tft_rec_eq(&out[i], &expect[i]))
			return -4 - (int) i;
	return 0;
}

static void
test_roundtrip_transitions_extremes(void)
{
	static pgwt_record expect[8];
	uint64_t	big = UINT64_MAX - 10;
	uint16_t	v;
	uint16_t	flags;

	in[0] = tft_transition(0, 0, 0, 0, 0, 0, 0);
	in[1] = tft_transition(0, UINT32_MAX, UINT32_MAX, PGWT_EVENT_EXIT, UINT64_MAX, UINT64_MAX, PGWT_CPU_UNKNOWN);
	in[2] = tft_transition(big, 1, 0x0A000001, PGWT_MARKER_EXEC_START, 1, 1, 1);
	in[3] = tft_transition(big, 2, 0x01000000, PGWT_MARKER_ESC_START, 127, 1ull << 63, 128);
	in[4] = tft_transition(UINT64_MAX, 3, 0, PGWT_MARKER_CMD_END, 128, 42, 0);
	for (v = 2; v <= PGWT_TF_VERSION_MAX; v++)
		for (flags = 0; flags <= 1; flags++)
		{
			int			i,
						rc;

			memcpy(expect, in, sizeof(pgwt_record) * 5);
			for (i = 0; i < 5; i++)
				if (v < 3)
					expect[i].cpu_ns = PGWT_CPU_UNKNOWN;	/* no cpu column */
			rc = roundtrip(v, flags, PGWT_TF_BLOCK_TRANSITIONS, 0, 5, expect);
			CHECKF(rc == 0, "v%u flags %u: %d", v, flags, rc);
		}
}

static void
test_roundtrip_samples_extremes(void)
{
	static pgwt_record expect[8];
	uint64_t	period = 10000000;
	uint16_t	v;

	in[0] = tft_sample(5, 0, 0, 0, period);
	in[1] = tft_sample(6, UINT32_MAX, PGWT_MARKER_FIRST - 1, UINT64_MAX, 0);
	in[2] = tft_sample(7, 7, 0x06000000, 1, period * 3 + 17);
	in[3] = tft_sample(UINT64_MAX, 8, 0x0A000001, 2, INT64_MAX);
	for (v = 2; v <= PGWT_TF_VERSION_MAX; v++)
	{
		int			i,
					rc;

		memcpy(expect, in, sizeof(pgwt_record) * 4);
		for (i = 0; i < 4; i++)
			if (v < 4)
				expect[i].weight_ns = period;	/* no weight column */
		rc = roundtrip(v, PGWT_TF_FLAG_LZ4, PGWT_TF_BLOCK_SAMPLES, period, 4, expect);
		CHECKF(rc == 0, "v%u: %d", v, rc);
	}
	/* markers cannot be samples */
	in[0].new_event = PGWT_MARKER_EXEC_START;
	{
		pgwt_tf_block_header h;

		CHECK(tf_block_encode(4, 1, PGWT_TF_BLOCK_SAMPLES, period, in, 1, raw, comp, &h) == 0);
		CHECK(tf_block_decode(4, 1, &h, comp, raw, out) == -PGWT_TF_BAD_PAYLOAD);
	}
}

static void
test_roundtrip_full_random(void)
{
	uint64_t	seed = 12345;
	uint64_t	ts = 1000;
	uint32_t	n = PGWT_TF_BLOCK_MAX_RECORDS;
	uint32_t	i;
	int			rc;

	for (i = 0; i < n; i++)
	{
		ts += tft_rand(&seed) % 100000;
		in[i] = tft_transition(ts, 1000 + (uint32_t) (tft_rand(&seed) % 50),
							   (uint32_t) tft_rand(&seed), (uint32_t) tft_rand(&seed),
							   tft_rand(&seed) >> (tft_rand(&seed) % 64),
							   tft_rand(&seed), tft_rand(&seed) >> 20);
	}
	rc = roundtrip(4, 1, PGWT_TF_BLOCK_TRANSITIONS, 0, n, in);
	CHECKF(rc == 0, "rc %d", rc);
	/* out of order input is refused by the pure encoder (the writer sorts) */
	in[5].ts_ns = 0;
	{
		pgwt_tf_block_header h;

		CHECK(tf_block_encode(4, 1, 0, 0, in, n, raw, comp, &h) == -PGWT_TF_ORDER);
	}
}

/*
 * Damage every byte of a compressed block (and the raw payload of an
 * uncompressed one): decoding must fail cleanly or produce records whose
 * values respect the header (ts within [first_ts, last_ts]).
 */
static void
test_damaged_payloads(void)
{
	pgwt_tf_block_header h;
	uint32_t	n = 64;
	uint32_t	i,
				k;
	uint16_t	flags;
	uint16_t	v;

	for (i = 0; i < n; i++)
		in[i] = tft_transition(1000 + i * 7, 1 + i % 3, i, i + 1, i * 1000, i, i);
	for (v = 3; v <= PGWT_TF_VERSION_MAX; v++)
		for (flags = 0; flags <= 1; flags++)
		{
			uint64_t	ok = 0,
						bad = 0;

			CHECK(tf_block_encode(v, flags, 0, 0, in, n, raw, comp, &h) == 0);
			for (k = 0; k < h.compressed; k++)
			{
				uint8_t		bits[] = {0x01, 0x80, 0xff};
				size_t		b;

				for (b = 0; b < sizeof(bits); b++)
				{
					memcpy(damaged, comp, h.compressed);
					damaged[k] ^= bits[b];
					if (tf_block_decode(v, flags, &h, damaged, raw, out) < 0)
					{
						bad++;
						continue;
					}
					ok++;
					for (i = 0; i < n; i++)
						CHECKF(out[i].ts_ns >= h.first_ts && out[i].ts_ns <= h.last_ts &&
							   out[i].kind == PGWT_REC_TRANSITION,
							   "byte %u: record %u out of range", k, i);
				}
			}
			/* v4's checksum catches these single-byte changes */
			CHECKF(v < 4 ? bad > 0 : ok == 0, "v%u flags %u: %llu decoded", v, flags,
				   (unsigned long long) ok);
			printf("# damaged v%u %s payloads: %llu refused, %llu decoded within range\n",
				   v, flags ? "lz4" : "raw", (unsigned long long) bad, (unsigned long long) ok);
		}
}

static void
test_checksum16(void)
{
	/* reference values computed by test/golden/golden.py (independent) */
	CHECKF(tf_checksum16((const uint8_t *) "123456789", 9) == 0x0580, "got %04x",
		   tf_checksum16((const uint8_t *) "123456789", 9));
	CHECKF(tf_checksum16((const uint8_t *) "", 0) == 0x0000, "got %04x",
		   tf_checksum16((const uint8_t *) "", 0));
}

static void
test_strerror_table(void)
{
	CHECK(strcmp(pgwt_tf_strerror(0), "success") == 0);
	CHECK(strcmp(pgwt_tf_strerror(-PGWT_TF_LZ4), "LZ4 decompression failed") == 0);
	CHECK(strcmp(pgwt_tf_strerror(PGWT_TF_LZ4), pgwt_tf_strerror(-PGWT_TF_LZ4)) == 0);
	CHECK(strstr(pgwt_tf_strerror(-9999), "unknown") != NULL);
}

int
main(void)
{
	RUN(test_le_helpers);
	RUN(test_leb128);
	RUN(test_file_header);
	RUN(test_block_header_validation);
	RUN(test_roundtrip_transitions_extremes);
	RUN(test_roundtrip_samples_extremes);
	RUN(test_roundtrip_full_random);
	RUN(test_damaged_payloads);
	RUN(test_checksum16);
	RUN(test_strerror_table);
	return TFT_END();
}
