/*
 * tracedir.c
 *		The trace directory: the live current.trace (+ .meta), rotation to
 *		YYYY-MM-DD_HH.trace.lz4 every calendar hour, recovery of a leftover
 *		live file at start, and retention by age and total size.
 *
 * Archives are never overwritten: a name is taken with
 * renameat2(RENAME_NOREPLACE) (link + unlink where that is missing) and a
 * taken name moves on to _HH.1, _HH.2 ... A live file whose header cannot
 * be read is renamed aside to current.trace.bad-<realtime ns>, never
 * deleted. Retention only deletes names that parse as archives, and never
 * the live file.
 *
 * The summary beside the live file (current.trace.sum, summary_file.c)
 * follows it: archived as <archive name>.sum right after the trace,
 * recovered with it (torn tail cut), deleted with it by retention. A
 * summary without its trace is renamed aside like a bad live file.
 *
 * Side files (backends, blockers, queries) follow retention line by line
 * after each pass: side_retention.c, with the oldest retained file's start
 * as the horizon.
 *
 * Rotation is checked on flush and tick, not per record: the caller ticks
 * at least once a second (the daemon does on every sampler tick). The
 * object belongs to one thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefmt/summary.h"
#include "tracefmt/tf_internal.h"

struct pgwt_tf_dir_writer
{
	char	   *dir;
	pgwt_tf_dir_opts opts;
	pgwt_tf_file_writer *w;
	char		live_hour[64];	/* archive name (seq 0) of the live file */
	char		cur_path[4096];
	uint64_t	sample_period_ns;	/* re-applied to each new live file */
	bool		esc_open;		/* an escalation window is open: */
	pgwt_record esc_start;		/* its ESC_START, repeated in each new file */
	uint64_t	last_ts;		/* latest record ts appended */
	pgwt_tf_dir_stats stats;
};

static int
tf_path(char *buf, size_t len, const char *dir, const char *name)
{
	if (snprintf(buf, len, "%s/%s", dir, name) >= (int) len)
		return -PGWT_TF_INVAL;
	return 0;
}

