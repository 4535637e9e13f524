/*
 * summary_file.c
 *		Summary files (<trace>.sum): the writer a trace file writer owns,
 *		the reader of a file or a directory, and recovery of a leftover
 *		live summary (docs/TRACE_FORMAT.md section 11).
 *
 * Same lifecycle as the trace beside it: the live current.trace.sum has
 * its committed frame count in current.trace.sum.meta (one write() per
 * frame, then the count overwritten in place by one pwrite() after the
 * frames of one call, tracefmt's live protocol); it is archived under its trace's
 * archive name + ".sum" at rotation; recovery keeps the frames that
 * validate and cuts the torn tail. A frame is validated (bounds, checksum,
 * LZ4, payload) before any of it is used.
 *
 * Objects belong to one thread; no shared state.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefmt/summary.h"
#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

#define SF_STORED_MAX	((size_t) LZ4_COMPRESSBOUND(PGWT_TF_SUM_PAYLOAD_MAX))

/* ---- header and frame header --------------------------------------------- */

static void
sf_header_encode(const pgwt_tf_file_header *h, uint8_t *out)
{
	tf_put_u32(out, PGWT_TF_SUM_MAGIC);
	tf_put_u16(out + 4, PGWT_TF_SUM_VERSION);
	tf_put_u16(out + 6, h->flags & PGWT_TF_FLAG_LZ4);
	tf_put_u32(out + 8, h->pg_version);
	tf_put_u64(out + 12, h->start_realtime_ns);
	tf_put_u64(out + 20, h->start_monotonic_ns);
}

static int
sf_header_decode(const uint8_t *in, pgwt_tf_file_header *h)
{
	if (tf_get_u32(in) != PGWT_TF_SUM_MAGIC)
		return -PGWT_TF_BAD_MAGIC;
	h->version = tf_get_u16(in + 4);
	h->flags = tf_get_u16(in + 6);
	if (h->version < PGWT_TF_SUM_VERSION_OLDEST || h->version > PGWT_TF_SUM_VERSION)
		return -PGWT_TF_BAD_VERSION;
	if (h->flags & ~PGWT_TF_FLAG_LZ4)
		return -PGWT_TF_BAD_HEADER;
	h->pg_version = tf_get_u32(in + 8);
	h->start_realtime_ns = tf_get_u64(in + 12);
	h->start_monotonic_ns = tf_get_u64(in + 20);
	return 0;
}

typedef struct sf_frame
{
	uint64_t	sec_ts;
	uint32_t	stored;
	uint32_t	raw;
	uint16_t	checksum;
	uint16_t	span_code;		/* 0 = a second, 1 = a minute rollup */
	uint32_t	reach_ms;		/* earliest crossing start before sec_ts */
} sf_frame;

static int
sf_frame_decode(const uint8_t *in, uint16_t flags, sf_frame *f)
{
	f->sec_ts = tf_get_u64(in);
	f->stored = tf_get_u32(in + 8);
	f->raw = tf_get_u32(in + 12);
	f->checksum = tf_get_u16(in + 16);
	f->span_code = tf_get_u16(in + 18);
	f->reach_ms = tf_get_u32(in + 20);
	if (f->span_code > 1 ||
		f->sec_ts % (f->span_code ? PGWT_TF_SUM_MINUTE_NS : PGWT_TF_SUM_SECOND_NS) != 0 ||
		f->raw < 8 || f->raw > PGWT_TF_SUM_PAYLOAD_MAX || f->stored == 0 ||
		((flags & PGWT_TF_FLAG_LZ4) ? f->stored > SF_STORED_MAX : f->stored != f->raw))
		return -PGWT_TF_BAD_BLOCK;
	return 0;
}

/* ---- writer ----------------------------------------------------------------- */

struct tf_sum_writer
{
	int			fd;
	bool		failed;
	char	   *path;
	pgwt_tf_file_opts opts;
	uint16_t	flags;
	uint64_t	offset;
	uint64_t	frames;
	int			meta_fd;		/* .sum.meta, -1 without write_meta */
	uint64_t	meta_frames;	/* the count it holds */
	unsigned	meta_stores;
	pgwt_tf_sum_builder *b;
	uint8_t    *raw;
	size_t		raw_cap;
	uint8_t    *out;
	size_t		out_cap;
};

