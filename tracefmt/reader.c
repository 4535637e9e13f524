/*
 * reader.c
 *		The public reader: one trace file, or every trace file of a
 *		directory in time order (archives by their header's start time,
 *		the live current.trace last). One file is open at a time, so memory
 *		does not grow with the number or length of files.
 *
 * Rotation race: a writer may archive current.trace between our listing
 * and our open. A live file that vanished before its header was read
 * makes the listing start over (a few times); one that vanished after it
 * is found again under the archive name of its start time (UTC, then
 * local time; collision numbers in order) with the same header, and read
 * as the finished file it became.
 *
 * Three ways to consume the same stream: a block at a time (the fast
 * path: no per-record call), a record iterator, and a callback.
 * The reader object belongs to one thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefmt/tf_internal.h"

typedef struct tf_file_entry
{
	char	   *path;
	pgwt_tf_file_header hdr;
	bool		live;
	unsigned	seq;			/* collision number of an archive name */
} tf_file_entry;

struct pgwt_tf_reader
{
	pgwt_tf_read_opts opts;
	pgwt_tf_read_stats stats;
	tf_file_entry *files;
	uint32_t	nfiles;
	uint32_t	cur_index;		/* file being read */
	tf_file_reader *cur;

	/* record iterator state over the current block */
	pgwt_tf_block blk;
	uint32_t	it_pos;
	bool		it_valid;

	pgwt_record recs[PGWT_TF_BLOCK_MAX_RECORDS];
};

static bool
tf_has_suffix(const char *s, const char *suffix)
{
	size_t		a = strlen(s),
				b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool
tf_is_live_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strcmp(base, PGWT_TF_CURRENT_NAME) == 0;
}

/* Reads just the file header; < 0 if it is not a readable trace file. */
static int
tf_peek_header(const char *path, pgwt_tf_file_header *h)
{
	uint8_t		buf[PGWT_TF_FILE_HEADER_SIZE];
	int			fd = pgwt_tf_open_regular(path);
	int			rc;

	if (fd < 0)
		return fd;
	rc = tf_pread_all(fd, buf, sizeof(buf), 0);
	close(fd);
	if (rc < 0)
		return rc;
	return tf_file_header_decode(buf, h);
}

static int
tf_add_file(pgwt_tf_reader *r, const char *path, uint32_t *cap)
{
	tf_file_entry *e;
	pgwt_tf_file_header h;
	int			rc = tf_peek_header(path, &h);

	if (rc == -PGWT_TF_NOT_FOUND && tf_is_live_name(path))
		return rc;				/* rotated away: the caller lists again */
	if (rc < 0)
	{
		r->stats.files_bad++;
		return 0;
	}
	if (r->nfiles == *cap)
	{
		uint32_t	c = *cap ? *cap * 2 : 16;
		tf_file_entry *a = realloc(r->files, c * sizeof(*a));

		if (!a)
			return -PGWT_TF_NOMEM;
		r->files = a;
		*cap = c;
	}
	e = &r->files[r->nfiles];
	if (!(e->path = strdup(path)))
		return -PGWT_TF_NOMEM;
	e->hdr = h;
	e->live = tf_is_live_name(path);
	e->seq = 0;
	{
		const char *base = strrchr(path, '/');
		int64_t		hour;

		/* files started in the same instant keep their archive order */
		if (pgwt_tf_archive_parse(base ? base + 1 : path, false, &hour, &e->seq) < 0)
			e->seq = 0;
	}
	r->nfiles++;
	return 0;
}

static int
tf_file_order(const void *a, const void *b)
{
	const tf_file_entry *x = a,
			   *y = b;

	if (x->live != y->live)
		return x->live ? 1 : -1;
	if (x->hdr.start_realtime_ns != y->hdr.start_realtime_ns)
		return x->hdr.start_realtime_ns < y->hdr.start_realtime_ns ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int
tf_list_dir_once(pgwt_tf_reader *r, const char *dir)
{
	DIR		   *d = opendir(dir);
	struct dirent *de;
	uint32_t	cap = 0;
	int			rc = 0;

	if (!d)
		return -PGWT_TF_IO;
	while (rc == 0 && (de = readdir(d)) != NULL)
	{
		char		path[4096];

		if (!tf_has_suffix(de->d_name, PGWT_TF_ARCHIVE_SUFFIX) &&
			strcmp(de->d_name, PGWT_TF_CURRENT_NAME) != 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int) sizeof(path))
			continue;
		rc = tf_add_file(r, path, &cap);
	}
	closedir(d);
	if (rc == 0 && r->nfiles > 1)
		qsort(r->files, r->nfiles, sizeof(*r->files), tf_file_order);
	return rc;
}

