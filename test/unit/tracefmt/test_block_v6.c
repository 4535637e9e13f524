/*
 * test_block_v6.c
 *		Unit tests of v6 TRANSITIONS payloads (predicted fields, tables,
 *		exception columns): round trips of every kind of miss, the size of
 *		a record that continues its backend's chain, and rejection of each
 *		malformed structure the spec forbids.
 */
#include "tf_test.h"
#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

static uint8_t raw[PGWT_TF_PAYLOAD_MAX];
static uint8_t comp[TF_COMPRESSED_MAX];
static pgwt_record out[PGWT_TF_BLOCK_MAX_RECORDS];
static pgwt_record in[PGWT_TF_BLOCK_MAX_RECORDS];

/* Encodes in[0..n) raw (no LZ4) as v6 and decodes it; 0 when equal. */
static int
roundtrip_v6(uint32_t n, uint16_t flags, pgwt_tf_block_header *h)
{
	uint32_t	i;

	if (tf_block_encode(6, flags, PGWT_TF_BLOCK_TRANSITIONS, 0, in, n, raw, comp, h) < 0)
		return -1;
	if (tf_block_decode(6, flags, h, comp, raw, out) < 0)
		return -2;
	for (i = 0; i < n; i++)
		if (!tft_rec_eq(&out[i], &in[i]))
			return -3 - (int) i;
	return 0;
}

/* Backends alternating between CPU and one wait, as real traces do. */
static uint32_t
make_chains(uint32_t npids, uint32_t n, uint64_t seed, bool cpu_known)
{
	uint64_t	last_ts[64] = {0};
	uint32_t	state[64] = {0};
	uint64_t	ts = 1000000;
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		uint32_t	k = (uint32_t) (tft_rand(&seed) % npids);
		uint32_t	next = state[k] == 0 ? 0x0A000001 : 0;
		uint64_t	dur = last_ts[k] ? ts - last_ts[k] : 0;

		in[i] = tft_transition(ts, 100 + k, state[k], next, dur, 7 + k / 4,
							   cpu_known ? (state[k] == 0 ? dur : 0) : PGWT_CPU_UNKNOWN);
		state[k] = next;
		last_ts[k] = ts;
		ts += 1 + tft_rand(&seed) % 100;	/* one-byte deltas */
	}
	return n;
}

static void
test_chain_costs_two_bytes(void)
{
	pgwt_tf_block_header h;
	uint32_t	n = 4096;
	int			rc;

	/* 8 backends, every field predicted: ts + code byte + small tables */
	make_chains(8, n, 5, false);
	rc = roundtrip_v6(n, 0, &h);
	CHECKF(rc == 0, "rc %d", rc);
	CHECKF(h.uncompressed < 2 * n + 200, "%u bytes for %u chained records",
		   h.uncompressed, n);
	/* CPU known, equal to the time on CPU: still no exception bytes */
	make_chains(8, n, 6, true);
	rc = roundtrip_v6(n, 0, &h);
	CHECKF(rc == 0, "rc %d", rc);
	CHECKF(h.uncompressed < 3 * n + 200, "%u bytes with cpu known", h.uncompressed);
	printf("# v6 chained records: %.2f bytes each uncompressed\n",
		   (double) h.uncompressed / n);
}

static void
test_every_miss_roundtrips(void)
{
	pgwt_tf_block_header h;
	uint64_t	seed = 99;
	uint32_t	n = PGWT_TF_BLOCK_MAX_RECORDS;
	uint32_t	i;
	uint16_t	flags;
	int			rc;

	/* 40 pids (escaped indexes), random fields, markers and exits */
	make_chains(40, n, 11, true);
	for (i = 0; i < n; i++)
	{
		uint64_t	r = tft_rand(&seed);

		if (r % 7 == 0)
			in[i].old_event = (uint32_t) tft_rand(&seed);
		if (r % 11 == 0)
			in[i].new_event = PGWT_MARKER_FIRST + (uint32_t) (tft_rand(&seed) % 15);
		if (r % 13 == 0)
			in[i].new_event = PGWT_EVENT_EXIT;
		if (r % 5 == 0)
			in[i].duration_ns = tft_rand(&seed);
		if (r % 3 == 0)
			in[i].query_id = tft_rand(&seed);
		if (r % 17 == 0)
			in[i].cpu_ns = tft_rand(&seed);
		if (r % 19 == 0)
			in[i].cpu_ns = PGWT_CPU_UNKNOWN;
	}
	for (flags = 0; flags <= 1; flags++)
	{
		rc = roundtrip_v6(n, flags, &h);
		CHECKF(rc == 0, "flags %u: rc %d", flags, rc);
	}
	/* one record, one pid, blocks of single pids */
	rc = roundtrip_v6(1, 1, &h);
	CHECKF(rc == 0, "one record: rc %d", rc);
	for (i = 0; i < 300; i++)
		in[i] = tft_transition(5 + i, 1000 + i, i, i * 3, i, i, i);
	rc = roundtrip_v6(300, 1, &h);
	CHECKF(rc == 0, "300 pids: rc %d", rc);
}

/*
 * Payload of a raw v6 block for three hand-chosen records, to damage one
 * structure at a time. Layout (TRACE_FORMAT.md 3.1.2): ts deltas, codes,
 * pid table, event table, query table, seven column lengths, columns.
 */