static int
sf_grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t    *n;

	if (need <= *cap)
		return 0;
	n = realloc(*buf, need);
	if (!n)
		return -PGWT_TF_NOMEM;
	*buf = n;
	*cap = need;
	return 0;
}

static int
sf_write_second(const pgwt_tf_second *s, void *arg)
{
	tf_sum_writer *w = arg;
	size_t		max = pgwt_tf_second_encoded_max(s);
	size_t		raw_len,
				stored;
	uint8_t    *payload;
	int			rc;

	if (w->failed)
		return -PGWT_TF_IO;
	if ((rc = sf_grow(&w->raw, &w->raw_cap, max)) < 0 ||
		(rc = sf_grow(&w->out, &w->out_cap, PGWT_TF_SUM_FRAME_HEADER_SIZE +
					  (size_t) LZ4_compressBound((int) max))) < 0)
		return rc;
	raw_len = pgwt_tf_second_encode(s, w->raw);
	if (raw_len > PGWT_TF_SUM_PAYLOAD_MAX)
		return -PGWT_TF_INVAL;
	payload = w->out + PGWT_TF_SUM_FRAME_HEADER_SIZE;
	if (w->flags & PGWT_TF_FLAG_LZ4)
	{
		int			c = LZ4_compress_default((const char *) w->raw, (char *) payload,
											 (int) raw_len,
											 LZ4_compressBound((int) raw_len));

		if (c <= 0)
			return -PGWT_TF_INVAL;
		stored = (size_t) c;
	}
	else
	{
		memcpy(payload, w->raw, raw_len);
		stored = raw_len;
	}
	tf_put_u64(w->out, s->sec_ts);
	tf_put_u32(w->out + 8, (uint32_t) stored);
	tf_put_u32(w->out + 12, (uint32_t) raw_len);
	tf_put_u16(w->out + 16, tf_checksum16(payload, stored));
	tf_put_u16(w->out + 18, (s->flags & PGWT_TF_SUM_F_MINUTE) ? 1 : 0);
	{
		uint64_t	reach = 0;
		uint32_t	i;

		for (i = 0; i < s->ncrossings; i++)
			if (s->crossings[i].ns > reach)
				reach = s->crossings[i].ns;
		reach = (reach + 999999) / 1000000;
		tf_put_u32(w->out + 20, reach > UINT32_MAX ? UINT32_MAX : (uint32_t) reach);
	}
	rc = tf_write_all(w->fd, w->out, PGWT_TF_SUM_FRAME_HEADER_SIZE + stored);
	if (rc < 0)
	{
		if (ftruncate(w->fd, (off_t) w->offset) < 0)
			w->failed = true;
		return rc;
	}
	w->offset += PGWT_TF_SUM_FRAME_HEADER_SIZE + stored;
	w->frames++;
	return 0;
}

/* Publishes the frames written so far to live readers. */
static int
sf_commit(tf_sum_writer *w)
{
	int			rc;

	if (w->meta_fd < 0 || w->meta_frames == w->frames)
		return 0;
	if ((rc = tf_meta_store(&w->meta_fd, w->path, w->frames, w->opts.mode,
							w->opts.group_gid, &w->meta_stores)) == 0)
		w->meta_frames = w->frames;
	return rc;
}

