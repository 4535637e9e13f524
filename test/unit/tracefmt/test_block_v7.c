/*
 * test_block_v7.c
 *		Unit tests of v7 TRANSITIONS payloads (v6's model with the ts deltas
 *		and code bytes in a Huffman-coded bit stream): round trips of
 *		chains, of every kind of miss, of extreme and skewed deltas (the
 *		11-bit code length limit), the block's ts unit, and rejection of each
 *		malformed structure the spec forbids; the same for v7 SAMPLES
 *		payloads (pid steps, change list, tables).
 */
#include "tf_test.h"
#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

static uint8_t raw[PGWT_TF_PAYLOAD_MAX];
static uint8_t comp[TF_COMPRESSED_MAX];
static pgwt_record out[PGWT_TF_BLOCK_MAX_RECORDS];
static pgwt_record in[PGWT_TF_BLOCK_MAX_RECORDS];

/* Encodes in[0..n) as version v and decodes it; 0 when equal. */
static int
roundtrip(uint16_t v, uint32_t n, uint16_t flags, pgwt_tf_block_header *h)
{
	uint32_t	i;

	if (tf_block_encode(v, flags, PGWT_TF_BLOCK_TRANSITIONS, 0, in, n, raw, comp, h) < 0)
		return -1;
	if (tf_block_decode(v, flags, h, comp, raw, out) < 0)
		return -2;
	for (i = 0; i < n; i++)
		if (!tft_rec_eq(&out[i], &in[i]))
			return -3 - (int) i;
	return 0;
}

/* Backends alternating between CPU and one wait; ts steps of 1..maxstep. */
static void
make_chains(uint32_t npids, uint32_t n, uint64_t seed, uint64_t maxstep, uint64_t unit)
{
	uint64_t	last_ts[64] = {0};
	uint32_t	state[64] = {0};
	uint64_t	ts = 1000000 * unit;
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		uint32_t	k = (uint32_t) (tft_rand(&seed) % npids);
		uint32_t	next = state[k] == 0 ? 0x0A000001 : 0;
		uint64_t	dur = last_ts[k] ? ts - last_ts[k] : 0;

		in[i] = tft_transition(ts, 100 + k, state[k], next, dur, 7 + k / 4,
							   PGWT_CPU_UNKNOWN);
		state[k] = next;
		last_ts[k] = ts;
		ts += (1 + tft_rand(&seed) % maxstep) * unit;
	}
}

static void
test_chains_smaller_than_v6(void)
{
	pgwt_tf_block_header h6,
				h7;
	uint32_t	n = 4096;
	int			rc;

	/* microsecond-scale ns deltas: v6 spends two LEB128 bytes on each */
	make_chains(8, n, 5, 20000, 1);
	CHECKF((rc = roundtrip(6, n, 0, &h6)) == 0, "v6 rc %d", rc);
	CHECKF((rc = roundtrip(7, n, 0, &h7)) == 0, "v7 rc %d", rc);
	CHECKF(h7.uncompressed < h6.uncompressed, "v7 %u bytes, v6 %u",
		   h7.uncompressed, h6.uncompressed);
	/* 8 pids + a 14-bit-ish ts: well under 3 bytes per record */
	CHECKF(h7.uncompressed < 3 * n, "%u bytes for %u records", h7.uncompressed, n);
	CHECKF((rc = roundtrip(7, n, 1, &h7)) == 0, "lz4 rc %d", rc);
	printf("# v7 chained records: %.2f bytes each (v6 %.2f)\n",
		   (double) h7.uncompressed / n, (double) h6.uncompressed / n);
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

	make_chains(40, n, 11, 100, 1);
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
	}
	for (flags = 0; flags <= 1; flags++)
		CHECKF((rc = roundtrip(7, n, flags, &h)) == 0, "flags %u: rc %d", flags, rc);
	CHECKF((rc = roundtrip(7, 1, 1, &h)) == 0, "one record: rc %d", rc);
	for (i = 0; i < 300; i++)
		in[i] = tft_transition(5 + i, 1000 + i, i, i * 3, i, i, i);
	CHECKF((rc = roundtrip(7, 300, 1, &h)) == 0, "300 pids: rc %d", rc);
	/* every record at the same instant: one ts symbol, unit 1 */
	for (i = 0; i < 50; i++)
		in[i].ts_ns = 77;
	CHECKF((rc = roundtrip(7, 50, 0, &h)) == 0, "equal ts: rc %d", rc);
}