/* rename without replacing; -PGWT_TF_EXISTS when dst is taken. */
static int
tf_rename_noreplace(const char *src, const char *dst)
{
	if (renameat2(AT_FDCWD, src, AT_FDCWD, dst, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EEXIST)
		return -PGWT_TF_EXISTS;
	if (errno != EINVAL && errno != ENOSYS)
		return -PGWT_TF_IO;
	/* file systems without RENAME_NOREPLACE: link refuses to replace */
	if (link(src, dst) < 0)
		return errno == EEXIST ? -PGWT_TF_EXISTS : -PGWT_TF_IO;
	return unlink(src) < 0 ? -PGWT_TF_IO : 0;
}

/* Moves src to the first free archive name of its start hour. */
static int
tf_archive_file(const char *dir, const char *src, uint64_t start_realtime_ns,
				bool local_time, char *archived, size_t archived_len)
{
	unsigned	seq;

	for (seq = 0; seq < 100000; seq++)
	{
		char		name[128];
		char		dst[4096];
		int			rc;

		if ((rc = pgwt_tf_archive_name(start_realtime_ns, local_time, seq,
									   name, sizeof(name))) < 0 ||
			(rc = tf_path(dst, sizeof(dst), dir, name)) < 0)
			return rc;
		rc = tf_rename_noreplace(src, dst);
		if (rc == -PGWT_TF_EXISTS)
			continue;
		if (rc == 0)
		{
			if (archived && archived_len > 0)
				snprintf(archived, archived_len, "%s", name);
			return tf_fsync_dir(dir);
		}
		return rc;
	}
	return -PGWT_TF_EXISTS;
}

static void
tf_unlink_meta(const char *path)
{
	tf_unlink_meta_of(path);
}

/*
 * Moves current.trace.sum beside the trace archive `archived` (a basename)
 * after cutting a torn tail when recover is set. When there is no trace
 * to pair it with (archived NULL) or the name is taken, the summary is
 * kept aside as current.trace.sum.bad-<ns>. Missing summary: nothing.
 */
static int
tf_archive_summary(const char *dir, const char *archived, bool recover,
				   const pgwt_tf_dir_opts *opts, pgwt_tf_dir_stats *stats)
{
	char		src[4096];
	char		dst[4096];
	struct stat st;
	int			rc;

	if (snprintf(src, sizeof(src), "%s/%s%s", dir, PGWT_TF_CURRENT_NAME,
				 PGWT_TF_SUM_SUFFIX) >= (int) sizeof(src))
		return -PGWT_TF_INVAL;
	if (lstat(src, &st) < 0)
	{
		tf_unlink_meta(src);
		return errno == ENOENT ? 0 : -PGWT_TF_IO;
	}
	if (recover && archived)
	{
		uint64_t	cut = 0;

		rc = tf_sum_recover(src, &cut);
		if (rc == -PGWT_TF_NOMEM || rc == -PGWT_TF_IO)
			return rc;
		if (rc < 0)
			archived = NULL;	/* unreadable header: keep it aside */
		else
			stats->recovered_bytes_cut += cut;
	}
	rc = archived ? (snprintf(dst, sizeof(dst), "%s/%s%s", dir, archived,
							  PGWT_TF_SUM_SUFFIX) >= (int) sizeof(dst)
					 ? -PGWT_TF_INVAL : tf_rename_noreplace(src, dst))
		: -PGWT_TF_EXISTS;
	if (rc == -PGWT_TF_EXISTS)
	{
		if (snprintf(dst, sizeof(dst), "%s.bad-%llu", src,
					 (unsigned long long) tf_clock_realtime(&opts->file.clock)) >= (int) sizeof(dst))
			return -PGWT_TF_INVAL;
		rc = tf_rename_noreplace(src, dst);
		if (rc == 0)
			stats->quarantined++;
	}
	tf_unlink_meta(src);
	return rc < 0 ? rc : tf_fsync_dir(dir);
}

int
pgwt_tf_recover_current(const char *dir, const pgwt_tf_dir_opts *opts,
						pgwt_tf_dir_stats *stats, char *archived,
						size_t archived_len)
{
	char		path[4096];
	pgwt_tf_read_stats rs;
	tf_file_reader *f = NULL;
	pgwt_record *recs = NULL;
	struct stat st;
	uint8_t    *footer = NULL;
	size_t		footer_len;
	uint64_t	valid_end;
	const uint64_t *ts;
	const uint64_t *offs;
	uint32_t	nblocks;
	uint64_t	start_rt;
	int			fd;
	int			rc;

	if ((rc = tf_path(path, sizeof(path), dir, PGWT_TF_CURRENT_NAME)) < 0)
		return rc;
	if (lstat(path, &st) < 0)
	{
		if (errno != ENOENT)
			return -PGWT_TF_IO;
		tf_unlink_meta(path);
		return tf_archive_summary(dir, NULL, false, opts, stats);
	}
	memset(&rs, 0, sizeof(rs));
	rc = tf_file_reader_open(path, true, true, &rs, &f);
	if (rc == -PGWT_TF_NOMEM || rc == -PGWT_TF_IO)
		return rc;
	if (rc < 0)
	{
		/* Unreadable header: keep the bytes aside for a human. */
		char		bad[4096];

		if (snprintf(bad, sizeof(bad), "%s.bad-%llu", path,
					 (unsigned long long) tf_clock_realtime(&opts->file.clock)) >= (int) sizeof(bad))
			return -PGWT_TF_INVAL;
		if ((rc = tf_rename_noreplace(path, bad)) < 0)
			return rc;
		tf_unlink_meta(path);
		stats->quarantined++;
		if (archived && archived_len > 0)
			snprintf(archived, archived_len, "%s", strrchr(bad, '/') + 1);
		if ((rc = tf_archive_summary(dir, NULL, false, opts, stats)) < 0)
			return rc;
		return 2;
	}

	/* Walk every block (no .meta limit): complete blocks are all kept. */
	recs = malloc(sizeof(pgwt_record) * PGWT_TF_BLOCK_MAX_RECORDS);
	if (!recs)
	{
		rc = -PGWT_TF_NOMEM;
		goto done;
	}
	for (;;)
	{
		uint32_t	n;
		uint16_t	type;
		uint64_t	period;

		rc = tf_file_reader_next(f, recs, &n, &type, &period);
		if (rc <= 0)
			break;
	}
	if (rc < 0)
		goto done;
	valid_end = tf_file_reader_valid_end(f);
	start_rt = tf_file_reader_header(f)->start_realtime_ns;
	tf_file_reader_index(f, &ts, &offs, &nblocks);
	if ((rc = tf_footer_encode(ts, offs, nblocks, &footer, &footer_len)) < 0)
		goto done;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
	{
		rc = -PGWT_TF_IO;
		goto done;
	}
	rc = ftruncate(fd, (off_t) valid_end) < 0 ? -PGWT_TF_IO : 0;
	if (rc == 0 && lseek(fd, (off_t) valid_end, SEEK_SET) < 0)
		rc = -PGWT_TF_IO;
	if (rc == 0)
		rc = tf_write_all(fd, footer, footer_len);
	if (rc == 0 && fsync(fd) < 0)
		rc = -PGWT_TF_IO;
	if (close(fd) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	if (rc < 0)
		goto done;
	stats->recovered_bytes_cut += (uint64_t) st.st_size - valid_end;
	{
		char		name[128];

		rc = tf_archive_file(dir, path, start_rt, opts->local_time, name, sizeof(name));
		if (rc == 0)
		{
			tf_unlink_meta(path);
			stats->recovered++;
			if (archived && archived_len > 0)
				snprintf(archived, archived_len, "%s", name);
			rc = tf_archive_summary(dir, name, true, opts, stats);
			if (rc == 0)
				rc = 1;
		}
	}

done:
	free(footer);
	free(recs);
	tf_file_reader_close(f);
	return rc;
}

static int
tf_start_live(pgwt_tf_dir_writer *d)
{
	pgwt_tf_file_opts fo = d->opts.file;
	int			rc;

	fo.write_meta = true;
	rc = pgwt_tf_file_writer_create(d->cur_path, &fo, &d->w);
	if (rc < 0)
		return rc;
	if ((rc = pgwt_tf_file_writer_set_sample_period(d->w, d->sample_period_ns)) < 0)
		return rc;
	/* Query texts are written again per file, after this mark, so that
	 * their retention can follow the files' (side_retention.c). */
	if ((rc = pgwt_tf_queries_mark_file(d->dir,
										pgwt_tf_file_writer_header(d->w)->start_realtime_ns)) < 0)
		return rc;
	d->stats.files_started++;
	/* A window open across a rotation: the new file says so first
	 * (docs/TRACE_FORMAT.md section 5, "Windows across files"). */
	if (d->esc_open)
	{
		pgwt_record cont = d->esc_start;

		cont.ts_ns = d->last_ts > cont.ts_ns ? d->last_ts : cont.ts_ns;
		if ((rc = pgwt_tf_file_writer_append(d->w, &cont)) < 0)
			return rc;
	}
	return pgwt_tf_archive_name(pgwt_tf_file_writer_header(d->w)->start_realtime_ns,
								d->opts.local_time, 0, d->live_hour,
								sizeof(d->live_hour));
}

/* Finishes the live file and archives it under its start hour. */
static int
tf_finish_live(pgwt_tf_dir_writer *d)
{
	uint64_t	start_rt = pgwt_tf_file_writer_header(d->w)->start_realtime_ns;
	char		name[128];
	int			rc;

	rc = pgwt_tf_file_writer_finish(d->w);
	d->w = NULL;
	if (rc < 0)
		return rc;
	rc = tf_archive_file(d->dir, d->cur_path, start_rt, d->opts.local_time,
						 name, sizeof(name));
	if (rc < 0)
		return rc;
	return tf_archive_summary(d->dir, name, false, &d->opts, &d->stats);
}

int
pgwt_tf_dir_open(const char *dir, const pgwt_tf_dir_opts *opts,
				 pgwt_tf_dir_writer **out)
{
	pgwt_tf_dir_writer *d;
	struct stat st;
	int			rc;

	if (!dir || !opts || !out)
		return -PGWT_TF_INVAL;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return -PGWT_TF_IO;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->dir = strdup(dir)))
	{
		free(d);
		return -PGWT_TF_NOMEM;
	}
	d->opts = *opts;
	if ((rc = tf_path(d->cur_path, sizeof(d->cur_path), dir, PGWT_TF_CURRENT_NAME)) < 0 ||
		(rc = pgwt_tf_recover_current(dir, opts, &d->stats, NULL, 0)) < 0 ||
		(rc = pgwt_tf_dir_apply_retention(d)) < 0 ||
		(rc = tf_start_live(d)) < 0)
	{
		free(d->dir);
		free(d);
		return rc;
	}
	*out = d;
	return 0;
}

