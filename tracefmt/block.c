/*
 * block.c
 *		Pure codec of the trace format: file header, block header, and one
 *		block's columnar payload <-> pgwt_record arrays. No I/O here, so
 *		every rule is unit-tested and fuzzed without files.
 *
 * Payload columns (docs/TRACE_FORMAT.md, "Block payloads"):
 *	 TRANSITIONS: ts delta LEB128, pid u32, old u32, new u32, duration LEB128,
 *				  query_id u64, cpu_ns LEB128 (v3+)
 *	 SAMPLES:	  ts delta LEB128, pid u32, event u32, query_id u64,
 *				  zigzag(weight_ns - sample_period_ns) LEB128 (v4+)
 * Timestamps are deltas from the previous record, the first from first_ts.
 * In v4 the block header's reserved u16 carries a checksum of the stored
 * payload (v2/v3 writers leave it 0 and readers ignore it there). v5
 * TRANSITIONS columns are predicted below; v6 ones live in block_v6.c.
 */
#include <string.h>

#include <lz4.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

/*
 * Block checksum (v4): a position-sensitive sum over 64-bit little-endian
 * words (a += w; b += a, both mod 2^64; the last partial word is
 * zero-padded), each sum scrambled by the 64-bit murmur3 finalizer and
 * folded to 16 bits:
 *	 h = fmix(a) ^ fmix(b ^ len);  h ^= h >> 32;  h ^= h >> 16
 * Chosen over a CRC for speed: two additions per 8 bytes keeps it far
 * below the cost of decoding (a table CRC-16 took more than half of it).
 */
static uint64_t
tf_fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

uint16_t
tf_checksum16(const uint8_t *p, size_t len)
{
	uint64_t	a = 0,
				b = 0,
				h;
	size_t		i = 0;

	/* four words a step: b gains 4a plus the words' running sums */
	for (; i + 32 <= len; i += 32)
	{
		uint64_t	s1 = tf_get_u64(p + i),
					s2 = s1 + tf_get_u64(p + i + 8),
					s3 = s2 + tf_get_u64(p + i + 16),
					s4 = s3 + tf_get_u64(p + i + 24);

		b += 4 * a + s1 + s2 + s3 + s4;
		a += s4;
	}
	for (; i + 8 <= len; i += 8)
	{
		a += tf_get_u64(p + i);
		b += a;
	}
	if (i < len)
	{
		uint8_t		tail[8] = {0};

		memcpy(tail, p + i, len - i);
		a += tf_get_u64(tail);
		b += a;
	}
	h = tf_fmix64(a) ^ tf_fmix64(b ^ (uint64_t) len);
	h ^= h >> 32;
	h ^= h >> 16;
	return (uint16_t) h;
}

void
tf_file_header_encode(const pgwt_tf_file_header *h, uint8_t *out)
{
	tf_put_u32(out, PGWT_TF_MAGIC);
	tf_put_u16(out + 4, h->version);
	tf_put_u16(out + 6, h->flags);
	tf_put_u32(out + 8, h->pg_version);
	tf_put_u64(out + 12, h->start_realtime_ns);
	tf_put_u64(out + 20, h->start_monotonic_ns);
}

int
tf_file_header_decode(const uint8_t *in, pgwt_tf_file_header *h)
{
	if (tf_get_u32(in) != PGWT_TF_MAGIC)
		return -PGWT_TF_BAD_MAGIC;
	h->version = tf_get_u16(in + 4);
	h->flags = tf_get_u16(in + 6);
	h->pg_version = tf_get_u32(in + 8);
	h->start_realtime_ns = tf_get_u64(in + 12);
	h->start_monotonic_ns = tf_get_u64(in + 20);
	if (h->version < PGWT_TF_VERSION_MIN || h->version > PGWT_TF_VERSION_MAX)
		return -PGWT_TF_BAD_VERSION;
	/* Unknown flag bits would change the meaning of the payload. */
	if (h->flags & ~PGWT_TF_FLAG_LZ4)
		return -PGWT_TF_BAD_HEADER;
	return 0;
}

void
tf_block_header_encode(const pgwt_tf_block_header *h, uint8_t *out)
{
	tf_put_u64(out, h->first_ts);
	tf_put_u64(out + 8, h->last_ts);
	tf_put_u32(out + 16, h->n);
	tf_put_u32(out + 20, h->compressed);
	tf_put_u32(out + 24, h->uncompressed);
	tf_put_u16(out + 28, h->type);
	tf_put_u16(out + 30, h->reserved);
	tf_put_u64(out + 32, h->sample_period_ns);
}