/*
 * Deltas of every bit length (up to 63 bits, whose raw part needs two
 * reads), with geometric frequencies: an unlimited Huffman tree would be
 * deeper than 11.
 */
static void
test_extreme_and_skewed_deltas(void)
{
	pgwt_tf_block_header h;
	uint64_t	seed = 7;
	uint64_t	ts = 0;
	uint32_t	n = PGWT_TF_BLOCK_MAX_RECORDS;
	uint32_t	i;
	int			rc;

	make_chains(8, n, 3, 10, 1);
	for (i = 0; i < n; i++)
	{
		uint64_t	r = tft_rand(&seed);
		unsigned	bits = (unsigned) __builtin_ctzll(r | (1ull << 40));	/* geometric */
		uint64_t	d = (tft_rand(&seed) | 1) >> (63 - bits);

		if (i < 60)				/* a few of every length, 63 bits too */
			d = (tft_rand(&seed) | (1ull << 62)) >> (i % 60);
		if (d > (UINT64_MAX >> 1) - ts)
			d = 1;
		ts += i ? d : 0;
		in[i].ts_ns = ts;
		in[i].duration_ns = tft_rand(&seed);
	}
	CHECKF((rc = roundtrip(7, n, 0, &h)) == 0, "rc %d", rc);
	/* the limit was reached: some ts symbol got an 11-bit code */
	{
		const uint8_t *p = raw;
		uint64_t	unit,
					a,
					s;
		unsigned	maxlen = 0;

		CHECK(tf_get_leb(&p, raw + h.uncompressed, &unit) == 0 &&
			  tf_get_leb(&p, raw + h.uncompressed, &a) == 0);
		for (s = 0; s < a; s++)
			if (((p[s / 2] >> (4 * (s & 1))) & 15) > maxlen)
				maxlen = (p[s / 2] >> (4 * (s & 1))) & 15;
		CHECKF(maxlen == 11, "longest ts code %u bits", maxlen);
	}
	CHECKF((rc = roundtrip(7, n, 1, &h)) == 0, "lz4 rc %d", rc);
}

/* Deltas that share a factor are stored in units of it. */
static void
test_unit(void)
{
	pgwt_tf_block_header h1,
				hu;
	const uint8_t *p;
	uint64_t	unit;
	uint32_t	n = 4096;
	int			rc;

	make_chains(8, n, 5, 500, 1);
	CHECKF((rc = roundtrip(7, n, 0, &h1)) == 0, "rc %d", rc);
	p = raw;
	CHECK(tf_block_encode(7, 0, PGWT_TF_BLOCK_TRANSITIONS, 0, in, n, raw, comp, &h1) == 0);
	CHECK(tf_get_leb(&p, raw + h1.uncompressed, &unit) == 0 && unit == 1);
	make_chains(8, n, 5, 500, 1000);
	CHECKF((rc = roundtrip(7, n, 0, &hu)) == 0, "rc %d", rc);
	p = raw;
	CHECK(tf_get_leb(&p, raw + hu.uncompressed, &unit) == 0 && unit == 1000);
	/* the same sequence in microseconds costs no more than in ns units */
	CHECKF(hu.uncompressed <= h1.uncompressed + 2, "unit 1000: %u bytes, unit 1: %u",
		   hu.uncompressed, h1.uncompressed);
}

/*
 * A raw v7 payload of three records at ts 10, 11, 12 of pid 500, all
 * predicted (code 0): unit, ts table (symbols 0 and 1, one bit each),
 * code table (symbol 0, one bit), stream length, the stream, then v6's
 * tables and column lengths. Parts are passed in to damage one at a time.
 */