int
pgwt_tf_dir_append(pgwt_tf_dir_writer *d, const pgwt_record *rec)
{
	int			rc;

	if (!d->w)
		return -PGWT_TF_CLOSED;
	if ((rc = pgwt_tf_file_writer_append(d->w, rec)) < 0)
		return rc;
	if (rec->ts_ns > d->last_ts)
		d->last_ts = rec->ts_ns;
	/* Follow the escalation window, so a rotation can carry it over. */
	if (rec->kind == PGWT_REC_TRANSITION && rec->new_event == PGWT_MARKER_ESC_START &&
		!d->esc_open)
	{
		d->esc_open = true;
		d->esc_start = *rec;
		d->esc_start.query_id = PGWT_ESC_CONTINUED;
	}
	else if (rec->kind == PGWT_REC_TRANSITION && rec->new_event == PGWT_MARKER_ESC_END)
		d->esc_open = false;
	return rc;
}

int
pgwt_tf_dir_set_sample_period(pgwt_tf_dir_writer *d, uint64_t period_ns)
{
	int			rc;

	if (!d->w)
		return -PGWT_TF_CLOSED;
	if ((rc = pgwt_tf_file_writer_set_sample_period(d->w, period_ns)) == 0)
		d->sample_period_ns = period_ns;
	return rc;
}

