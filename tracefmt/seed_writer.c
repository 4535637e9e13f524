/*
 * seed_writer.c
 *		Blocks and the live-file count as the seed tool writes them, for a
 *		file writer opened with opts.seed_layout (docs/TRACE_FORMAT.md 7.2):
 *		so a user who keeps the seed tool can read what we record.
 *
 * The layout is v2/v3's; what the seed's reader expects beyond it is
 * what its writer does (seed_layout.c reads it back): the first ts delta
 * counts from 0, the header's first_ts / last_ts are the first and last
 * records' ts (ours are sorted, so the least and greatest), no checksum
 * in the reserved field, markers with the id in old_event as well as
 * new_event, and an escalation marker's length in whole seconds and a
 * reason byte packed into query_id. Markers the seed does not know
 * (0xFFFFFFF8 and above) are left out and counted by the caller.
 * The live count is a bare decimal line written to .meta.tmp and renamed.
 * Pure but for tf_seed_meta_store_at; no shared state.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <lz4.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

#define TF_SEED_W_MARKER_LAST	0xFFFFFFF7u

/* Seed escalation reasons: 0 manual, 1 anomaly, 6 CPU saturation open a
 * window; 2 says a window closed when its time ran out. */
static uint64_t
tf_seed_w_esc(const pgwt_record *r)
{
	uint64_t	secs = r->duration_ns / 1000000000ull;
	unsigned	reason;

	if (r->new_event == PGWT_MARKER_ESC_END)
		reason = 2;
	else
		reason = r->old_event == PGWT_ESC_CODE_ANOMALY ||
			r->old_event == PGWT_ESC_CODE_ANOMALY_LOCK ? 1
			: r->old_event == PGWT_ESC_CODE_ANOMALY_CPU ? 6 : 0;
	if (secs > (UINT64_MAX >> 8))
		secs = UINT64_MAX >> 8;
	return secs << 8 | reason;
}

bool
tf_seed_w_keeps(const pgwt_record *r)
{
	/* ours beyond the seed's last marker, up to our last; exit is no marker */
	return r->kind != PGWT_REC_TRANSITION || r->new_event <= TF_SEED_W_MARKER_LAST ||
		r->new_event > PGWT_MARKER_LAST;
}

/* One record's columns as the seed writes them. */
static void
tf_seed_w_record(const pgwt_record *in, pgwt_record *out)
{
	*out = *in;
	if (in->kind != PGWT_REC_TRANSITION || !PGWT_IS_MARKER(in->new_event))
		return;
	if (in->new_event == PGWT_MARKER_ESC_START || in->new_event == PGWT_MARKER_ESC_END)
		out->query_id = tf_seed_w_esc(in);
	out->old_event = in->new_event;
	out->duration_ns = 0;
}

int
tf_seed_block_encode(uint16_t version, uint16_t flags, uint16_t type,
					 uint64_t sample_period_ns, const pgwt_record *in, uint32_t n,
					 uint8_t *raw, uint8_t *out, pgwt_tf_block_header *hdr)
{
	uint8_t    *p = raw;
	uint64_t	prev = 0;
	uint32_t	i;
	size_t		raw_len;
	bool		tr = type == PGWT_TF_BLOCK_TRANSITIONS;

	if (n < 1 || n > PGWT_TF_BLOCK_MAX_RECORDS || (version != 2 && version != 3) ||
		(type != PGWT_TF_BLOCK_TRANSITIONS && type != PGWT_TF_BLOCK_SAMPLES))
		return -PGWT_TF_INVAL;
	/* the seed's first delta is the first ts itself (counted from 0) */
	for (i = 0; i < n; i++)
	{
		p += tf_put_leb(p, in[i].ts_ns - prev);
		prev = in[i].ts_ns;
	}
	for (i = 0; i < n; i++, p += 4)
		tf_put_u32(p, in[i].pid);
	for (i = 0; tr && i < n; i++, p += 4)
	{
		pgwt_record r;

		tf_seed_w_record(&in[i], &r);
		tf_put_u32(p, r.old_event);
	}
	for (i = 0; i < n; i++, p += 4)
		tf_put_u32(p, in[i].new_event);
	for (i = 0; tr && i < n; i++)
	{
		pgwt_record r;

		tf_seed_w_record(&in[i], &r);
		p += tf_put_leb(p, r.duration_ns);
	}
	for (i = 0; i < n; i++, p += 8)
	{
		pgwt_record r;

		tf_seed_w_record(&in[i], &r);
		tf_put_u64(p, r.query_id);
	}
	for (i = 0; tr && version >= 3 && i < n; i++)
		p += tf_put_leb(p, in[i].cpu_ns);
	raw_len = (size_t) (p - raw);

	memset(hdr, 0, sizeof(*hdr));
	hdr->first_ts = in[0].ts_ns;
	hdr->last_ts = in[n - 1].ts_ns;
	hdr->n = n;
	hdr->uncompressed = (uint32_t) raw_len;
	hdr->type = type;
	hdr->sample_period_ns = tr ? 0 : sample_period_ns;
	if (tf_block_store_payload(raw, raw_len, flags, out, hdr) != 0)
		return -PGWT_TF_INVAL;
	return 0;
}

int
tf_seed_meta_store_at(int dirfd, const char *name, uint64_t count, int mode, long gid)
{
	char		tmp[512];
	char		dst[512];
	char		text[32];
	int			len = snprintf(text, sizeof(text), "%llu\n", (unsigned long long) count);
	int			fd;
	int			rc;

	if (snprintf(dst, sizeof(dst), "%s%s", name, PGWT_TF_META_SUFFIX) >= (int) sizeof(dst) ||
		snprintf(tmp, sizeof(tmp), "%s%s.tmp", name, PGWT_TF_META_SUFFIX) >= (int) sizeof(tmp))
		return -PGWT_TF_INVAL;
	/* a leftover or planted .tmp is replaced, never written through */
	fd = tf_openat_replace(dirfd, tmp, O_WRONLY, mode, gid);
	if (fd < 0)
		return -PGWT_TF_IO;
	rc = tf_write_all(fd, text, (size_t) len);
	if (close(fd) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	if (rc == 0 && renameat(dirfd, tmp, dirfd, dst) < 0)
		rc = -PGWT_TF_IO;
	if (rc < 0)
		(void) unlinkat(dirfd, tmp, 0);
	return rc;
}