static size_t
build(uint8_t *p, const uint8_t *unit, size_t unit_len, const uint8_t *tt, size_t tt_len,
	  const uint8_t *ct, size_t ct_len, const uint8_t *stream, size_t stream_len)
{
	size_t		o = 0;
	int			c;

	memcpy(p + o, unit, unit_len);
	o += unit_len;
	memcpy(p + o, tt, tt_len);
	o += tt_len;
	memcpy(p + o, ct, ct_len);
	o += ct_len;
	p[o++] = (uint8_t) stream_len;
	memcpy(p + o, stream, stream_len);
	o += stream_len;
	p[o++] = 1;					/* one pid */
	tf_put_u32(p + o, 500);
	o += 4;
	p[o++] = 0;					/* no events */
	p[o++] = 0;					/* no query ids */
	for (c = 0; c < 7; c++)
		p[o++] = 0;				/* empty exception columns */
	return o;
}

static int
decode_raw(const uint8_t *p, size_t len, uint64_t last_ts)
{
	pgwt_tf_block_header h = {10, last_ts, 3, (uint32_t) len, (uint32_t) len,
	PGWT_TF_BLOCK_TRANSITIONS, 0, 0};
	uint8_t		hb[PGWT_TF_BLOCK_HEADER_SIZE];
	pgwt_tf_block_header g;

	h.reserved = tf_checksum16(p, len);
	tf_block_header_encode(&h, hb);
	if (tf_block_header_decode(hb, 7, 0, &g) < 0)
		return 1;				/* refused before the payload */
	return tf_block_decode(7, 0, &g, p, raw, out);
}

static void
test_malformed_refused(void)
{
	uint8_t		p[512];
	const uint8_t u1[1] = {1};
	const uint8_t tt[2] = {2, 0x11};	/* symbols 0, 1: codes 0, 1 */
	const uint8_t ct[2] = {1, 0x01};	/* symbol 0: code 0 */
	/* record bits (ts code, code byte code): 0 0, 1 0, 1 0 -> 0b010100 */
	const uint8_t st[1] = {0x14};
	size_t		len;

	len = build(p, u1, 1, tt, 2, ct, 2, st, 1);
	CHECK(decode_raw(p, len, 12) == 0);
	CHECK(out[0].ts_ns == 10 && out[1].ts_ns == 11 && out[2].ts_ns == 12 &&
		  out[2].pid == 500 && out[2].duration_ns == 1 && out[2].old_event == 0);

	/* unit 0; a unit that carries a ts past last_ts */
	{
		const uint8_t u0[1] = {0};
		const uint8_t ubig[2] = {0x80, 0x01};	/* 128 */

		len = build(p, u0, 1, tt, 2, ct, 2, st, 1);
		CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
		len = build(p, ubig, 2, tt, 2, ct, 2, st, 1);
		CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
	}
	/* a ts past last_ts */
	len = build(p, u1, 1, tt, 2, ct, 2, st, 1);
	CHECK(decode_raw(p, len, 11) == -PGWT_TF_BAD_PAYLOAD);
	/* code tables: empty, too many symbols, a length over 11,
	 * over-subscribed, a stray high nibble after an odd count */
	{
		uint8_t		t[200];

		t[0] = 0;
		len = build(p, u1, 1, t, 1, ct, 2, st, 1);
		CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
		t[0] = 0xFD;			/* 253 ts symbols */
		t[1] = 0x01;
		memset(t + 2, 0x11, 126);
		len = build(p, u1, 1, t, 2 + 126, ct, 2, st, 1);
		CHECK(decode_raw(p, len, 12) != 0);
		t[0] = 2;
		t[1] = 0xC1;			/* symbol 1: 12 bits */
		len = build(p, u1, 1, t, 2, ct, 2, st, 1);
		CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
		t[0] = 3;
		t[1] = 0x11;
		t[2] = 0x01;			/* three one-bit codes */
		len = build(p, u1, 1, t, 3, ct, 2, st, 1);
		CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
		t[0] = 1;
		t[1] = 0x21;
		len = build(p, u1, 1, tt, 2, t, 2, st, 1);
		CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
	}
	/* stream: a code the table does not have (code byte bit 1 of
	 * record 0), non-zero padding, a byte too many, too short */
	{
		const uint8_t s_nocode[1] = {0x16};
		const uint8_t s_pad[1] = {0x54};
		const uint8_t s_long[2] = {0x14, 0};

		len = build(p, u1, 1, tt, 2, ct, 2, s_nocode, 1);
		CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
		len = build(p, u1, 1, tt, 2, ct, 2, s_pad, 1);
		CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
		len = build(p, u1, 1, tt, 2, ct, 2, s_long, 2);
		CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
		len = build(p, u1, 1, tt, 2, ct, 2, st, 0);
		CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
	}
	/* the v6 part after the stream is checked as in v6 */
	len = build(p, u1, 1, tt, 2, ct, 2, st, 1);
	p[len - 7] = 1;				/* pid escape column of one byte, none there */
	CHECK(decode_raw(p, len, 12) == -PGWT_TF_BAD_PAYLOAD);
}

