/*
 * seed_write.c
 *		Rewrites a directory pgwt-synth wrote (version 3) the way the seed
 *		tool's writer lays it out (docs/TRACE_FORMAT.md 7.1), so readers
 *		are tested on its layout with known truth: block by block, the
 *		records out of time order (those of odd pids first, each pid's own
 *		order kept), ts deltas from 0 wrapping modulo 2^64, header first_ts
 *		and last_ts the first and last records' in that order, markers as
 *		the seed writes them, pg_version the major version, a bare count in
 *		current.trace.meta, and its JSON side files in place of ours.
 *		A test generator, not a writer of the product.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lz4.h>

#include "seed_write.h"
#include "tracefmt/tf_le.h"

#define SW_MAX		PGWT_TF_BLOCK_MAX_RECORDS

typedef struct sw_out
{
	FILE	   *f;
	uint64_t	off;
	uint64_t   *idx_ts;
	uint64_t   *idx_off;
	uint32_t	nblocks;
	uint32_t	cap;
} sw_out;

static void
sw_marker(pgwt_record *r)
{
	uint32_t	m = r->new_event;

	if (r->kind != PGWT_REC_TRANSITION || m < PGWT_MARKER_FIRST || m > 0xFFFFFFF7u)
		return;
	if (m == PGWT_MARKER_ESC_START || m == PGWT_MARKER_ESC_END)
	{
		unsigned	reason = r->old_event == PGWT_ESC_CODE_ANOMALY ? 1
			: r->old_event == PGWT_ESC_CODE_ANOMALY_CPU ? 6 : 0;

		if (m == PGWT_MARKER_ESC_END)
			reason = 2;
		r->query_id = ((r->duration_ns / 1000000000ull) << 8) | reason;
	}
	r->old_event = m;
	r->duration_ns = 0;
}

/* Odd pids first, then even ones, each in its order (stable). */
static void
sw_shuffle(const pgwt_record *in, uint32_t n, pgwt_record *out)
{
	uint32_t	i,
				k = 0;

	for (i = 0; i < n; i++)
		if (in[i].pid & 1)
			out[k++] = in[i];
	for (i = 0; i < n; i++)
		if (!(in[i].pid & 1))
			out[k++] = in[i];
}

static int
sw_block(sw_out *o, const pgwt_record *r, uint32_t n, uint16_t type, uint64_t period,
		 uint8_t *raw, uint8_t *comp)
{
	uint8_t    *p = raw;
	uint8_t		h[PGWT_TF_BLOCK_HEADER_SIZE];
	uint64_t	prev = 0;
	uint32_t	i;
	int			c;

	for (i = 0; i < n; i++)
	{
		p += tf_put_leb(p, r[i].ts_ns - prev);
		prev = r[i].ts_ns;
	}
	for (i = 0; i < n; i++, p += 4)
		tf_put_u32(p, r[i].pid);
	if (type == PGWT_TF_BLOCK_TRANSITIONS)
		for (i = 0; i < n; i++, p += 4)
			tf_put_u32(p, r[i].old_event);
	for (i = 0; i < n; i++, p += 4)
		tf_put_u32(p, r[i].new_event);
	if (type == PGWT_TF_BLOCK_TRANSITIONS)
		for (i = 0; i < n; i++)
			p += tf_put_leb(p, r[i].duration_ns);
	for (i = 0; i < n; i++, p += 8)
		tf_put_u64(p, r[i].query_id);
	if (type == PGWT_TF_BLOCK_TRANSITIONS)
		for (i = 0; i < n; i++)
			p += tf_put_leb(p, r[i].cpu_ns);
	c = LZ4_compress_default((const char *) raw, (char *) comp, (int) (p - raw),
							 LZ4_compressBound((int) (p - raw)));
	if (c <= 0)
		return -1;
	memset(h, 0, sizeof(h));
	tf_put_u64(h, r[0].ts_ns);
	tf_put_u64(h + 8, r[n - 1].ts_ns);
	tf_put_u32(h + 16, n);
	tf_put_u32(h + 20, (uint32_t) c);
	tf_put_u32(h + 24, (uint32_t) (p - raw));
	tf_put_u16(h + 28, type);
	tf_put_u64(h + 32, period);
	if (o->nblocks == o->cap)
	{
		o->cap = o->cap ? o->cap * 2 : 256;
		o->idx_ts = realloc(o->idx_ts, o->cap * sizeof(uint64_t));
		o->idx_off = realloc(o->idx_off, o->cap * sizeof(uint64_t));
		if (!o->idx_ts || !o->idx_off)
			return -1;
	}
	o->idx_ts[o->nblocks] = r[0].ts_ns;
	o->idx_off[o->nblocks++] = o->off;
	if (fwrite(h, 1, sizeof(h), o->f) != sizeof(h) ||
		fwrite(comp, 1, (size_t) c, o->f) != (size_t) c)
		return -1;
	o->off += sizeof(h) + (uint64_t) c;
	return 0;
}

