/*
 * test_seed_layout.c
 *		Unit tests of reading v2/v3 blocks as the seed tool writes them
 *		(tracefmt/seed_layout.c): the first ts delta from 0, records out of
 *		time order with wrapping deltas, a header whose first_ts is above
 *		its last_ts, the seed's marker conventions; and the header's
 *		pg_version rule.
 */
#include "tf_test.h"
#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

static uint8_t raw[PGWT_TF_PAYLOAD_MAX];
static pgwt_record out[PGWT_TF_BLOCK_MAX_RECORDS];

typedef struct seed_rec
{
	uint64_t	ts;
	uint32_t	pid,
				old_ev,
				new_ev;
	uint64_t	dur,
				qid,
				cpu;
} seed_rec;

/* A raw (no LZ4) v3 TRANSITIONS payload written the seed's way. */
static size_t
seed_payload(const seed_rec *r, uint32_t n, uint8_t *p, pgwt_tf_block_header *h)
{
	uint8_t    *s = p;
	uint64_t	prev = 0;
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		p += tf_put_leb(p, r[i].ts - prev);	/* wraps when older */
		prev = r[i].ts;
	}
	for (i = 0; i < n; i++, p += 4)
		tf_put_u32(p, r[i].pid);
	for (i = 0; i < n; i++, p += 4)
		tf_put_u32(p, r[i].old_ev);
	for (i = 0; i < n; i++, p += 4)
		tf_put_u32(p, r[i].new_ev);
	for (i = 0; i < n; i++)
		p += tf_put_leb(p, r[i].dur);
	for (i = 0; i < n; i++, p += 8)
		tf_put_u64(p, r[i].qid);
	for (i = 0; i < n; i++)
		p += tf_put_leb(p, r[i].cpu);
	memset(h, 0, sizeof(*h));
	h->first_ts = r[0].ts;
	h->last_ts = r[n - 1].ts;
	h->n = n;
	h->compressed = h->uncompressed = (uint32_t) (p - s);
	h->type = PGWT_TF_BLOCK_TRANSITIONS;
	return (size_t) (p - s);
}

static void
test_unsorted_block(void)
{
	/* lock_chains_01 of the seed's own scenarios, in its write order */
	static const seed_rec r[] = {
		{10000010000000, 1000, 0, 0x03000008, 10000000, 100, UINT64_MAX},
		{10000020000000, 1000, 0, 0x0A000015, 10000000, 100, UINT64_MAX},
		{10000008000000, 1001, 0x03000008, 0, 7000000, 100, UINT64_MAX},
		{10000010000000, 1001, 0, 0x0A000015, 2000000, 100, UINT64_MAX},
		{10000005000000, 1002, 0x0A000015, 0, 5000000, 100, UINT64_MAX},
		{10000007000000, 1002, 0, 0x0A000015, 2000000, 100, UINT64_MAX},
		{10000006000000, 1003, 0x0A000015, 0, 4000000, 100, UINT64_MAX},
		{10000008000000, 1003, 0, 0x0A000015, 2000000, 100, UINT64_MAX},
	};
	uint8_t		buf[1024];
	uint8_t		hb[PGWT_TF_BLOCK_HEADER_SIZE];
	pgwt_tf_block_header h,
				g;
	uint64_t	sum = 0;
	uint32_t	i;

	seed_payload(r, 8, buf, &h);
	tf_block_header_encode(&h, hb);
	CHECK(tf_block_header_decode(hb, 3, 0, &g) == 0);
	CHECK_RC(tf_block_decode(3, 0, &g, buf, raw, out));
	for (i = 0; i < 8; i++)
	{
		CHECK(i == 0 || out[i - 1].ts_ns <= out[i].ts_ns);
		sum += out[i].duration_ns;
	}
	CHECK(out[0].ts_ns == 10000005000000 && out[0].pid == 1002);
	CHECK(out[7].ts_ns == 10000020000000 && out[7].pid == 1000);
	/* equal instants keep the writer's order: pid 1000 before 1001 */
	CHECK(out[5].pid == 1000 && out[6].pid == 1001);
	CHECK(sum == 42000000);
}