static size_t
tf_record_min_bytes(uint16_t version, uint16_t type)
{
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 7)
		return 0;				/* two bits in the stream, at least */
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 6)
		return 1 + 1;			/* ts, code */
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 5)
		return 1 + 4 + 4 + 1 + 1 + 1 + 1;	/* ts pid new old dur qcode cpu */
	if (type == PGWT_TF_BLOCK_TRANSITIONS)
		return 1 + 4 + 4 + 4 + 1 + 8 + (version >= 3 ? 1 : 0);
	if (version >= 7)
		return 1 + 1 + 1;		/* ts, pid step, weight */
	return 1 + 4 + 4 + 8 + (version >= 4 ? 1 : 0);
}

size_t
tf_record_max_bytes(uint16_t version, uint16_t type)
{
	/* ts code pid+escape extra old(event+index) new dur query(id+index) cpu;
	 * in v7 ts and code take at most 11 + 61 + 11 bits: no more */
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 6)
		return 10 + 1 + 4 + 2 + 1 + 6 + 6 + 10 + 10 + 10;
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 5)
		return 10 + 4 + 4 + 5 + 10 + 1 + 8 + 10;
	if (type == PGWT_TF_BLOCK_TRANSITIONS)
		return 10 + 4 + 4 + 4 + 10 + 8 + (version >= 3 ? 10 : 0);
	/* v7: ts, step, change, pid+event+query table entries and indexes, weight */
	if (version >= 7)
		return 10 + 2 + 3 + 5 + 4 + 2 + 8 + 2 + 10;
	return 10 + 4 + 4 + 8 + (version >= 4 ? 10 : 0);
}

size_t
tf_block_fixed_max_bytes(uint16_t version, uint16_t type)
{
	/* v6 TRANSITIONS: three table counts (2 B) and seven lengths (3 B) */
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 8)
		return 3 * 2 + 7 * 3 + 2 * 10 + 18 * (2 + 128);	/* + two units, 18 code tables */
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 7)
		return 3 * 2 + 7 * 3 + 10 + 2 * (2 + 128) + 3;	/* + unit, two code tables, stream length */
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 6)
		return 3 * 2 + 7 * 3;
	if (type == PGWT_TF_BLOCK_SAMPLES && version >= 7)
		return 4 * 2;			/* three table counts, the change count */
	return 0;
}

int
tf_block_header_decode(const uint8_t *in, uint16_t version, uint16_t flags,
					   pgwt_tf_block_header *h)
{
	h->first_ts = tf_get_u64(in);
	h->last_ts = tf_get_u64(in + 8);
	h->n = tf_get_u32(in + 16);
	h->compressed = tf_get_u32(in + 20);
	h->uncompressed = tf_get_u32(in + 24);
	h->type = tf_get_u16(in + 28);
	h->reserved = tf_get_u16(in + 30);
	h->sample_period_ns = tf_get_u64(in + 32);

	if (h->type != PGWT_TF_BLOCK_TRANSITIONS && h->type != PGWT_TF_BLOCK_SAMPLES)
		return -PGWT_TF_BAD_BLOCK;
	if (h->n < 1 || h->n > PGWT_TF_BLOCK_MAX_RECORDS)
		return -PGWT_TF_BAD_BLOCK;
	/* the seed tool's v2/v3 headers hold the first and last records' ts,
	 * in the order written (seed_layout.c); the payload is checked then */
	if (h->first_ts > h->last_ts && version > 3)
		return -PGWT_TF_BAD_BLOCK;
	/* a sample's weight is the period in v2/v3: keep it a valid int64 */
	if (h->type == PGWT_TF_BLOCK_SAMPLES && h->sample_period_ns > INT64_MAX)
		return -PGWT_TF_BAD_BLOCK;
	if (h->uncompressed < h->n * tf_record_min_bytes(version, h->type) ||
		h->uncompressed > h->n * tf_record_max_bytes(version, h->type) +
		tf_block_fixed_max_bytes(version, h->type) ||
		h->uncompressed > PGWT_TF_PAYLOAD_MAX)
		return -PGWT_TF_BAD_BLOCK;
	if (flags & PGWT_TF_FLAG_LZ4)
	{
		if (h->compressed < 1 ||
			h->compressed > (uint32_t) LZ4_compressBound((int) h->uncompressed))
			return -PGWT_TF_BAD_BLOCK;
	}
	else if (h->compressed != h->uncompressed)
		return -PGWT_TF_BAD_BLOCK;
	return 0;
}