int
pgwt_tf_dir_tick(pgwt_tf_dir_writer *d)
{
	char		now_hour[64];
	int			rc;

	if (!d->w)
	{
		/* A failed rotation left no writer, maybe a footerless live file:
		 * archive that like any leftover, then start again. */
		if ((rc = pgwt_tf_recover_current(d->dir, &d->opts, &d->stats, NULL, 0)) < 0 ||
			(rc = tf_start_live(d)) < 0)
			return rc;
	}
	if ((rc = pgwt_tf_archive_name(tf_clock_realtime(&d->opts.file.clock),
								   d->opts.local_time, 0, now_hour,
								   sizeof(now_hour))) < 0)
		return rc;
	if (strcmp(now_hour, d->live_hour) == 0)
		return 0;
	if ((rc = tf_finish_live(d)) < 0)
		return rc;
	d->stats.rotations++;
	if ((rc = tf_start_live(d)) < 0)
		return rc;
	return pgwt_tf_dir_apply_retention(d);
}

int
pgwt_tf_dir_flush(pgwt_tf_dir_writer *d)
{
	int			rc;

	if (d->w && (rc = pgwt_tf_file_writer_flush(d->w)) < 0)
		return rc;
	return pgwt_tf_dir_tick(d);
}

/*
 * Side files follow the archives: their horizon is the start of the
 * oldest trace file left (a[] is sorted oldest first by the policy), else
 * of the live file, else now (every archive went and the live file is
 * about to start).
 */