/* Encodes in[0..n) as SAMPLES of version v and decodes it; 0 when equal. */
static int
roundtrip_samples(uint16_t v, uint32_t n, uint16_t flags, uint64_t period,
				  pgwt_tf_block_header *h)
{
	uint32_t	i;

	if (tf_block_encode(v, flags, PGWT_TF_BLOCK_SAMPLES, period, in, n, raw, comp, h) < 0)
		return -1;
	if (tf_block_decode(v, flags, h, comp, raw, out) < 0)
		return -2;
	for (i = 0; i < n; i++)
		if (!tft_rec_eq(&out[i], &in[i]))
			return -3 - (int) i;
	return 0;
}

/* Ticks of npids backends; each tick a backend changes event with
 * probability 1/chg (and query id half as often); order shuffled at times. */
static uint32_t
make_ticks(uint32_t npids, uint32_t n, uint64_t seed, uint32_t chg, bool shuffle)
{
	uint32_t	ev[256],
				order[256];
	uint64_t	q[256];
	uint64_t	ts = 5000000000ull;
	uint32_t	i = 0,
				k;

	for (k = 0; k < npids; k++)
	{
		ev[k] = k % 3 ? 0x06000000 : 0;
		q[k] = 1000 + k;
		order[k] = k;
	}
	while (i < n)
	{
		uint64_t	w = 100000000 + tft_rand(&seed) % 4000000 - 2000000;

		if (shuffle && tft_rand(&seed) % 4 == 0)
			for (k = npids; k-- > 1;)
			{
				uint32_t	x = (uint32_t) (tft_rand(&seed) % (k + 1)),
							t = order[k];

				order[k] = order[x];
				order[x] = t;
			}
		for (k = 0; k < npids && i < n; k++, i++)
		{
			uint32_t	b = order[k];

			if (tft_rand(&seed) % chg == 0)
				ev[b] = (uint32_t) (tft_rand(&seed) % 5) * 0x01000000;
			if (tft_rand(&seed) % (2 * chg) == 0)
				q[b] = tft_rand(&seed);
			in[i] = tft_sample(ts, 7000 + 3 * b, ev[b], q[b], w);
		}
		ts += w;
	}
	return n;
}