/*
 * v5 TRANSITIONS predict each record from the previous record of the same
 * pid in the block (docs/TRACE_FORMAT.md 3.1.1): a direct-mapped table of
 * TF_PRED_SLOTS entries indexed by the pid's low bits; a pid finding
 * another pid in its slot takes the slot over and counts as unseen. The
 * encoder and the decoder run the same table, so they agree.
 */
#define TF_PRED_SLOTS 1024

typedef struct tf_pred
{
	uint32_t	pid;
	uint32_t	last_new;		/* new event of its last non-marker record */
	uint64_t	last_ts;		/* ts of that record */
	uint64_t	last_query;		/* query id of its last record */
	uint8_t		state;			/* 0 unseen, 1 query known, 2 + event/ts known */
} tf_pred;

static inline tf_pred *
tf_pred_slot(tf_pred *t, uint32_t pid)
{
	tf_pred    *e = &t[pid & (TF_PRED_SLOTS - 1)];

	if (e->state == 0 || e->pid != pid)
	{
		e->pid = pid;
		e->state = 0;
	}
	return e;
}

/* v5's markers are the ids assigned when it was defined (0xFFFFFFF0..F7):
 * its meaning must not move when later markers are assigned. */
#define TF_V5_IS_MARKER(ev)	((ev) >= 0xFFFFFFF0u && (ev) <= 0xFFFFFFF7u)

static inline void
tf_pred_update(tf_pred *e, const pgwt_record *r)
{
	e->last_query = r->query_id;
	if (!TF_V5_IS_MARKER(r->new_event))
	{
		e->last_new = r->new_event;
		e->last_ts = r->ts_ns;
		e->state = 2;
	}
	else if (e->state == 0)
		e->state = 1;
}

/* v5 TRANSITIONS columns after ts: pid, new, old code, duration, qcode,
 * query exceptions, cpu. */
static uint8_t *
tf_encode_transitions_v5(const pgwt_record *recs, uint32_t n, uint8_t *p)
{
	tf_pred    *t;
	tf_pred		table[TF_PRED_SLOTS];
	uint32_t	i;

	t = table;
	for (i = 0; i < n; i++, p += 4)
		tf_put_u32(p, recs[i].pid);
	for (i = 0; i < n; i++, p += 4)
		tf_put_u32(p, recs[i].new_event);
	memset(table, 0, sizeof(table));
	for (i = 0; i < n; i++)
	{
		tf_pred    *e = tf_pred_slot(t, recs[i].pid);

		if (e->state == 2 && recs[i].old_event == e->last_new)
			*p++ = 0;
		else
			p += tf_put_leb(p, (uint64_t) recs[i].old_event + 1);
		tf_pred_update(e, &recs[i]);
	}
	memset(table, 0, sizeof(table));
	for (i = 0; i < n; i++)
	{
		tf_pred    *e = tf_pred_slot(t, recs[i].pid);
		uint64_t	expect = e->state == 2 ? recs[i].ts_ns - e->last_ts : 0;

		p += tf_put_leb(p, tf_zigzag((int64_t) (recs[i].duration_ns - expect)));
		tf_pred_update(e, &recs[i]);
	}
	memset(table, 0, sizeof(table));
	for (i = 0; i < n; i++)
	{
		tf_pred    *e = tf_pred_slot(t, recs[i].pid);

		*p++ = (e->state != 0 && recs[i].query_id == e->last_query) ? 0 : 1;
		tf_pred_update(e, &recs[i]);
	}
	memset(table, 0, sizeof(table));
	for (i = 0; i < n; i++)
	{
		tf_pred    *e = tf_pred_slot(t, recs[i].pid);

		if (!(e->state != 0 && recs[i].query_id == e->last_query))
		{
			tf_put_u64(p, recs[i].query_id);
			p += 8;
		}
		tf_pred_update(e, &recs[i]);
	}
	for (i = 0; i < n; i++)
		p += tf_put_leb(p, recs[i].cpu_ns + 1);	/* unknown (all ones) -> 0 */
	return p;
}