static size_t
build(uint8_t *p, const uint8_t *codes, uint32_t np, uint32_t ne, uint32_t nq,
	  const uint8_t lens[7], const uint8_t *cols, size_t ncols)
{
	size_t		o = 0;
	uint32_t	i;

	for (i = 0; i < 3; i++)
		p[o++] = i ? 1 : 0;		/* ts 10, 11, 12 */
	memcpy(p + o, codes, 3);
	o += 3;
	p[o++] = (uint8_t) np;
	for (i = 0; i < np; i++, o += 4)
		tf_put_u32(p + o, 500 + i);
	p[o++] = (uint8_t) ne;
	for (i = 0; i < ne; i++, o += 4)
		tf_put_u32(p + o, 0x0A000000 + i);
	p[o++] = (uint8_t) nq;
	for (i = 0; i < nq; i++, o += 8)
		tf_put_u64(p + o, 42 + i);
	memcpy(p + o, lens, 7);
	o += 7;
	memcpy(p + o, cols, ncols);
	return o + ncols;
}

static int
decode_raw(const uint8_t *p, size_t len)
{
	pgwt_tf_block_header h = {10, 12, 3, (uint32_t) len, (uint32_t) len,
	PGWT_TF_BLOCK_TRANSITIONS, 0, 0};
	uint8_t		hb[PGWT_TF_BLOCK_HEADER_SIZE];
	pgwt_tf_block_header g;

	h.reserved = tf_checksum16(p, len);
	tf_block_header_encode(&h, hb);
	if (tf_block_header_decode(hb, 6, 0, &g) < 0)
		return 1;				/* refused before the payload */
	return tf_block_decode(6, 0, &g, p, raw, out);
}

static void
test_malformed_refused(void)
{
	uint8_t		p[512];
	const uint8_t ok_codes[3] = {0, 1, 0x10};	/* pid 0, pid 1, pid 0 new explicit */
	const uint8_t lens0[7] = {0, 0, 0, 1, 0, 0, 0};
	uint8_t		col[4] = {1};
	size_t		len;

	/* the well-formed base decodes, with the predicted values */
	len = build(p, ok_codes, 2, 2, 0, lens0, col, 1);
	CHECK(decode_raw(p, len) == 0);
	CHECK(out[0].pid == 500 && out[1].pid == 501 && out[2].pid == 500 &&
		  out[0].old_event == 0 && out[0].new_event == 0 &&
		  out[2].new_event == 0x0A000001 && out[2].duration_ns == 2 &&
		  out[2].query_id == 0 && out[2].cpu_ns == PGWT_CPU_UNKNOWN);

	/* event index past the table */
	col[0] = 2;
	len = build(p, ok_codes, 2, 2, 0, lens0, col, 1);
	CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
	col[0] = 1;
	/* pid index past the table */
	{
		const uint8_t c[3] = {0, 2, 0x10};

		len = build(p, c, 2, 2, 0, lens0, col, 1);
		CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
	}
	/* escaped pid index that had an inline code */
	{
		const uint8_t c[3] = {0, 15, 0};
		const uint8_t l[7] = {1, 0, 0, 0, 0, 0, 0};
		uint8_t		e[1] = {1};

		len = build(p, c, 2, 2, 0, l, e, 1);
		CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
	}
	/* extra byte zero, or with reserved bits */
	{
		const uint8_t c[3] = {0, 0x80, 0};
		const uint8_t l[7] = {0, 1, 0, 0, 0, 0, 0};
		uint8_t		e[1] = {0};

		len = build(p, c, 2, 2, 0, l, e, 1);
		CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
		e[0] = 0x04;
		len = build(p, c, 2, 2, 0, l, e, 1);
		CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
		e[0] = 0x02;			/* a duration residual with no value */
		len = build(p, c, 2, 2, 0, l, e, 1);
		CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
	}
	/* column lengths not filling the payload, or a column left over */
	{
		const uint8_t l[7] = {0, 0, 0, 2, 0, 0, 0};
		uint8_t		e[2] = {1, 1};

		len = build(p, ok_codes, 2, 2, 0, l, e, 1);
		CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
		len = build(p, ok_codes, 2, 2, 0, l, e, 2);
		CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
	}
	/* empty pid table; tables larger than the block allows */
	len = build(p, ok_codes, 0, 2, 0, lens0, col, 1);
	CHECK(decode_raw(p, len) != 0);
	len = build(p, ok_codes, 4, 2, 0, lens0, col, 1);
	CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
	len = build(p, ok_codes, 2, 7, 0, lens0, col, 1);
	CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
	len = build(p, ok_codes, 2, 2, 4, lens0, col, 1);
	CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
	/* query index past the table */
	{
		const uint8_t c[3] = {0x20, 0, 0};
		const uint8_t l[7] = {0, 0, 0, 0, 0, 1, 0};
		uint8_t		e[1] = {1};

		len = build(p, c, 1, 0, 1, l, e, 1);
		CHECK(decode_raw(p, len) == -PGWT_TF_BAD_PAYLOAD);
		e[0] = 0;
		len = build(p, c, 1, 0, 1, l, e, 1);
		CHECK(decode_raw(p, len) == 0 && out[0].query_id == 42 && out[2].query_id == 42);
	}
}

int
main(void)
{
	RUN(test_chain_costs_two_bytes);
	RUN(test_every_miss_roundtrips);
	RUN(test_malformed_refused);
	return TFT_END();
}