/* One trace file rewritten in place (through path.tmp). */
static int
sw_file(const char *path, bool live)
{
	static pgwt_record recs[SW_MAX];
	static uint8_t raw[PGWT_TF_PAYLOAD_MAX];
	static uint8_t comp[PGWT_TF_PAYLOAD_MAX + PGWT_TF_PAYLOAD_MAX / 255 + 16];
	char		tmp[4096];
	pgwt_tf_reader *r;
	pgwt_tf_block b;
	const pgwt_tf_file_header *fh;
	uint8_t		hb[PGWT_TF_FILE_HEADER_SIZE];
	sw_out		o = {0};
	int			rc;

	if (pgwt_tf_reader_open(path, NULL, &r) < 0)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	o.f = fopen(tmp, "wbe");
	fh = pgwt_tf_reader_nfiles(r) ? pgwt_tf_reader_file_header(r, 0) : NULL;
	if (!o.f || !fh)
		goto fail;
	tf_put_u32(hb, 0x54574750u);
	tf_put_u16(hb + 4, 3);
	tf_put_u16(hb + 6, PGWT_TF_FLAG_LZ4);
	tf_put_u32(hb + 8, pgwt_tf_pg_major(fh->pg_version));
	tf_put_u64(hb + 12, fh->start_realtime_ns);
	tf_put_u64(hb + 20, fh->start_monotonic_ns);
	if (fwrite(hb, 1, sizeof(hb), o.f) != sizeof(hb))
		goto fail;
	o.off = sizeof(hb);
	while ((rc = pgwt_tf_reader_next_block(r, &b)) == 1)
	{
		pgwt_record in[SW_MAX];
		uint32_t	i;

		for (i = 0; i < b.n; i++)
		{
			in[i] = b.recs[i];
			sw_marker(&in[i]);
		}
		sw_shuffle(in, b.n, recs);
		if (sw_block(&o, recs, b.n, b.type, b.sample_period_ns, raw, comp) < 0)
			goto fail;
	}
	if (rc < 0)
		goto fail;
	if (!live)
	{
		uint8_t		e[16];

		for (uint32_t i = 0; i < o.nblocks; i++)
		{
			tf_put_u64(e, o.idx_ts[i]);
			tf_put_u64(e + 8, o.idx_off[i]);
			if (fwrite(e, 1, 16, o.f) != 16)
				goto fail;
		}
		tf_put_u32(e, o.nblocks);
		if (fwrite(e, 1, 4, o.f) != 4)
			goto fail;
	}
	else
	{
		char		meta[4096];
		FILE	   *m;

		snprintf(meta, sizeof(meta), "%s.meta", path);
		m = fopen(meta, "we");
		if (!m || fprintf(m, "%u\n", o.nblocks) < 0 || fclose(m) != 0)
			goto fail;
	}
	pgwt_tf_reader_close(r);
	free(o.idx_ts);
	free(o.idx_off);
	if (fclose(o.f) != 0)
		return -1;
	return rename(tmp, path);

fail:
	pgwt_tf_reader_close(r);
	free(o.idx_ts);
	free(o.idx_off);
	if (o.f)
		fclose(o.f);
	return -1;
}

int
synth_seed_rewrite(const char *dir)
{
	DIR		   *d = opendir(dir);
	struct dirent *de;
	int			rc = 0;

	if (!d)
		return -1;
	while (rc == 0 && (de = readdir(d)) != NULL)
	{
		char		p[4096];
		size_t		l = strlen(de->d_name);

		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (l > 4 && strcmp(de->d_name + l - 4, ".sum") == 0)
			unlink(p);			/* the seed has no summaries of ours */
		else if (l > 9 && strcmp(de->d_name + l - 9, ".sum.meta") == 0)
			unlink(p);
		else if (strcmp(de->d_name, "current.trace") == 0)
			rc = sw_file(p, true);
		else if (l > 10 && strcmp(de->d_name + l - 10, ".trace.lz4") == 0)
			rc = sw_file(p, false);
	}
	closedir(d);
	/* the seed's JSON side files (the product's writer), and not ours */
	if (rc == 0)
		rc = pgwt_tf_seed_sidefiles_write(dir);
	if (rc == 0)
	{
		const char *const ours[] = {PGWT_TF_BACKENDS_NAME, PGWT_TF_QUERIES_NAME,
		PGWT_TF_EVENTS_NAME};

		for (int k = 0; k < 3; k++)
		{
			char		p[4096];

			snprintf(p, sizeof(p), "%s/%s", dir, ours[k]);
			unlink(p);
		}
	}
	return rc;
}