int
tf_block_encode(uint16_t version, uint16_t flags, uint16_t type,
				uint64_t sample_period_ns, const pgwt_record *recs, uint32_t n,
				uint8_t *raw, uint8_t *out, pgwt_tf_block_header *hdr)
{
	uint8_t    *p = raw;
	uint64_t	prev;
	uint32_t	i;
	size_t		raw_len;

	if (n < 1 || n > PGWT_TF_BLOCK_MAX_RECORDS ||
		(type != PGWT_TF_BLOCK_TRANSITIONS && type != PGWT_TF_BLOCK_SAMPLES))
		return -PGWT_TF_INVAL;

	prev = recs[0].ts_ns;
	for (i = 0; i < n; i++)
	{
		if (recs[i].ts_ns < prev)
			return -PGWT_TF_ORDER;
		prev = recs[i].ts_ns;
	}
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 8)
	{
		if ((p = tf_encode_transitions_v8(recs, n, p)) == NULL)
			return -PGWT_TF_NOMEM;
		goto encoded;
	}
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 7)
	{
		/* the ts deltas are in v7's bit stream */
		if ((p = tf_encode_transitions_v7(recs, n, p)) == NULL)
			return -PGWT_TF_NOMEM;
		goto encoded;
	}
	prev = recs[0].ts_ns;
	for (i = 0; i < n; i++)
	{
		p += tf_put_leb(p, recs[i].ts_ns - prev);
		prev = recs[i].ts_ns;
	}
	if (type == PGWT_TF_BLOCK_TRANSITIONS && version >= 6)
	{
		if ((p = tf_encode_transitions_v6(recs, n, p)) == NULL)
			return -PGWT_TF_NOMEM;
	}
	else if (type == PGWT_TF_BLOCK_TRANSITIONS && version == 5)
		p = tf_encode_transitions_v5(recs, n, p);
	else if (type == PGWT_TF_BLOCK_SAMPLES && version >= 7)
	{
		if (sample_period_ns > INT64_MAX)
			return -PGWT_TF_INVAL;
		for (i = 0; i < n; i++)
			if (recs[i].weight_ns > INT64_MAX)
				return -PGWT_TF_INVAL;
		if ((p = tf_encode_samples_v7(recs, n, sample_period_ns, p)) == NULL)
			return -PGWT_TF_NOMEM;
	}
	else
	{
	for (i = 0; i < n; i++, p += 4)
		tf_put_u32(p, recs[i].pid);
	if (type == PGWT_TF_BLOCK_TRANSITIONS)
	{
		for (i = 0; i < n; i++, p += 4)
			tf_put_u32(p, recs[i].old_event);
		for (i = 0; i < n; i++, p += 4)
			tf_put_u32(p, recs[i].new_event);
		for (i = 0; i < n; i++)
			p += tf_put_leb(p, recs[i].duration_ns);
		for (i = 0; i < n; i++, p += 8)
			tf_put_u64(p, recs[i].query_id);
		if (version >= 3)
			for (i = 0; i < n; i++)
				p += tf_put_leb(p, recs[i].cpu_ns);
	}
	else
	{
		for (i = 0; i < n; i++, p += 4)
			tf_put_u32(p, recs[i].new_event);
		for (i = 0; i < n; i++, p += 8)
			tf_put_u64(p, recs[i].query_id);
		if (version >= 4)
			for (i = 0; i < n; i++)
			{
				if (recs[i].weight_ns > INT64_MAX || sample_period_ns > INT64_MAX)
					return -PGWT_TF_INVAL;
				p += tf_put_leb(p, tf_zigzag((int64_t) recs[i].weight_ns -
											 (int64_t) sample_period_ns));
			}
	}
	}
encoded:
	raw_len = (size_t) (p - raw);

	hdr->first_ts = recs[0].ts_ns;
	hdr->last_ts = recs[n - 1].ts_ns;
	hdr->n = n;
	hdr->uncompressed = (uint32_t) raw_len;
	hdr->type = type;
	hdr->sample_period_ns = type == PGWT_TF_BLOCK_SAMPLES ? sample_period_ns : 0;
	if (tf_block_store_payload(raw, raw_len, flags, out, hdr) != 0)
		return -PGWT_TF_INVAL;
	hdr->reserved = version >= 4 ? tf_checksum16(out, hdr->compressed) : 0;
	return 0;
}