static void
test_samples_roundtrip(void)
{
	pgwt_tf_block_header h6,
				h7;
	uint32_t	n = PGWT_TF_BLOCK_MAX_RECORDS;
	uint16_t	flags;
	int			rc;

	/* 200 backends, 5% changing per tick: smaller than v6 with LZ4 */
	make_ticks(200, n, 1, 20, false);
	CHECKF((rc = roundtrip_samples(6, n, 1, 100000000, &h6)) == 0, "v6 rc %d", rc);
	CHECKF((rc = roundtrip_samples(7, n, 1, 100000000, &h7)) == 0, "v7 rc %d", rc);
	CHECKF(h7.compressed < h6.compressed, "v7 %u bytes, v6 %u", h7.compressed, h6.compressed);
	printf("# v7 samples: %.3f bytes each with LZ4 (v6 %.3f)\n",
		   (double) h7.compressed / n, (double) h6.compressed / n);
	/* shuffled order, every field changing, extreme pids and weights */
	make_ticks(256, n, 2, 1, true);
	in[5].pid = 0;
	in[6].pid = UINT32_MAX;
	in[7].weight_ns = 0;
	in[8].weight_ns = INT64_MAX;
	for (flags = 0; flags <= 1; flags++)
		CHECKF((rc = roundtrip_samples(7, n, flags, 100000000, &h7)) == 0,
			   "flags %u rc %d", flags, rc);
	CHECKF((rc = roundtrip_samples(7, 1, 1, 0, &h7)) == 0, "one sample rc %d", rc);
	/* a weight beyond int64 is refused, not written */
	in[0].weight_ns = (uint64_t) INT64_MAX + 1;
	CHECK(tf_block_encode(7, 1, PGWT_TF_BLOCK_SAMPLES, 0, in, 1, raw, comp, &h7) < 0);
}

/*
 * A raw v7 SAMPLES payload of pids 500, 501, 500 at ts 10, 11, 12 in
 * ClientRead (period 10, weights 10): ts deltas, pid table (zigzag
 * deltas), steps, one change (record 0's event, a new table entry), event
 * table and indexes, query table and indexes, weights.
 */
static const uint8_t samples_ok[] = {
	0, 1, 1,					/* ts deltas */
	2, 0xE8, 0x07, 2,			/* pids 500, 501 */
	0, 0, 0,					/* steps: in order */
	1, 0x01,					/* one change: gap 0, event */
	1, 0x00, 0x00, 0x00, 0x06,	/* event table: Client:ClientRead */
	0,							/* its index: the next new entry */
	0,							/* no query table */
	0, 0, 0						/* weights = period */
};

static int
decode_samples(const uint8_t *p, size_t len)
{
	pgwt_tf_block_header h = {10, 12, 3, (uint32_t) len, (uint32_t) len,
	PGWT_TF_BLOCK_SAMPLES, 0, 10};
	uint8_t		hb[PGWT_TF_BLOCK_HEADER_SIZE];
	pgwt_tf_block_header g;

	h.reserved = tf_checksum16(p, len);
	tf_block_header_encode(&h, hb);
	if (tf_block_header_decode(hb, 7, 0, &g) < 0)
		return 1;
	return tf_block_decode(7, 0, &g, p, raw, out);
}

/* samples_ok with byte at o replaced by v (or removed when v < 0). */
static int
decode_samples_with(size_t o, int v)
{
	uint8_t		p[64];
	size_t		len = sizeof(samples_ok);

	memcpy(p, samples_ok, len);
	if (v < 0)
		memmove(p + o, p + o + 1, --len - o);
	else
		p[o] = (uint8_t) v;
	return decode_samples(p, len);
}

static void
test_samples_malformed_refused(void)
{
	uint8_t		p[64];

	CHECK(decode_samples(samples_ok, sizeof(samples_ok)) == 0);
	CHECK(out[0].pid == 500 && out[1].pid == 501 && out[2].pid == 500 &&
		  out[0].new_event == 0x06000000 && out[1].new_event == 0x06000000 &&
		  out[2].new_event == 0x06000000 && out[2].query_id == 0 &&
		  out[2].weight_ns == 10 && out[2].kind == PGWT_REC_SAMPLE);
	/* a pid below 0; a step past the table */
	CHECK(decode_samples_with(4, 0x03) == -PGWT_TF_BAD_PAYLOAD);	/* zigzag -2 */
	CHECK(decode_samples_with(8, 2) == -PGWT_TF_BAD_PAYLOAD);
	/* a change with nothing changed; one past the last record; too many */
	CHECK(decode_samples_with(11, 0x00) == -PGWT_TF_BAD_PAYLOAD);
	CHECK(decode_samples_with(11, 3 << 2 | 1) == -PGWT_TF_BAD_PAYLOAD);
	CHECK(decode_samples_with(10, 4) == -PGWT_TF_BAD_PAYLOAD);
	/* an event index that is neither new nor seen; a marker as event */
	CHECK(decode_samples_with(17, 1) == -PGWT_TF_BAD_PAYLOAD);
	memcpy(p, samples_ok, sizeof(samples_ok));
	tf_put_u32(p + 13, PGWT_MARKER_FIRST);
	CHECK(decode_samples(p, sizeof(samples_ok)) == -PGWT_TF_BAD_PAYLOAD);
	/* more table entries than records; a negative weight (period 10) */
	CHECK(decode_samples_with(12, 4) == -PGWT_TF_BAD_PAYLOAD);
	CHECK(decode_samples_with(21, 21) == -PGWT_TF_BAD_PAYLOAD);
	/* a byte left over, a byte missing */
	memcpy(p, samples_ok, sizeof(samples_ok));
	p[sizeof(samples_ok)] = 0;
	CHECK(decode_samples(p, sizeof(samples_ok) + 1) != 0);
	CHECK(decode_samples_with(sizeof(samples_ok) - 1, -1) != 0);
}