static int
tf_dir_side_retention(pgwt_tf_dir_writer *d, const pgwt_tf_archive *a,
					  const bool *del, size_t n)
{
	pgwt_tf_file_header oldest;
	uint64_t	now_rt = tf_clock_realtime(&d->opts.file.clock);
	uint64_t	now_mono = tf_clock_monotonic(&d->opts.file.clock);
	uint64_t	dropped = 0;
	size_t		i;
	int			rc;

	for (i = 0; i < n && del[i]; i++)
		;
	if (i < n)
	{
		char		path[4096];
		uint8_t		hb[PGWT_TF_FILE_HEADER_SIZE];
		int			fd;

		if (tf_path(path, sizeof(path), d->dir, a[i].name) < 0 ||
			(fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return 0;			/* gone meanwhile: next pass */
		rc = tf_pread_all(fd, hb, sizeof(hb), 0);
		close(fd);
		/* an archive with a bad header dates nothing: prune nothing */
		if (rc < 0 || tf_file_header_decode(hb, &oldest) < 0)
			return 0;
	}
	else if (d->w)
		oldest = *pgwt_tf_file_writer_header(d->w);
	else
	{
		memset(&oldest, 0, sizeof(oldest));
		oldest.start_realtime_ns = now_rt;
		oldest.start_monotonic_ns = now_mono;
	}
	rc = tf_side_apply_retention(d->dir, &d->opts.file, &oldest, now_rt, now_mono,
								 &dropped);
	d->stats.side_lines_dropped += dropped;
	return rc;
}

int
pgwt_tf_dir_apply_retention(pgwt_tf_dir_writer *d)
{
	DIR		   *dh;
	struct dirent *de;
	pgwt_tf_archive *a = NULL;
	char	  **names = NULL;
	bool	   *del = NULL;
	size_t		n = 0,
				cap = 0,
				i;
	uint64_t	live_bytes = 0;
	struct stat st;
	int			rc = 0;

	if (d->opts.retention_hours == 0 && d->opts.retention_bytes == 0)
		return 0;
	if (stat(d->cur_path, &st) == 0)
		live_bytes = (uint64_t) st.st_size;
	dh = opendir(d->dir);
	if (!dh)
		return -PGWT_TF_IO;
	while ((de = readdir(dh)) != NULL)
	{
		char		path[4096];
		int64_t		hour;
		unsigned	seq;

		if (pgwt_tf_archive_parse(de->d_name, d->opts.local_time, &hour, &seq) < 0 ||
			tf_path(path, sizeof(path), d->dir, de->d_name) < 0 ||
			lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap)
		{
			size_t		c = cap ? cap * 2 : 64;
			pgwt_tf_archive *na = realloc(a, c * sizeof(*a));
			char	  **nn;

			if (!na)
			{
				rc = -PGWT_TF_NOMEM;
				break;
			}
			a = na;
			nn = realloc(names, c * sizeof(*nn));
			if (!nn)
			{
				rc = -PGWT_TF_NOMEM;
				break;
			}
			names = nn;
			cap = c;
		}
		if (!(names[n] = strdup(de->d_name)))
		{
			rc = -PGWT_TF_NOMEM;
			break;
		}
		a[n].name = names[n];
		a[n].hour_epoch_s = hour;
		a[n].seq = seq;
		a[n].size = (uint64_t) st.st_size;
		/* its summary is part of the archive's footprint */
		if (snprintf(path, sizeof(path), "%s/%s%s", d->dir, de->d_name,
					 PGWT_TF_SUM_SUFFIX) < (int) sizeof(path) &&
			lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			a[n].size += (uint64_t) st.st_size;
		n++;
	}
	closedir(dh);
	if (rc == 0 && n > 0)
	{
		del = calloc(n, sizeof(bool));
		if (!del)
			rc = -PGWT_TF_NOMEM;
	}
	if (rc == 0 && n > 0)
	{
		int64_t		now_s = (int64_t) (tf_clock_realtime(&d->opts.file.clock) / 1000000000ull);

		pgwt_tf_retention_select(a, del, n, now_s, d->opts.retention_hours,
								 d->opts.retention_bytes, live_bytes);
		for (i = 0; i < n; i++)
		{
			char		path[4096];

			if (!del[i] || tf_path(path, sizeof(path), d->dir, a[i].name) < 0)
				continue;
			if (unlink(path) == 0)
			{
				char		sum[4096];

				d->stats.deleted++;
				d->stats.deleted_bytes += a[i].size;
				if (snprintf(sum, sizeof(sum), "%s%s", path, PGWT_TF_SUM_SUFFIX) < (int) sizeof(sum))
					(void) unlink(sum);
			}
			else if (errno != ENOENT)
				rc = -PGWT_TF_IO;
		}
	}
	if (rc == 0)
		rc = tf_dir_side_retention(d, a, del, n);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(a);
	free(del);
	return rc;
}

int
pgwt_tf_dir_close(pgwt_tf_dir_writer *d)
{
	int			rc = 0;

	if (!d)
		return 0;
	if (d->w)
		rc = tf_finish_live(d);
	free(d->dir);
	free(d);
	return rc;
}

const pgwt_tf_dir_stats *
pgwt_tf_dir_writer_stats(const pgwt_tf_dir_writer *d)
{
	return &d->stats;
}
