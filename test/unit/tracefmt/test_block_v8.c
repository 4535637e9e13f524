/*
 * test_block_v8.c
 *		Unit tests of the v8 TRANSITIONS decoder's reuse and bit reading:
 *		one decoder context carried across blocks of every size (as a file
 *		reader does, with a refused block between them) decodes what a
 *		fresh one does; streams ending at every byte length round trip; a
 *		stream one byte short or long is refused.
 */
#include "tf_test.h"
#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

static uint8_t raw[PGWT_TF_PAYLOAD_MAX];
static uint8_t comp[TF_COMPRESSED_MAX];
static uint8_t bad[TF_COMPRESSED_MAX];
static pgwt_record out[PGWT_TF_BLOCK_MAX_RECORDS];
static pgwt_record in[PGWT_TF_BLOCK_MAX_RECORDS];

/* n records of npids backends: waits, markers, misses, deltas up to 2^bits. */
static void
make_block(uint32_t npids, uint32_t n, uint64_t seed, unsigned bits)
{
	uint64_t	ts = 1000000;
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		uint64_t	r = tft_rand(&seed);
		uint32_t	k = (uint32_t) (r % npids);
		uint32_t	ev = (r >> 8) % 4 == 0 ? 0 : 0x0A000000u + (uint32_t) ((r >> 12) % 3);

		if ((r >> 20) % 5 == 0)
			ev = PGWT_MARKER_FIRST + (uint32_t) ((r >> 24) % 13);
		in[i] = tft_transition(ts, 100 + k, (r >> 30) % 7 == 0 ? 0x01000000u : 0, ev,
							   (r >> 34) % 3 ? (r >> 36) % 100000 : 0, (r >> 40) % 4,
							   (r >> 44) % 2 ? PGWT_CPU_UNKNOWN : (r >> 45) % 5000);
		ts += tft_rand(&seed) % (1ull << (1 + (r >> 50) % bits));
	}
}

static int
decode(pgwt_tf_block_header *h, const uint8_t *src, tf_v8_dec **ctx, uint32_t n)
{
	uint32_t	i;
	int			rc;

	if ((rc = tf_block_decode_ctx(8, 0, h, src, raw, out, ctx)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		if (!tft_rec_eq(&out[i], &in[i]))
			return 1000 + (int) i;
	return 0;
}

static void
test_ctx_reused_across_blocks(void)
{
	static const uint32_t sizes[] = {1, 2, 7, 100, 4096, 3, 4096, 1000};
	tf_v8_dec  *ctx = NULL;
	pgwt_tf_block_header h;
	unsigned	round,
				i;
	int			rc;

	for (round = 0; round < 3; round++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		{
			uint32_t	n = sizes[i];

			make_block(1 + (i * 7 + round) % 40, n, 1 + i + 100 * round, 10 + 13 * (i % 4));
			CHECK_RC(tf_block_encode(8, 0, PGWT_TF_BLOCK_TRANSITIONS, 0, in, n, raw, comp, &h));
			CHECKF((rc = decode(&h, comp, &ctx, n)) == 0, "block %u/%u ctx: %d", round, i, rc);
			CHECKF((rc = decode(&h, comp, NULL, n)) == 0, "block %u/%u fresh: %d", round, i, rc);
			/* a refused block in between leaves the context usable */
			memcpy(bad, comp, h.compressed);
			bad[h.compressed / 2] ^= 0x5A;
			h.reserved = tf_checksum16(bad, h.compressed);
			(void) tf_block_decode_ctx(8, 0, &h, bad, raw, out, &ctx);
			h.reserved = tf_checksum16(comp, h.compressed);
		}
	tf_v8_dec_free(ctx);
}

/* The payload p[0..len) as a block: 0 when it decodes to in[0..n). */
static int
decode_len(const uint8_t *p, uint32_t len, uint32_t n, tf_v8_dec **ctx)
{
	pgwt_tf_block_header h = {in[0].ts_ns, in[n - 1].ts_ns, n, len, len,
	PGWT_TF_BLOCK_TRANSITIONS, 0, 0};

	h.reserved = tf_checksum16(p, len);
	return decode(&h, p, ctx, n);
}

static void
test_stream_lengths(void)
{
	tf_v8_dec  *ctx = NULL;
	pgwt_tf_block_header h;
	uint32_t	n;
	int			rc;

	for (n = 1; n <= 80; n++)
	{
		uint32_t	len;

		make_block(1 + n % 5, n, 7 * n, 1 + n % 40);
		CHECK_RC(tf_block_encode(8, 0, PGWT_TF_BLOCK_TRANSITIONS, 0, in, n, raw, comp, &h));
		len = h.compressed;
		CHECKF((rc = decode_len(comp, len, n, &ctx)) == 0, "n %u ctx: %d", n, rc);
		CHECKF((rc = decode_len(comp, len, n, NULL)) == 0, "n %u fresh: %d", n, rc);
		memcpy(bad, comp, len);
		bad[len] = 0;
		CHECKF(decode_len(bad, len + 1, n, &ctx) < 0, "n %u: a spare byte accepted", n);
		CHECKF(decode_len(bad, len - 1, n, &ctx) < 0, "n %u: a short stream accepted", n);
		bad[len - 1] |= 0x80;
		CHECKF(comp[len - 1] & 0x80 || decode_len(bad, len, n, &ctx) != 0,
			   "n %u: a set padding bit read as the same records", n);
		CHECKF((rc = decode_len(comp, len, n, &ctx)) == 0, "n %u after: %d", n, rc);
	}
	tf_v8_dec_free(ctx);
}

int
main(void)
{
	RUN(test_ctx_reused_across_blocks);
	RUN(test_stream_lengths);
	return TFT_END();
}