static void
test_markers(void)
{
	static const seed_rec r[] = {
		{9999995000000, 0, 0xFFFFFFF4, 0xFFFFFFF4, 0, (60 << 8) | 1, UINT64_MAX},
		{9999998000000, 1000, 0xFFFFFFF2, 0, 0, 100, 0},
		{10000010000000, 1000, 0x0A000015, 0, 10000000, 100, 0},
		{10000070000000, 0, 0xFFFFFFF5, 0xFFFFFFF5, 0, (60 << 8) | 2, UINT64_MAX},
	};
	uint8_t		buf[1024];
	pgwt_tf_block_header h;

	seed_payload(r, 4, buf, &h);
	CHECK_RC(tf_block_decode(3, 0, &h, buf, raw, out));
	CHECK(out[0].new_event == PGWT_MARKER_ESC_START);
	CHECK(out[0].old_event == PGWT_ESC_CODE_ANOMALY);
	CHECK(out[0].duration_ns == 60000000000ull && out[0].query_id == 0);
	/* a marker id in old only is still a marker, never a CPU* span */
	CHECK(out[1].new_event == PGWT_MARKER_PLAN_START && out[1].old_event == 0);
	CHECK(out[2].old_event == 0x0A000015 && out[2].duration_ns == 10000000);
	CHECK(out[3].new_event == PGWT_MARKER_ESC_END && out[3].query_id == 0);
	CHECK(out[3].duration_ns == 60000000000ull);
}

static void
test_our_layout_unchanged(void)
{
	/* our v3 writer: sorted, first delta 0; read as before */
	pgwt_record in[3];
	uint8_t		comp[TF_COMPRESSED_MAX];
	pgwt_tf_block_header h;
	uint32_t	i;

	memset(in, 0, sizeof(in));
	for (i = 0; i < 3; i++)
	{
		in[i].kind = PGWT_REC_TRANSITION;
		in[i].ts_ns = 5000 + 1000 * i;
		in[i].pid = 7;
		in[i].old_event = i == 1 ? 0xFFFFFFF2u : 0;	/* ours: old is not a marker */
		in[i].new_event = 0x0A000015;
		in[i].duration_ns = 10;
		in[i].cpu_ns = PGWT_CPU_UNKNOWN;
	}
	CHECK_RC(tf_block_encode(3, 0, PGWT_TF_BLOCK_TRANSITIONS, 0, in, 3, raw, comp, &h));
	CHECK_RC(tf_block_decode(3, 0, &h, comp, raw, out));
	for (i = 0; i < 3; i++)
		CHECK(out[i].ts_ns == in[i].ts_ns && out[i].old_event == in[i].old_event &&
			  out[i].new_event == in[i].new_event);
}

static void
test_damaged_seed_block(void)
{
	static const seed_rec r[] = {
		{10000010000000, 1000, 0, 0x03000008, 10000000, 100, UINT64_MAX},
		{10000008000000, 1001, 0x03000008, 0, 7000000, 100, UINT64_MAX},
	};
	uint8_t		buf[1024];
	pgwt_tf_block_header h;

	seed_payload(r, 2, buf, &h);
	/* a header whose last_ts the deltas do not reach is refused */
	h.last_ts += 1;
	CHECK(tf_block_decode(3, 0, &h, buf, raw, out) < 0);
}

static void
test_pg_major(void)
{
	CHECK(pgwt_tf_pg_major(0) == 0);
	CHECK(pgwt_tf_pg_major(18) == 18);
	CHECK(pgwt_tf_pg_major(150004) == 15);
	CHECK(pgwt_tf_pg_major(180001) == 18);
	CHECK(pgwt_tf_pg_major(90603) == 9);
}

int
main(void)
{
	RUN(test_unsorted_block);
	RUN(test_markers);
	RUN(test_our_layout_unchanged);
	RUN(test_damaged_seed_block);
	RUN(test_pg_major);
	return TFT_END();
}
