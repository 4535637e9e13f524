/*
 * test_block_v8.c
 *		Unit tests of the v8 TRANSITIONS decoder's reuse and bit reading:
 *		one decoder context carried across blocks of every size (as a file
 *		reader does, with a refused block between them) decodes what a
 *		fresh one does; streams ending at every byte length round trip; a
 *		stream one byte short or long is refused. With skip_cpu, a block
 *		decodes to what was encoded with cpu_ns unknown, and a payload
 *		with any one byte changed is refused exactly when the decoder that
 *		reads every cpu value refuses it. With a shift, each record's ts
 *		is the encoded one plus the shift, modulo 2^64 (one that wraps
 *		inside the block too), the other fields unchanged.
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

	if ((rc = tf_block_decode_ctx(8, 0, h, src, raw, out, ctx, false, 0)) < 0)
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
			(void) tf_block_decode_ctx(8, 0, &h, bad, raw, out, &ctx, false, 0);
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

/* in[0..n) with cpu values of every LEB length (1 to 10 bytes). */
static void
make_cpu_block(uint32_t n, uint64_t seed)
{
	make_block(1 + seed % 9, n, seed, 20);
	for (uint32_t i = 0; i < n; i++)
		if (in[i].cpu_ns != PGWT_CPU_UNKNOWN && i % 3 == 0)
			in[i].cpu_ns = tft_rand(&seed) >> (i % 64);
}

/* Decode payload [p, end) of in[0..n) with skip_cpu or not into out. */
static int
decode_raw(const uint8_t *p, const uint8_t *end, uint32_t n, bool skip_cpu, tf_v8_dec **ctx)
{
	return tf_decode_transitions_v8(&p, end, n, in[0].ts_ns, in[n - 1].ts_ns, out, ctx,
									skip_cpu, 0);
}

static void
test_skip_cpu(void)
{
	static pgwt_record ref[PGWT_TF_BLOCK_MAX_RECORDS];
	tf_v8_dec  *ctx = NULL;
	uint64_t	seed = 99;
	unsigned	round;

	for (round = 0; round < 40; round++)
	{
		uint32_t	n = 1 + (uint32_t) (tft_rand(&seed) % 300);
		uint8_t    *end;
		size_t		len;
		int			rc;

		make_cpu_block(n, 1000 + round);
		end = tf_encode_transitions_v8(in, n, raw);
		CHECK(end != NULL);
		if (end == NULL)
			continue;
		len = (size_t) (end - raw);
		/* known truth: what was encoded, cpu_ns unknown */
		CHECKF((rc = decode_raw(raw, end, n, true, &ctx)) == 0, "round %u: %d", round, rc);
		for (uint32_t i = 0; rc == 0 && i < n; i++)
		{
			pgwt_record want = in[i];

			want.cpu_ns = PGWT_CPU_UNKNOWN;
			CHECKF(tft_rec_eq(&out[i], &want), "round %u record %u", round, i);
		}
		/* every byte changed once: refused by both or by neither, and
		 * the same records where accepted */
		for (size_t at = 0; at < len; at++)
		{
			uint8_t		keep = raw[at];
			int			a,
						b;

			raw[at] ^= (uint8_t) (1u << (at % 8)) | (at % 3 == 0 ? 0x80 : 0);
			a = decode_raw(raw, raw + len, n, false, &ctx);
			memcpy(ref, out, n * sizeof(pgwt_record));
			b = decode_raw(raw, raw + len, n, true, &ctx);
			CHECKF((a < 0) == (b < 0), "round %u byte %zu: %d vs %d skipping", round, at, a, b);
			for (uint32_t i = 0; a == 0 && b == 0 && i < n; i++)
			{
				ref[i].cpu_ns = PGWT_CPU_UNKNOWN;
				CHECKF(tft_rec_eq(&out[i], &ref[i]), "round %u byte %zu record %u", round, at, i);
			}
			raw[at] = keep;
		}
	}
	tf_v8_dec_free(ctx);
}

static void
test_shift(void)
{
	static const uint64_t shifts[] = {1, 0x17A2B3C4D5E6F708ull, UINT64_MAX - 1500000};
	tf_v8_dec  *ctx = NULL;

	for (unsigned round = 0; round < 24; round++)
	{
		uint32_t	n = 1 + round * 97 % 700;
		uint64_t	shift = shifts[round % 3];
		const uint8_t *p = raw;
		uint8_t    *end;
		int			rc;

		make_cpu_block(n, 500 + round);
		end = tf_encode_transitions_v8(in, n, raw);
		CHECK(end != NULL);
		if (end == NULL)
			continue;
		rc = tf_decode_transitions_v8(&p, end, n, in[0].ts_ns, in[n - 1].ts_ns, out, &ctx,
									  round % 2 == 0, shift);
		CHECKF(rc == 0, "round %u: %d", round, rc);
		for (uint32_t i = 0; rc == 0 && i < n; i++)
		{
			pgwt_record want = in[i];

			want.ts_ns = in[i].ts_ns + shift;	/* known truth: modulo 2^64 */
			if (round % 2 == 0)
				want.cpu_ns = PGWT_CPU_UNKNOWN;
			CHECKF(tft_rec_eq(&out[i], &want), "round %u record %u", round, i);
		}
	}
	tf_v8_dec_free(ctx);
}

int
main(void)
{
	RUN(test_ctx_reused_across_blocks);
	RUN(test_stream_lengths);
	RUN(test_skip_cpu);
	RUN(test_shift);
	return TFT_END();
}