/*
 * A code's lookup table against its definition: entry j of the 2^bits
 * is the one symbol whose reversed code is j's low len bits (found here
 * by search over the symbols, not by the decoder's fill), 0 where no
 * code is (an incomplete code's gaps); for complete codes from random
 * frequencies and for codes with symbols taken out.
 */
static void
test_table_matches_codes(void)
{
	uint32_t	seed = 12345;
	int			round;

	for (round = 0; round < 400; round++)
	{
		uint32_t	freq[256],
					rev[256];
		uint8_t		len[256],
					buf[200];
		const uint8_t *q = buf;
		unsigned	nsym = 1 + round % 256,
					s,
					j,
					bits = 0,
					filled = 0;
		tf_v7_table t,
					tt;

		for (s = 0; s < nsym; s++)
		{
			seed = seed * 1103515245u + 12345u;
			/* skewed: some symbols absent, a few very frequent */
			freq[s] = (seed >> 16) % 7 == 0 ? 0 : 1u << ((seed >> 8) % 20);
		}
		freq[0] += 1;
		tf_v7_code_lengths(freq, nsym, len);
		if (round % 3 == 1)
			for (s = 0; s < nsym; s += 3)
				len[s] = 0;		/* an incomplete code */
		for (s = 0; s < nsym; s++)
			bits = len[s] > bits ? len[s] : bits;
		if (bits == 0)
			continue;
		CHECK(tf_v7_canonical(len, nsym, rev) == 0);
		(void) tf_v7_put_lengths(buf, len, nsym);
		CHECK_RC(tf_v7_get_table(&q, buf + sizeof(buf), 256, false, &t));
		q = buf;
		CHECK_RC(tf_v7_get_table(&q, buf + sizeof(buf), 256, true, &tt));
		CHECKF(t.bits == bits, "round %d: bits %u, want %u", round, t.bits, bits);
		for (j = 0; j < (1u << bits); j++)
		{
			uint32_t	want = 0;

			for (s = 0; s < nsym; s++)
				if (len[s] && (j & ((1u << len[s]) - 1)) == rev[s])
				{
					CHECKF(want == 0, "round %d: entry %u has two codes", round, j);
					want = (uint32_t) s << 10 | len[s];
				}
			CHECKF(t.e[j] == want, "round %d: entry %u is %#x, want %#x",
				   round, j, t.e[j], want);
			CHECKF((tt.e[j] & 15) == (want & 15) && (tt.e[j] == 0) == (want == 0),
				   "round %d: ts entry %u is %#x", round, j, tt.e[j]);
			filled += want != 0;
		}
		CHECK(filled > 0);
	}
}

int
main(void)
{
	RUN(test_chains_smaller_than_v6);
	RUN(test_every_miss_roundtrips);
	RUN(test_extreme_and_skewed_deltas);
	RUN(test_unit);
	RUN(test_table_matches_codes);
	RUN(test_malformed_refused);
	RUN(test_samples_roundtrip);
	RUN(test_samples_malformed_refused);
	return TFT_END();
}