static int
tf_list_dir(pgwt_tf_reader *r, const char *dir)
{
	int			attempt;
	int			rc = 0;

	for (attempt = 0; attempt < 5; attempt++)
	{
		uint32_t	i;

		rc = tf_list_dir_once(r, dir);
		if (rc != -PGWT_TF_NOT_FOUND)
			return rc;
		/* current.trace was archived while we listed: list again */
		for (i = 0; i < r->nfiles; i++)
			free(r->files[i].path);
		free(r->files);
		r->files = NULL;
		r->nfiles = 0;
		r->stats.files_bad = 0;
	}
	return rc;
}

/*
 * The live file e was archived after the listing read its header: point e
 * at the archive with the same header. false when none is found.
 */
static bool
tf_find_archived(tf_file_entry *e)
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
			pgwt_tf_file_header h;
			int			rc;
			char	   *p;

			if (pgwt_tf_archive_name(e->hdr.start_realtime_ns, zone == 1, seq,
									 name, sizeof(name)) < 0 ||
				snprintf(path, sizeof(path), "%.*s/%s", dirlen, dir, name) >= (int) sizeof(path))
				break;
			rc = tf_peek_header(path, &h);
			if (rc == -PGWT_TF_NOT_FOUND)
				break;			/* names are taken in order */
			if (rc < 0 || h.start_realtime_ns != e->hdr.start_realtime_ns ||
				h.start_monotonic_ns != e->hdr.start_monotonic_ns)
				continue;
			if (!(p = strdup(path)))
				return false;
			free(e->path);
			e->path = p;
			e->live = false;
			e->seq = seq;
			return true;
		}
	}
	return false;
}

int
pgwt_tf_reader_open(const char *path, const pgwt_tf_read_opts *opts,
					pgwt_tf_reader **out)
{
	pgwt_tf_reader *r;
	struct stat st;
	uint32_t	cap = 0;
	int			rc;

	if (!path || !out)
		return -PGWT_TF_INVAL;
	if (stat(path, &st) < 0)
		return -PGWT_TF_IO;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -PGWT_TF_NOMEM;
	if (opts)
		r->opts = *opts;
	else
		r->opts.t_end = UINT64_MAX;
	if (opts && opts->t_start == 0 && opts->t_end == 0)
		r->opts.t_end = UINT64_MAX;		/* zeroed options mean "all" */
	if (r->opts.t_start > r->opts.t_end)
	{
		free(r);
		return -PGWT_TF_INVAL;
	}

	if (S_ISDIR(st.st_mode))
		rc = tf_list_dir(r, path);
	else
	{
		rc = tf_add_file(r, path, &cap);
		if (rc == 0 && r->nfiles == 0)
		{
			/* a single file that is not a trace file is the caller's error */
			pgwt_tf_file_header h;

			rc = tf_peek_header(path, &h);
			if (rc == 0)
				rc = -PGWT_TF_BAD_HEADER;
		}
	}
	if (rc == 0 && r->nfiles == 0)
		rc = -PGWT_TF_NOT_FOUND;
	if (rc < 0)
	{
		pgwt_tf_reader_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void
pgwt_tf_reader_close(pgwt_tf_reader *r)
{
	uint32_t	i;

	if (!r)
		return;
	tf_file_reader_close(r->cur);
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i].path);
	free(r->files);
	free(r);
}

/* Maps a realtime bound onto a file's monotonic timestamps, saturating. */
static uint64_t
tf_map_realtime(const pgwt_tf_file_header *h, uint64_t t)
{
	if (t == UINT64_MAX)
		return UINT64_MAX;
	if (t >= h->start_realtime_ns)
	{
		uint64_t	d = t - h->start_realtime_ns;

		return d > UINT64_MAX - h->start_monotonic_ns ? UINT64_MAX : h->start_monotonic_ns + d;
	}
	else
	{
		uint64_t	d = h->start_realtime_ns - t;

		return d > h->start_monotonic_ns ? 0 : h->start_monotonic_ns - d;
	}
}

