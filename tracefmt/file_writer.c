/*
 * file_writer.c
 *		Writes one trace file: header, LZ4 blocks, footer; keeps the live
 *		file's committed block count in <path>.meta (file_io.c).
 *
 * Records are buffered per block type (one open TRANSITIONS block, one
 * open SAMPLES block). A block is written when it holds 4096 records,
 * when a record would stretch it past max_block_span_ns, when the sample
 * period changes, or on flush. Records are sorted by ts inside a block
 * (the ts column is unsigned deltas); blocks may overlap in time, which
 * the reader handles through the span bound (docs/TRACE_FORMAT.md).
 *
 * Durability: each block is one write(); the .meta count is updated after
 * the blocks of one call (one pwrite() over a fixed-size record, the
 * descriptor kept open), so a reader or a crash sees either whole blocks
 * or a torn tail that .meta does not count. fsync happens at finish (and
 * per block when fsync_each_block is set).
 *
 * Unless opts.no_summary is set, every record also goes to a per-second
 * summary builder whose finished seconds are written to <path>.sum
 * (summary_file.c); a summary failure never loses trace records: the
 * summary is dropped and counted (stats.summary_failed).
 *
 * Files are created by name in their directory's descriptor with
 * O_CREAT|O_EXCL|O_NOFOLLOW (safe_dir.c): a name taken by anything, a
 * link included, is an error, never a file written through; .meta goes
 * through a temporary file that replaces, not follows, what it renames
 * over.
 *
 * With opts.seed_layout the file is what the seed tool reads: v3 (or v2)
 * blocks in its layout (seed_writer.c), the major version in the header,
 * a bare count in .meta written through .meta.tmp + rename, no summary.
 *
 * A writer object belongs to one thread; it has no shared state.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tracefmt/summary.h"
#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

typedef struct tf_pending
{
	pgwt_record recs[PGWT_TF_BLOCK_MAX_RECORDS];
	uint32_t	n;
	bool		sorted;
	uint64_t	min_ts;
	uint64_t	max_ts;
} tf_pending;

struct pgwt_tf_file_writer
{
	int			fd;
	bool		failed;			/* a write failed: refuse further work */
	int			dirfd;			/* its directory (our own descriptor) */
	char	   *name;			/* its name there */
	char	   *path;			/* the path the summary is created by:
								 * /proc/self/fd/<dirfd>/<name> */
	pgwt_tf_file_opts opts;
	pgwt_tf_file_header hdr;
	uint64_t	offset;			/* bytes in the file so far */
	int			meta_fd;		/* <path>.meta, -1 without write_meta */
	uint64_t	meta_count;		/* the count it holds */
	unsigned	meta_stores;
	uint64_t	sample_period_ns;
	tf_pending	pending[2];		/* indexed by block type */
	uint8_t		raw[PGWT_TF_PAYLOAD_MAX];
	uint8_t		out[PGWT_TF_BLOCK_HEADER_SIZE + TF_COMPRESSED_MAX];
	uint64_t   *idx_ts;			/* footer entries */
	uint64_t   *idx_off;
	uint32_t	idx_n;
	uint32_t	idx_cap;
	pgwt_tf_writer_stats stats;
	tf_sum_writer *sum;			/* NULL: no summary (off, or failed) */
};


/* ---- the writer -------------------------------------------------------- */

/* A failed summary is removed (name and .meta), so no torn one is archived. */
static void
tf_summary_remove(pgwt_tf_file_writer *w)
{
	char		sum[512];

	w->stats.summary_failed = 1;
	if (snprintf(sum, sizeof(sum), "%s%s", w->name, PGWT_TF_SUM_SUFFIX) < (int) sizeof(sum))
	{
		(void) unlinkat(w->dirfd, sum, 0);
		tf_unlink_meta_at(w->dirfd, sum);
	}
}

static void
tf_writer_free(pgwt_tf_file_writer *w)
{
	if (w->meta_fd >= 0)
		close(w->meta_fd);
	if (w->dirfd >= 0)
		close(w->dirfd);
	free(w->idx_ts);
	free(w->idx_off);
	free(w->name);
	free(w->path);
	free(w);
}