int
tf_sum_writer_create(const char *trace_path, const pgwt_tf_file_opts *opts,
					 const pgwt_tf_file_header *hdr, tf_sum_writer **out)
{
	tf_sum_writer *w = calloc(1, sizeof(*w));
	uint8_t		buf[PGWT_TF_FILE_HEADER_SIZE];
	size_t		len = strlen(trace_path) + sizeof(PGWT_TF_SUM_SUFFIX);
	int			rc;

	if (!w || !(w->path = malloc(len)))
	{
		free(w);
		return -PGWT_TF_NOMEM;
	}
	snprintf(w->path, len, "%s%s", trace_path, PGWT_TF_SUM_SUFFIX);
	w->opts = *opts;
	w->flags = hdr->flags & PGWT_TF_FLAG_LZ4;
	w->fd = -1;
	w->meta_fd = -1;
	if ((rc = pgwt_tf_sum_builder_create(sf_write_second, w, &w->b)) < 0)
		goto fail;
	w->fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, opts->mode);
	if (w->fd < 0)
	{
		rc = errno == EEXIST ? -PGWT_TF_EXISTS : -PGWT_TF_IO;
		goto fail;
	}
	(void) fchmod(w->fd, (mode_t) opts->mode);
	if (opts->group_gid >= 0)
		(void) fchown(w->fd, (uid_t) -1, (gid_t) opts->group_gid);
	sf_header_encode(hdr, buf);
	rc = tf_write_all(w->fd, buf, sizeof(buf));
	if (rc == 0 && opts->write_meta)
		rc = tf_meta_create(w->path, 0, opts->mode, opts->group_gid, &w->meta_fd);
	if (rc < 0)
	{
		close(w->fd);
		unlink(w->path);
		w->fd = -1;
		goto fail;
	}
	w->offset = sizeof(buf);
	*out = w;
	return 0;

fail:
	pgwt_tf_sum_builder_free(w->b);
	free(w->path);
	free(w);
	return rc;
}

int
tf_sum_writer_add(tf_sum_writer *w, const pgwt_record *rec)
{
	int			rc = pgwt_tf_sum_builder_add(w->b, rec);

	return rc != 0 ? rc : sf_commit(w);
}

static void
sf_writer_free(tf_sum_writer *w)
{
	if (w->meta_fd >= 0)
		close(w->meta_fd);
	pgwt_tf_sum_builder_free(w->b);
	free(w->raw);
	free(w->out);
	free(w->path);
	free(w);
}