/*
 * Reads n LEB128 values into recs[i].field; fails on any malformed one.
 * One- and two-byte values (most of them) take inline paths. A macro
 * rather than a function taking a field offset, so stores go straight to
 * the field. (A branch-free 8-byte-load decoder was measured slower here.)
 */
#define TF_GET_LEB_COLUMN(pp, end, n, recs, field) \
	do { \
		uint32_t	i_; \
		for (i_ = 0; i_ < (n); i_++) \
		{ \
			uint64_t	v_; \
			if ((pp) < (end) && *(pp) < 0x80) \
				v_ = *(pp)++; \
			else if ((pp) + 1 < (end) && !((pp)[1] & 0x80)) \
			{ \
				v_ = ((uint64_t) ((pp)[0] & 0x7f)) | ((uint64_t) (pp)[1] << 7); \
				(pp) += 2; \
			} \
			else if (tf_get_leb(&(pp), (end), &v_) < 0) \
				return -PGWT_TF_BAD_PAYLOAD; \
			(recs)[i_].field = v_; \
		} \
	} while (0)


static int
tf_decode_transitions_v5(const uint8_t **pp, const uint8_t *end, uint32_t n,
						 pgwt_record *recs)
{
	const uint8_t *p = *pp;
	tf_pred		table[TF_PRED_SLOTS];
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		recs[i].pid = tf_get_u32(p + 4 * (size_t) i);
		recs[i].new_event = tf_get_u32(p + 4 * ((size_t) n + i));
		recs[i].weight_ns = 0;
		recs[i].kind = PGWT_REC_TRANSITION;
	}
	p += 8 * (size_t) n;
	memset(table, 0, sizeof(table));
	for (i = 0; i < n; i++)
	{
		tf_pred    *e = tf_pred_slot(table, recs[i].pid);
		uint64_t	v;

		TF_GET_LEB(p, end, v);
		if (v == 0)
		{
			if (e->state != 2)
				return -PGWT_TF_BAD_PAYLOAD;	/* nothing to predict from */
			recs[i].old_event = e->last_new;
		}
		else if (v > (uint64_t) UINT32_MAX + 1)
			return -PGWT_TF_BAD_PAYLOAD;
		else
			recs[i].old_event = (uint32_t) (v - 1);
		tf_pred_update(e, &recs[i]);
	}
	memset(table, 0, sizeof(table));
	for (i = 0; i < n; i++)
	{
		tf_pred    *e = tf_pred_slot(table, recs[i].pid);
		uint64_t	expect = e->state == 2 ? recs[i].ts_ns - e->last_ts : 0;
		uint64_t	z;
		int64_t		d;

		TF_GET_LEB(p, end, z);
		d = tf_unzigzag(z);
		/* modulo 2^64, as the encoder subtracted: every value is valid */
		recs[i].duration_ns = expect + (uint64_t) d;
		tf_pred_update(e, &recs[i]);
	}
	{
		const uint8_t *qcode = p;
		const uint8_t *qx;

		if ((size_t) (end - p) < n)
			return -PGWT_TF_BAD_PAYLOAD;
		p += n;
		qx = p;
		memset(table, 0, sizeof(table));
		for (i = 0; i < n; i++)
		{
			tf_pred    *e = tf_pred_slot(table, recs[i].pid);

			if (qcode[i] == 0 && e->state != 0)
				recs[i].query_id = e->last_query;
			else if (qcode[i] == 1)
			{
				if (end - qx < 8)
					return -PGWT_TF_BAD_PAYLOAD;
				recs[i].query_id = tf_get_u64(qx);
				qx += 8;
				/* the shortest form: a predictable id is not repeated */
				if (e->state != 0 && recs[i].query_id == e->last_query)
					return -PGWT_TF_BAD_PAYLOAD;
			}
			else
				return -PGWT_TF_BAD_PAYLOAD;
			tf_pred_update(e, &recs[i]);
		}
		p = qx;
	}
	for (i = 0; i < n; i++)
	{
		uint64_t	c;

		TF_GET_LEB(p, end, c);
		recs[i].cpu_ns = c - 1;		/* 0 -> unknown (all ones) */
	}
	*pp = p;
	return 0;
}

/*
 * The block's payload: checksum verified (v4 on), LZ4 decompressed into raw
 * when the file says so. Sets *pp to its first byte.
 */