/* Header, .meta and summary of a new file; w->fd is open. */
static int
tf_writer_start(pgwt_tf_file_writer *w)
{
	uint8_t		buf[PGWT_TF_FILE_HEADER_SIZE];
	int			rc;

	tf_file_header_encode(&w->hdr, buf);
	rc = tf_write_all(w->fd, buf, sizeof(buf));
	if (rc == 0 && w->opts.write_meta && w->opts.seed_layout)
		rc = tf_seed_meta_store_at(w->dirfd, w->name, 0, w->opts.mode, w->opts.group_gid);
	else if (rc == 0 && w->opts.write_meta)
		rc = tf_meta_create_at(w->dirfd, w->name, 0, w->opts.mode, w->opts.group_gid,
							   &w->meta_fd);
	if (rc < 0)
		return rc;
	w->offset = sizeof(buf);
	if (!w->opts.no_summary &&
		(rc = tf_sum_writer_create(w->path, &w->opts, &w->hdr, &w->sum)) < 0)
	{
		if (w->meta_fd >= 0)
		{
			close(w->meta_fd);
			w->meta_fd = -1;
			tf_unlink_meta_at(w->dirfd, w->name);
		}
		return rc;
	}
	return 0;
}

int
tf_file_writer_create_at(int dirfd, const char *name, const char *path,
						 const pgwt_tf_file_opts *opts, pgwt_tf_file_writer **out)
{
	pgwt_tf_file_writer *w;
	char		at[4096];
	int			rc;

	if (!opts || !out || !tf_name_ok(name))
		return -PGWT_TF_INVAL;
	if (opts->version != 0 &&
		(opts->version < PGWT_TF_VERSION_MIN || opts->version > PGWT_TF_VERSION_MAX))
		return -PGWT_TF_INVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -PGWT_TF_NOMEM;
	w->fd = -1;
	w->meta_fd = -1;
	w->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (w->dirfd < 0)
	{
		free(w);
		return -PGWT_TF_IO;
	}
	/* the summary's own path lookups go through our descriptor too */
	if (tf_at_path(w->dirfd, NULL, name, at, sizeof(at)) < 0)
	{
		if (!path || snprintf(at, sizeof(at), "%s", path) >= (int) sizeof(at))
		{
			tf_writer_free(w);
			return -PGWT_TF_INVAL;
		}
	}
	if (!(w->name = strdup(name)) || !(w->path = strdup(at)))
	{
		tf_writer_free(w);
		return -PGWT_TF_NOMEM;
	}
	w->opts = *opts;
	if (w->opts.seed_layout)
	{
		if (w->opts.version == 0)
			w->opts.version = 3;
		if (w->opts.version > 3)
		{
			tf_writer_free(w);
			return -PGWT_TF_INVAL;
		}
		w->opts.no_summary = true;	/* the seed's summaries are its own */
		w->opts.pg_version = pgwt_tf_pg_major(w->opts.pg_version);
	}
	if (w->opts.version == 0)
		w->opts.version = PGWT_TF_VERSION;
	if (w->opts.mode == 0)
		w->opts.mode = 0640;
	if (w->opts.max_block_span_ns == 0 ||
		w->opts.max_block_span_ns > PGWT_TF_MAX_BLOCK_SPAN_NS)
		w->opts.max_block_span_ns = PGWT_TF_MAX_BLOCK_SPAN_NS;

	w->hdr.version = w->opts.version;
	w->hdr.flags = w->opts.no_lz4 ? 0 : PGWT_TF_FLAG_LZ4;
	w->hdr.pg_version = w->opts.pg_version;
	w->hdr.start_realtime_ns = tf_clock_realtime(&w->opts.clock);
	w->hdr.start_monotonic_ns = tf_clock_monotonic(&w->opts.clock);

	/* O_EXCL|O_NOFOLLOW: a name taken by anything, a link included, fails */
	w->fd = tf_openat_new(w->dirfd, name, O_WRONLY, w->opts.mode, w->opts.group_gid);
	if (w->fd < 0)
	{
		rc = errno == EEXIST ? -PGWT_TF_EXISTS : -PGWT_TF_IO;
		tf_writer_free(w);
		return rc;
	}
	if ((rc = tf_writer_start(w)) < 0)
	{
		close(w->fd);
		(void) unlinkat(w->dirfd, name, 0);
		tf_writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int
pgwt_tf_file_writer_create(const char *path, const pgwt_tf_file_opts *opts,
						   pgwt_tf_file_writer **out)
{
	const char *name;
	int			dirfd;
	int			rc;

	if (!path || !opts || !out)
		return -PGWT_TF_INVAL;
	if ((rc = tf_split_path(path, &dirfd, &name)) < 0)
		return rc;
	rc = tf_file_writer_create_at(dirfd, name, path, opts, out);
	close(dirfd);
	return rc;
}

/* The summary is an accelerator: when it fails, stop it, keep the trace. */
static void
tf_summary_failed(pgwt_tf_file_writer *w)
{
	tf_sum_writer_abandon(w->sum);
	w->sum = NULL;
	tf_summary_remove(w);
}

/* Stable insertion sort by ts: blocks are nearly sorted when not sorted. */
static void
tf_sort_records(pgwt_record *r, uint32_t n)
{
	uint32_t	i;

	for (i = 1; i < n; i++)
	{
		pgwt_record tmp = r[i];
		uint32_t	j = i;

		while (j > 0 && r[j - 1].ts_ns > tmp.ts_ns)
		{
			r[j] = r[j - 1];
			j--;
		}
		r[j] = tmp;
	}
}

static int
tf_write_block(pgwt_tf_file_writer *w, uint16_t type)
{
	tf_pending *pb = &w->pending[type];
	pgwt_tf_block_header hdr;
	size_t		len;
	int			rc;

	if (pb->n == 0)
		return 0;
	if (w->failed)
		return -PGWT_TF_IO;
	if (!pb->sorted)
		tf_sort_records(pb->recs, pb->n);
	if (w->opts.seed_layout)
		rc = tf_seed_block_encode(w->hdr.version, w->hdr.flags, type, w->sample_period_ns,
								  pb->recs, pb->n, w->raw,
								  w->out + PGWT_TF_BLOCK_HEADER_SIZE, &hdr);
	else
		rc = tf_block_encode(w->hdr.version, w->hdr.flags, type, w->sample_period_ns,
							 pb->recs, pb->n, w->raw,
							 w->out + PGWT_TF_BLOCK_HEADER_SIZE, &hdr);
	if (rc < 0)
		return rc;
	tf_block_header_encode(&hdr, w->out);
	len = PGWT_TF_BLOCK_HEADER_SIZE + hdr.compressed;

	if (w->idx_n == w->idx_cap)
	{
		uint32_t	cap = w->idx_cap ? w->idx_cap * 2 : 256;
		uint64_t   *a = realloc(w->idx_ts, cap * sizeof(uint64_t));
		uint64_t   *b;

		if (!a)
			return -PGWT_TF_NOMEM;
		w->idx_ts = a;
		b = realloc(w->idx_off, cap * sizeof(uint64_t));
		if (!b)
			return -PGWT_TF_NOMEM;
		w->idx_off = b;
		w->idx_cap = cap;
	}

	rc = tf_write_all(w->fd, w->out, len);
	if (rc < 0)
	{
		/* Cut what may have been written so the file stays well formed. */
		if (ftruncate(w->fd, (off_t) w->offset) < 0)
			w->failed = true;
		return rc;
	}
	if (w->opts.fsync_each_block && fdatasync(w->fd) < 0)
		return -PGWT_TF_IO;
	w->idx_ts[w->idx_n] = hdr.first_ts;
	w->idx_off[w->idx_n] = w->offset;
	w->idx_n++;
	w->offset += len;
	w->stats.blocks++;
	w->stats.bytes = w->offset;
	pb->n = 0;
	return 0;
}

/* Publishes the blocks written so far to live readers (after the write). */
static int
tf_commit(pgwt_tf_file_writer *w)
{
	int			rc;

	if (w->opts.seed_layout && w->opts.write_meta && w->meta_count != w->stats.blocks)
	{
		if ((rc = tf_seed_meta_store_at(w->dirfd, w->name, w->stats.blocks, w->opts.mode,
										w->opts.group_gid)) == 0)
			w->meta_count = w->stats.blocks;
		return rc;
	}
	if (w->meta_fd < 0 || w->meta_count == w->stats.blocks)
		return 0;
	if ((rc = tf_meta_store_at(&w->meta_fd, w->dirfd, w->name, w->stats.blocks,
							   w->opts.mode, w->opts.group_gid, &w->meta_stores)) == 0)
		w->meta_count = w->stats.blocks;
	return rc;
}

int
pgwt_tf_file_writer_append(pgwt_tf_file_writer *w, const pgwt_record *rec)
{
	tf_pending *pb;
	uint64_t	ts = rec->ts_ns;
	int			rc;

	if (rec->kind != PGWT_REC_TRANSITION && rec->kind != PGWT_REC_SAMPLE)
	{
		w->stats.rejected++;
		return -PGWT_TF_INVAL;
	}
	if (rec->kind == PGWT_REC_SAMPLE &&
		(rec->new_event >= PGWT_MARKER_FIRST || rec->weight_ns > INT64_MAX))
	{
		w->stats.rejected++;
		return -PGWT_TF_INVAL;
	}
	if (w->opts.seed_layout && !tf_seed_w_keeps(rec))
	{
		w->stats.seed_left_out++;
		return 0;
	}
	pb = &w->pending[rec->kind];
	if (pb->n > 0)
	{
		uint64_t	lo = ts < pb->min_ts ? ts : pb->min_ts;
		uint64_t	hi = ts > pb->max_ts ? ts : pb->max_ts;

		if (hi - lo > w->opts.max_block_span_ns &&
			((rc = tf_write_block(w, rec->kind)) < 0 || (rc = tf_commit(w)) < 0))
			return rc;
	}
	if (pb->n == 0)
	{
		pb->sorted = true;
		pb->min_ts = pb->max_ts = ts;
	}
	else
	{
		if (ts < pb->recs[pb->n - 1].ts_ns)
			pb->sorted = false;
		if (ts < pb->min_ts)
			pb->min_ts = ts;
		if (ts > pb->max_ts)
			pb->max_ts = ts;
	}
	pb->recs[pb->n++] = *rec;
	w->stats.records++;
	if (w->sum && tf_sum_writer_add(w->sum, rec) < 0)
		tf_summary_failed(w);
	if (pb->n == PGWT_TF_BLOCK_MAX_RECORDS &&
		((rc = tf_write_block(w, rec->kind)) < 0 || (rc = tf_commit(w)) < 0))
		return rc;
	return 0;
}

int
pgwt_tf_file_writer_set_sample_period(pgwt_tf_file_writer *w, uint64_t period_ns)
{
	int			rc = 0;

	if (period_ns > INT64_MAX)
		return -PGWT_TF_INVAL;
	if (period_ns != w->sample_period_ns &&
		(rc = tf_write_block(w, PGWT_TF_BLOCK_SAMPLES)) == 0)
		rc = tf_commit(w);
	if (rc == 0)
		w->sample_period_ns = period_ns;
	return rc;
}

int
pgwt_tf_file_writer_flush(pgwt_tf_file_writer *w)
{
	tf_pending *t = &w->pending[PGWT_TF_BLOCK_TRANSITIONS];
	tf_pending *s = &w->pending[PGWT_TF_BLOCK_SAMPLES];
	uint16_t	first = PGWT_TF_BLOCK_TRANSITIONS;
	int			rc;

	/* Older block first keeps the file close to time order. */
	if (s->n > 0 && (t->n == 0 || s->min_ts < t->min_ts))
		first = PGWT_TF_BLOCK_SAMPLES;
	if ((rc = tf_write_block(w, first)) < 0 ||
		(rc = tf_write_block(w, (uint16_t) (1 - first))) < 0)
	{
		/* the block that was written is still published */
		(void) tf_commit(w);
		return rc;
	}
	return tf_commit(w);
}

int
pgwt_tf_file_writer_finish(pgwt_tf_file_writer *w)
{
	uint8_t    *footer = NULL;
	size_t		len = 0;
	int			rc;

	rc = pgwt_tf_file_writer_flush(w);
	if (w->sum)
	{
		/* before the trace's footer: a finished trace has its summary */
		if (tf_sum_writer_finish(w->sum) < 0)
			tf_summary_remove(w);
		w->sum = NULL;
	}
	if (rc == 0)
		rc = tf_footer_encode(w->idx_ts, w->idx_off, w->idx_n, &footer, &len);
	if (rc == 0)
		rc = tf_write_all(w->fd, footer, len);
	free(footer);
	if (rc == 0 && fsync(w->fd) < 0)
		rc = -PGWT_TF_IO;
	if (close(w->fd) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	if (rc == 0 && (w->meta_fd >= 0 || (w->opts.seed_layout && w->opts.write_meta)))
	{
		/* The footer now describes the file; .meta only served readers
		 * of the live file. */
		tf_unlink_meta_at(w->dirfd, w->name);
	}
	tf_writer_free(w);
	return rc;
}

void
pgwt_tf_file_writer_abandon(pgwt_tf_file_writer *w)
{
	if (w->sum)
		tf_sum_writer_abandon(w->sum);
	close(w->fd);
	tf_writer_free(w);
}

const pgwt_tf_writer_stats *
pgwt_tf_file_writer_stats(const pgwt_tf_file_writer *w)
{
	return &w->stats;
}

const pgwt_tf_file_header *
pgwt_tf_file_writer_header(const pgwt_tf_file_writer *w)
{
	return &w->hdr;
}