int
pgwt_tf_reader_next_block(pgwt_tf_reader *r, pgwt_tf_block *blk)
{
	return pgwt_tf_reader_next_block_into(r, r->recs, blk);
}

int
pgwt_tf_reader_next_block_into(pgwt_tf_reader *r, pgwt_record *buf, pgwt_tf_block *blk)
{
	for (;;)
	{
		tf_file_entry *e;
		uint32_t	n;
		uint16_t	type;
		uint64_t	period;
		int			rc;

		if (r->cur_index >= r->nfiles)
			return 0;
		e = &r->files[r->cur_index];
		if (!r->cur)
		{
			rc = tf_file_reader_open(e->path, e->live, r->opts.ignore_meta,
									 &r->stats, &r->cur);
			if (rc == -PGWT_TF_NOMEM)
				return rc;
			if (rc < 0 && e->live && access(e->path, F_OK) < 0 && errno == ENOENT &&
				tf_find_archived(e))
				continue;		/* rotated since the listing: read the archive */
			if (rc < 0)
			{
				/* vanished (retention) or damaged since the listing */
				r->stats.files_bad++;
				r->cur_index++;
				continue;
			}
			e->hdr = *tf_file_reader_header(r->cur);
			tf_file_reader_skip_cpu(r->cur, r->opts.skip_cpu);
			if (r->opts.range_realtime)
				tf_file_reader_set_range(r->cur, tf_map_realtime(&e->hdr, r->opts.t_start),
										 tf_map_realtime(&e->hdr, r->opts.t_end));
			else
				tf_file_reader_set_range(r->cur, r->opts.t_start, r->opts.t_end);
			tf_file_reader_skip_samples(r->cur, r->opts.skip_samples);
			tf_file_reader_set_shift(r->cur, r->opts.ts_realtime ?
									 pgwt_tf_to_realtime(&e->hdr, 0) : 0);
		}
		rc = tf_file_reader_next(r->cur, buf, &n, &type, &period);
		if (rc < 0)
			return rc;
		if (rc == 1)
		{
			blk->recs = buf;
			blk->n = n;
			blk->type = type;
			blk->sample_period_ns = period;
			blk->file = &e->hdr;
			blk->file_index = r->cur_index;
			return 1;
		}
		/* The live file is last; keep it open so poll can continue it. */
		if (e->live && r->cur_index + 1 == r->nfiles)
			return 0;
		tf_file_reader_close(r->cur);
		r->cur = NULL;
		r->cur_index++;
	}
}

int
pgwt_tf_reader_next(pgwt_tf_reader *r, pgwt_record *rec)
{
	while (!r->it_valid || r->it_pos >= r->blk.n)
	{
		int			rc = pgwt_tf_reader_next_block(r, &r->blk);

		if (rc <= 0)
		{
			r->it_valid = false;
			return rc;
		}
		r->it_valid = true;
		r->it_pos = 0;
	}
	*rec = r->blk.recs[r->it_pos++];
	return 1;
}

int
pgwt_tf_reader_foreach(pgwt_tf_reader *r, pgwt_tf_record_cb cb, void *arg)
{
	pgwt_tf_block blk;
	int			rc;

	while ((rc = pgwt_tf_reader_next_block(r, &blk)) == 1)
	{
		uint32_t	i;

		for (i = 0; i < blk.n; i++)
		{
			int			c = cb(&blk.recs[i], &blk, arg);

			if (c != 0)
				return c;
		}
	}
	return rc;
}

int
pgwt_tf_reader_poll(pgwt_tf_reader *r)
{
	if (!r->cur || !r->files[r->cur_index].live)
		return 0;
	return tf_file_reader_poll(r->cur);
}

const pgwt_tf_read_stats *
pgwt_tf_reader_stats(const pgwt_tf_reader *r)
{
	return &r->stats;
}

uint32_t
pgwt_tf_reader_nfiles(const pgwt_tf_reader *r)
{
	return r->nfiles;
}

const pgwt_tf_file_header *
pgwt_tf_reader_file_header(const pgwt_tf_reader *r, uint32_t i)
{
	return i < r->nfiles ? &r->files[i].hdr : NULL;
}

const char *
pgwt_tf_reader_file_path(const pgwt_tf_reader *r, uint32_t i)
{
	return i < r->nfiles ? r->files[i].path : NULL;
}