static int
tf_block_payload(uint16_t version, uint16_t flags, const pgwt_tf_block_header *hdr,
				 const uint8_t *src, uint8_t *raw, const uint8_t **pp)
{
	if (version >= 4 && tf_checksum16(src, hdr->compressed) != hdr->reserved)
		return -PGWT_TF_CHECKSUM;
	if (flags & PGWT_TF_FLAG_LZ4)
	{
		int			d = LZ4_decompress_safe((const char *) src, (char *) raw,
											(int) hdr->compressed,
											(int) hdr->uncompressed);

		if (d < 0 || (uint32_t) d != hdr->uncompressed)
			return -PGWT_TF_LZ4;
		*pp = raw;
	}
	else
		*pp = src;
	return 0;
}

/* Timestamps (all but v7 transitions): deltas inside the header's range. */
static inline int
tf_decode_timestamps(const uint8_t **pp, const uint8_t *end, uint32_t n,
					 const pgwt_tf_block_header *hdr, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	uint64_t	ts = hdr->first_ts;
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		uint64_t	d;

		if (p < end && *p < 0x80)
			d = *p++;
		else if (tf_get_leb(&p, end, &d) < 0)
			return -PGWT_TF_BAD_PAYLOAD;
		if (d > hdr->last_ts - ts)
			return -PGWT_TF_BAD_PAYLOAD;
		ts += d;
		recs[i].ts_ns = ts;
	}
	*pp = p;
	return 0;
}

/* Transitions of v2 to v4: fixed pid/old/new columns, then LEB and u64 ones. */
static int
tf_decode_transitions_v2_4(const uint8_t **pp, const uint8_t *end, uint32_t n,
						 uint16_t version, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	uint32_t	i;
	/* pid, old and new columns in one pass: each record is touched once */
	const uint8_t *pid = p,
			   *old_ev = p + 4 * (size_t) n,
			   *new_ev = p + 8 * (size_t) n;

	for (i = 0; i < n; i++)
	{
		recs[i].pid = tf_get_u32(pid + 4 * (size_t) i);
		recs[i].old_event = tf_get_u32(old_ev + 4 * (size_t) i);
		recs[i].new_event = tf_get_u32(new_ev + 4 * (size_t) i);
		recs[i].weight_ns = 0;
		recs[i].kind = PGWT_REC_TRANSITION;
	}
	p += 12 * (size_t) n;
	TF_GET_LEB_COLUMN(p, end, n, recs, duration_ns);
	if ((size_t) (end - p) < (size_t) n * 8)
		return -PGWT_TF_BAD_PAYLOAD;
	for (i = 0; i < n; i++, p += 8)
		recs[i].query_id = tf_get_u64(p);
	if (version >= 3)
	{
		TF_GET_LEB_COLUMN(p, end, n, recs, cpu_ns);
	}
	else
		for (i = 0; i < n; i++)
			recs[i].cpu_ns = PGWT_CPU_UNKNOWN;
	*pp = p;
	return 0;
}

/* Samples of v2 to v6: pid, event and query columns, then weights (v4 on). */
static int
tf_decode_samples_v2_6(const uint8_t **pp, const uint8_t *end, uint32_t n,
					 uint16_t version, uint64_t period_ns, pgwt_record *recs)
{
	const uint8_t *p = *pp;
	uint32_t	i;

	for (i = 0; i < n; i++, p += 4)
		recs[i].pid = tf_get_u32(p);
	for (i = 0; i < n; i++, p += 4)
	{
		uint32_t	ev = tf_get_u32(p);

		/* A sampler only ever sees real wait events. */
		if (ev >= PGWT_MARKER_FIRST)
			return -PGWT_TF_BAD_PAYLOAD;
		recs[i].new_event = ev;
	}
	for (i = 0; i < n; i++, p += 8)
		recs[i].query_id = tf_get_u64(p);
	if (version >= 4)
	{
		if (period_ns > INT64_MAX)
			return -PGWT_TF_BAD_PAYLOAD;
		for (i = 0; i < n; i++)
		{
			uint64_t	z;
			int64_t		w;

			if (p < end && *p < 0x80)
				z = *p++;
			else if (tf_get_leb(&p, end, &z) < 0)
				return -PGWT_TF_BAD_PAYLOAD;
			/* period <= INT64_MAX, so this sum cannot overflow int64 */
			if (__builtin_add_overflow((int64_t) period_ns,
									   tf_unzigzag(z), &w) || w < 0)
				return -PGWT_TF_BAD_PAYLOAD;
			recs[i].weight_ns = (uint64_t) w;
		}
	}
	else
		for (i = 0; i < n; i++)
			recs[i].weight_ns = period_ns;
	for (i = 0; i < n; i++)
	{
		recs[i].old_event = 0;
		recs[i].duration_ns = 0;
		recs[i].cpu_ns = PGWT_CPU_UNKNOWN;
		recs[i].kind = PGWT_REC_SAMPLE;
	}
	*pp = p;
	return 0;
}