int
tf_sum_writer_finish(tf_sum_writer *w)
{
	int			rc = pgwt_tf_sum_builder_finish(w->b);

	if (fsync(w->fd) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	if (close(w->fd) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	if (rc == 0 && w->meta_fd >= 0)
		tf_unlink_meta_of(w->path);
	sf_writer_free(w);
	return rc;
}

void
tf_sum_writer_abandon(tf_sum_writer *w)
{
	close(w->fd);
	sf_writer_free(w);
}

/* ---- one file ------------------------------------------------------------ */

typedef struct sf_file
{
	int			fd;
	pgwt_tf_file_header hdr;
	uint64_t	size;
	uint64_t	off;
	uint64_t	limit_frames;	/* live: the committed count; else UINT64_MAX */
	uint64_t	frames_read;
	uint64_t	valid_end;		/* just past the last frame that decoded */
	tf_sum_file_id id;			/* the file as opened (summary_memo.c) */
	uint64_t	seen_lo,
				seen_hi;		/* frame starts of the headers walked */
	/* read-ahead: most frames are small and a walk reads them in file
	 * order (or skips them by header), so one pread serves many */
	uint64_t	ra_off;
	size_t		ra_len;
	uint8_t		ra[32768];
} sf_file;

/* n bytes at off, through the read-ahead when they fit in it. */
static int
sf_pread(sf_file *f, void *dst, size_t n, uint64_t off)
{
	size_t		want;
	int			rc;

	if (off >= f->ra_off && off + n <= f->ra_off + f->ra_len)
	{
		memcpy(dst, f->ra + (off - f->ra_off), n);
		return 0;
	}
	if (n > sizeof(f->ra) || off >= f->size)
		return tf_pread_all(f->fd, dst, n, (off_t) off);
	want = f->size - off < sizeof(f->ra) ? (size_t) (f->size - off) : sizeof(f->ra);
	if (want < n)
		return tf_pread_all(f->fd, dst, n, (off_t) off);
	f->ra_len = 0;
	if ((rc = tf_pread_all(f->fd, f->ra, want, (off_t) off)) < 0)
		return rc;
	f->ra_off = off;
	f->ra_len = want;
	memcpy(dst, f->ra, n);
	return 0;
}

static int
sf_open(const char *path, bool live, sf_file *f)
{
	uint8_t		buf[PGWT_TF_FILE_HEADER_SIZE];
	struct stat st;
	int			rc;

	memset(f, 0, offsetof(sf_file, ra));
	f->fd = pgwt_tf_open_regular(path);
	if (f->fd < 0)
		return f->fd;
	if (fstat(f->fd, &st) < 0)
		rc = -PGWT_TF_IO;
	else if ((rc = tf_pread_all(f->fd, buf, sizeof(buf), 0)) == 0)
		rc = sf_header_decode(buf, &f->hdr);
	if (rc < 0)
	{
		close(f->fd);
		f->fd = -1;
		return rc;
	}
	f->size = (uint64_t) st.st_size;
	f->id.dev = (uint64_t) st.st_dev;
	f->id.ino = (uint64_t) st.st_ino;
	f->id.size = f->size;
	f->id.mtime_ns = (uint64_t) st.st_mtim.tv_sec * 1000000000ull + (uint64_t) st.st_mtim.tv_nsec;
	f->seen_lo = UINT64_MAX;
	f->off = f->valid_end = sizeof(buf);
	f->limit_frames = UINT64_MAX;
	if (live)
	{
		/* the committed count, read after the size: never past it */
		uint64_t	n;

		if (tf_read_meta(path, &n) < 0)
			n = 0;
		f->limit_frames = n;
	}
	return 0;
}

/*
 * Next frame of f into sb. 1 = decoded, 0 = end, -PGWT_TF_BAD_PAYLOAD etc.
 * for a bad frame whose header was valid (skipped, the walk goes on), and
 * -PGWT_TF_BAD_BLOCK for an unusable header (the walk ends). stored/raw
 * are scratch buffers.
 */
typedef struct sf_want
{
	uint64_t	t_start;
	uint64_t	t_end;
	pgwt_tf_sum_filter filter;
	void	   *arg;
} sf_want;

/* 2 = frame skipped by want (not decoded), else as described above. */
static int
sf_next(sf_file *f, uint8_t **stored, size_t *stored_cap, uint8_t **raw,
		size_t *raw_cap, pgwt_tf_second_buf *sb, const sf_want *want)
{
	uint8_t		hb[PGWT_TF_SUM_FRAME_HEADER_SIZE];
	sf_frame	fr;
	int			rc;

	if (f->frames_read >= f->limit_frames ||
		f->off + PGWT_TF_SUM_FRAME_HEADER_SIZE > f->size)
		return 0;
	if ((rc = sf_pread(f, hb, sizeof(hb), f->off)) < 0)
		return rc == -PGWT_TF_TRUNCATED ? 0 : rc;
	if (sf_frame_decode(hb, f->hdr.flags, &fr) < 0 ||
		f->off + sizeof(hb) + fr.stored > f->size)
		return -PGWT_TF_BAD_BLOCK;
	if (fr.sec_ts < f->seen_lo)
		f->seen_lo = fr.sec_ts;
	if (fr.sec_ts > f->seen_hi)
		f->seen_hi = fr.sec_ts;
	if (want)
	{
		uint64_t	span = fr.span_code ? PGWT_TF_SUM_MINUTE_NS : PGWT_TF_SUM_SECOND_NS;

		if (fr.sec_ts < want->t_start || fr.sec_ts > want->t_end ||
			(want->filter && !want->filter(fr.sec_ts, span, (uint64_t) fr.reach_ms * 1000000ull,
										   want->arg)))
		{
			/* skipped unread: its checksum is not verified either */
			f->off += sizeof(hb) + fr.stored;
			f->frames_read++;
			f->valid_end = f->off;
			return 2;
		}
	}
	if ((rc = sf_grow(stored, stored_cap, fr.stored)) < 0 ||
		(rc = sf_grow(raw, raw_cap, fr.raw)) < 0)
		return rc;
	if ((rc = sf_pread(f, *stored, fr.stored, f->off + sizeof(hb))) < 0)
		return rc;
	f->off += sizeof(hb) + fr.stored;
	f->frames_read++;
	if (tf_checksum16(*stored, fr.stored) != fr.checksum)
		return -PGWT_TF_CHECKSUM;
	if (f->hdr.flags & PGWT_TF_FLAG_LZ4)
	{
		int			d = LZ4_decompress_safe((const char *) *stored, (char *) *raw,
											(int) fr.stored, (int) fr.raw);

		if (d < 0 || (uint32_t) d != fr.raw)
			return -PGWT_TF_LZ4;
	}
	else
		memcpy(*raw, *stored, fr.raw);
	if ((rc = pgwt_tf_second_decode(*raw, fr.raw, sb)) < 0)
		return rc;
	if (sb->s.sec_ts != fr.sec_ts ||
		(sb->s.flags & PGWT_TF_SUM_F_MINUTE) != (fr.span_code ? PGWT_TF_SUM_F_MINUTE : 0))
		return -PGWT_TF_BAD_PAYLOAD;
	{
		uint64_t	reach = 0;
		uint32_t	i;

		for (i = 0; i < sb->s.ncrossings; i++)
			if (sb->s.crossings[i].ns > reach)
				reach = sb->s.crossings[i].ns;
		/* the header's reach lets readers skip frames: it must not lie */
		if ((reach + 999999) / 1000000 > fr.reach_ms && fr.reach_ms != UINT32_MAX)
			return -PGWT_TF_BAD_PAYLOAD;
	}
	f->valid_end = f->off;
	return 1;
}

/* ---- reader ------------------------------------------------------------------ */

typedef struct sf_entry
{
	char	   *path;
	bool		live;
	uint64_t	start_rt;
} sf_entry;

struct pgwt_tf_sum_reader
{
	sf_entry   *files;
	size_t		nfiles;
	size_t		next_file;
	bool		open;
	sf_file		cur;
	sf_want		want;
	pgwt_tf_sum_memo *memo;		/* the caller's, or NULL */
	uint8_t    *stored;
	size_t		stored_cap;
	uint8_t    *raw;
	size_t		raw_cap;
	pgwt_tf_second_buf sb;
	pgwt_tf_sum_read_stats stats;
};

static bool
sf_has_suffix(const char *s, const char *suffix)
{
	size_t		a = strlen(s),
				b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int
sf_entry_cmp(const void *a, const void *b)
{
	const sf_entry *x = a,
			   *y = b;

	if (x->start_rt != y->start_rt)
		return x->start_rt < y->start_rt ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int
sf_add_entry(pgwt_tf_sum_reader *r, const char *path, bool live, size_t *cap)
{
	sf_file		f;
	int			rc = sf_open(path, false, &f);

	if (rc == -PGWT_TF_NOT_FOUND)
		return 0;				/* rotated away since the listing */
	if (rc == -PGWT_TF_NOMEM)
		return rc;
	r->stats.files++;
	if (rc < 0)
	{
		r->stats.files_bad++;
		return 0;
	}
	close(f.fd);
	if (r->nfiles == *cap)
	{
		size_t		c = *cap ? *cap * 2 : 16;
		sf_entry   *n = realloc(r->files, c * sizeof(*n));

		if (!n)
			return -PGWT_TF_NOMEM;
		r->files = n;
		*cap = c;
	}
	if (!(r->files[r->nfiles].path = strdup(path)))
		return -PGWT_TF_NOMEM;
	r->files[r->nfiles].live = live;
	r->files[r->nfiles].start_rt = f.hdr.start_realtime_ns;
	r->nfiles++;
	return 0;
}

int
pgwt_tf_sum_reader_open(const char *path, uint64_t t_start, uint64_t t_end,
						pgwt_tf_sum_reader **out)
{
	pgwt_tf_sum_reader *r;
	struct stat st;
	size_t		cap = 0;
	int			rc = 0;

	if (!path || !out || stat(path, &st) < 0)
		return path && out ? -PGWT_TF_IO : -PGWT_TF_INVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -PGWT_TF_NOMEM;
	r->want.t_start = t_start;
	r->want.t_end = t_end;
	if (S_ISDIR(st.st_mode))
	{
		DIR		   *d = opendir(path);
		struct dirent *de;

		if (!d)
			rc = -PGWT_TF_IO;
		while (rc == 0 && (de = readdir(d)) != NULL)
		{
			char		p[4096];
			bool		live = strcmp(de->d_name, PGWT_TF_CURRENT_NAME PGWT_TF_SUM_SUFFIX) == 0;

			if (!live && !sf_has_suffix(de->d_name, PGWT_TF_ARCHIVE_SUFFIX PGWT_TF_SUM_SUFFIX))
				continue;
			if (snprintf(p, sizeof(p), "%s/%s", path, de->d_name) >= (int) sizeof(p))
				continue;
			rc = sf_add_entry(r, p, live, &cap);
		}
		if (d)
			closedir(d);
		if (rc == 0 && r->nfiles == 0)
			rc = -PGWT_TF_NOT_FOUND;
	}
	else if (!sf_has_suffix(path, PGWT_TF_SUM_SUFFIX))
	{
		/* a trace file: its summary beside it, when there is one */
		char		p[4096];
		struct stat sst;

		if (snprintf(p, sizeof(p), "%s%s", path, PGWT_TF_SUM_SUFFIX) >= (int) sizeof(p) ||
			stat(p, &sst) < 0)
			rc = -PGWT_TF_NOT_FOUND;
		else if ((rc = sf_add_entry(r, p, false, &cap)) == 0 && r->nfiles == 0)
			rc = -PGWT_TF_BAD_HEADER;
	}
	else
	{
		rc = sf_add_entry(r, path, false, &cap);
		if (rc == 0 && r->nfiles == 0)
			rc = -PGWT_TF_BAD_HEADER;
	}
	if (rc < 0)
	{
		pgwt_tf_sum_reader_close(r);
		return rc;
	}
	qsort(r->files, r->nfiles, sizeof(*r->files), sf_entry_cmp);
	*out = r;
	return 0;
}

/*
 * The live summary e was archived after the listing: point e at the
 * archive (its trace archive's name + .sum) with the same start times.
 */
static bool
sf_find_archived(sf_entry *e)
{
	const char *slash = strrchr(e->path, '/');
	int			dirlen = slash ? (int) (slash - e->path) : 1;
	const char *dir = slash ? e->path : ".";
	int			zone;

	for (zone = 0; zone < 2; zone++)
	{
		unsigned	seq;

		for (seq = 0; seq < 100; seq++)
		{
			char		name[128];
			char		path[4096];
			sf_file		f;
			int			rc;
			char	   *p;

			if (pgwt_tf_archive_name(e->start_rt, zone == 1, seq, name, sizeof(name)) < 0 ||
				snprintf(path, sizeof(path), "%.*s/%s%s", dirlen, dir, name,
						 PGWT_TF_SUM_SUFFIX) >= (int) sizeof(path))
				break;
			rc = sf_open(path, false, &f);
			if (rc == -PGWT_TF_NOT_FOUND)
				break;
			if (rc < 0)
				continue;
			close(f.fd);
			if (f.hdr.start_realtime_ns != e->start_rt)
				continue;
			if (!(p = strdup(path)))
				return false;
			free(e->path);
			e->path = p;
			e->live = false;
			return true;
		}
	}
	return false;
}

/* true: the memo says no frame of the opened file f starts in want's range */
static bool
sf_memo_misses(pgwt_tf_sum_memo *m, const sf_file *f, const char *path, const sf_want *want)
{
	uint64_t	lo,
				hi;
	bool		any;

	if (!m || !tf_sum_memo_get(m, path, &f->id, &lo, &hi, &any))
		return false;
	return !any || hi < want->t_start || lo > want->t_end;
}

int
pgwt_tf_sum_reader_next(pgwt_tf_sum_reader *r, const pgwt_tf_second **s)
{
	for (;;)
	{
		int			rc;

		if (!r->open)
		{
			sf_entry   *e;

			if (r->next_file >= r->nfiles)
				return 0;
			e = &r->files[r->next_file++];
			rc = sf_open(e->path, e->live, &r->cur);
			if (rc == -PGWT_TF_NOT_FOUND && e->live && sf_find_archived(e))
			{
				/* archived between the listing and now: read the archive */
				r->next_file--;
				continue;
			}
			if (rc == -PGWT_TF_NOMEM)
				return rc;
			if (rc < 0)
			{
				r->stats.files_bad++;
				continue;
			}
			if (!e->live && sf_memo_misses(r->memo, &r->cur, e->path, &r->want))
			{
				/* no frame of it in the range: every header would be skipped */
				close(r->cur.fd);
				continue;
			}
			r->open = true;
		}
		rc = sf_next(&r->cur, &r->stored, &r->stored_cap, &r->raw, &r->raw_cap, &r->sb,
					 &r->want);
		if (rc == 2)
			continue;
		if (rc == 1)
		{
			r->stats.frames++;
			*s = &r->sb.s;
			return 1;
		}
		if (rc == -PGWT_TF_NOMEM || rc == -PGWT_TF_IO)
			return rc;
		if (rc < 0 && rc != -PGWT_TF_BAD_BLOCK)
		{
			r->stats.frames_bad++;
			continue;
		}
		if (rc == -PGWT_TF_BAD_BLOCK)
			r->stats.bytes_truncated += r->cur.size - r->cur.off;
		else if (rc == 0 && r->memo && !r->files[r->next_file - 1].live)
			tf_sum_memo_put(r->memo, r->files[r->next_file - 1].path, &r->cur.id, r->cur.seen_lo,
							r->cur.seen_hi, r->cur.seen_lo != UINT64_MAX);
		close(r->cur.fd);
		r->open = false;
	}
}

void
pgwt_tf_sum_reader_set_filter(pgwt_tf_sum_reader *r, pgwt_tf_sum_filter f, void *arg)
{
	r->want.filter = f;
	r->want.arg = arg;
}

void
pgwt_tf_sum_reader_set_memo(pgwt_tf_sum_reader *r, pgwt_tf_sum_memo *m)
{
	r->memo = m;
}

const pgwt_tf_sum_read_stats *
pgwt_tf_sum_reader_stats(const pgwt_tf_sum_reader *r)
{
	return &r->stats;
}

void
pgwt_tf_sum_reader_close(pgwt_tf_sum_reader *r)
{
	size_t		i;

	if (!r)
		return;
	if (r->open)
		close(r->cur.fd);
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i].path);
	free(r->files);
	free(r->stored);
	free(r->raw);
	pgwt_tf_second_buf_free(&r->sb);
	free(r);
}

/* ---- recovery ---------------------------------------------------------------- */

int
tf_sum_recover(const char *sum_path, uint64_t *bytes_cut)
{
	sf_file		f;
	uint8_t    *stored = NULL,
			   *raw = NULL;
	size_t		sc = 0,
				rcap = 0;
	pgwt_tf_second_buf sb;
	uint64_t	good_end;
	int			rc,
				fd;

	memset(&sb, 0, sizeof(sb));
	rc = sf_open(sum_path, false, &f);
	if (rc < 0)
		return rc;
	good_end = f.off;
	for (;;)
	{
		rc = sf_next(&f, &stored, &sc, &raw, &rcap, &sb, NULL);
		if (rc == 1)
		{
			good_end = f.valid_end;
			continue;
		}
		if (rc == 0 || rc == -PGWT_TF_BAD_BLOCK)
		{
			rc = 0;
			break;
		}
		if (rc == -PGWT_TF_NOMEM || rc == -PGWT_TF_IO)
			break;
		/* a bad frame: cut here, a summary is only an accelerator */
		rc = 0;
		break;
	}
	close(f.fd);
	free(stored);
	free(raw);
	pgwt_tf_second_buf_free(&sb);
	if (rc < 0)
		return rc;
	fd = open(sum_path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -PGWT_TF_IO;
	if (ftruncate(fd, (off_t) good_end) < 0 || fsync(fd) < 0)
		rc = -PGWT_TF_IO;
	if (close(fd) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	if (bytes_cut)
		*bytes_cut = f.size - good_end;
	return rc;
}