int
tf_block_decode(uint16_t version, uint16_t flags, const pgwt_tf_block_header *hdr,
				const uint8_t *src, uint8_t *raw, pgwt_record *recs)
{
	return tf_block_decode_ctx(version, flags, hdr, src, raw, recs, NULL, false, 0);
}

/* The payload [p, end) of any layout but v8 transitions. */
static int
tf_block_decode_other(uint16_t version, const pgwt_tf_block_header *hdr,
					  const uint8_t *p, const uint8_t *end, pgwt_record *recs)
{
	uint32_t	n = hdr->n;
	bool		transitions = hdr->type == PGWT_TF_BLOCK_TRANSITIONS;
	size_t		fixed = transitions ? 4 + 4 + 4 + 8 : 4 + 4 + 8;
	bool		seed;
	int			rc;

	if (transitions && version >= 7)
		return tf_decode_transitions_v7(&p, end, n, hdr->first_ts, hdr->last_ts, recs);
	seed = version <= 3 && tf_seed_timestamps(&p, end, n, hdr, recs);
	if (!seed && hdr->first_ts > hdr->last_ts)
		return -PGWT_TF_BAD_PAYLOAD;
	if (!seed && (rc = tf_decode_timestamps(&p, end, n, hdr, recs)) < 0)
		return rc;
	if (transitions && version >= 6)
		return tf_decode_transitions_v6(&p, end, n, recs);
	if (!transitions && version >= 7)
		return tf_decode_samples_v7(&p, end, n, hdr->sample_period_ns, recs);
	if (transitions && version == 5)
		fixed = 4 + 4;
	if ((size_t) (end - p) < (size_t) n * fixed)
		return -PGWT_TF_BAD_PAYLOAD;

	if (transitions && version == 5)
		rc = tf_decode_transitions_v5(&p, end, n, recs);
	else if (transitions)
		rc = tf_decode_transitions_v2_4(&p, end, n, version, recs);
	else
		rc = tf_decode_samples_v2_6(&p, end, n, version, hdr->sample_period_ns, recs);
	if (rc < 0)
		return rc;
	/* Columns must fill the payload exactly. */
	if (p != end)
		return -PGWT_TF_BAD_PAYLOAD;
	return seed ? tf_seed_normalize(recs, n) : 0;
}

int
tf_block_decode_ctx(uint16_t version, uint16_t flags, const pgwt_tf_block_header *hdr,
					const uint8_t *src, uint8_t *raw, pgwt_record *recs,
					tf_v8_dec **v8, bool skip_cpu, uint64_t shift)
{
	const uint8_t *p;
	int			rc;

	rc = tf_block_payload(version, flags, hdr, src, raw, &p);
	if (rc < 0)
		return rc;
	/* v8 transitions add the shift as they hand records out */
	if (hdr->type == PGWT_TF_BLOCK_TRANSITIONS && version >= 8)
		return tf_decode_transitions_v8(&p, p + hdr->uncompressed, hdr->n, hdr->first_ts,
										hdr->last_ts, recs, v8, skip_cpu, shift);
	if ((rc = tf_block_decode_other(version, hdr, p, p + hdr->uncompressed, recs)) < 0)
		return rc;
	if (shift != 0)
		for (uint32_t i = 0; i < hdr->n; i++)
			recs[i].ts_ns += shift;
	return rc;
}

int
tf_block_store_payload(const uint8_t *raw, size_t raw_len, uint16_t flags,
					   uint8_t *out, pgwt_tf_block_header *h)
{
	if (flags & PGWT_TF_FLAG_LZ4)
	{
		int			c = LZ4_compress_default((const char *) raw, (char *) out,
											 (int) raw_len, TF_COMPRESSED_MAX);

		if (c <= 0)
			return -PGWT_TF_INVAL;
		h->compressed = (uint32_t) c;
	}
	else
	{
		memcpy(out, raw, raw_len);
		h->compressed = (uint32_t) raw_len;
	}
	return 0;
}
