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
 * as the horizon, and each is cut to its bound (side_bounds.c). The size
 * cap counts every regular file of the directory (live file, summaries,
 * .meta, side files, files set aside); only archives can be deleted.
 *
 * The directory is a descriptor checked once (safe_dir.c); every name in
 * it is opened, renamed and removed relative to it, never followed when
 * it is a link: a live file or summary that is a link or not ours is
 * renamed aside as .bad-<ns>, never read, cut or written.
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

#define TF_SUM_NAME		PGWT_TF_CURRENT_NAME PGWT_TF_SUM_SUFFIX

struct pgwt_tf_dir_writer
{
	int			dirfd;			/* the checked directory (safe_dir.c) */
	char	   *dir;			/* its path, for fallbacks without /proc */
	pgwt_tf_dir_opts opts;
	uint64_t	side_max;		/* bound of each side file */
	pgwt_tf_file_writer *w;
	char		live_hour[64];	/* archive name (seq 0) of the live file */
	uint64_t	sample_period_ns;	/* re-applied to each new live file */
	bool		esc_open;		/* an escalation window is open: */
	pgwt_record esc_start;		/* its ESC_START, repeated in each new file */
	uint64_t	last_ts;		/* latest record ts appended */
	pgwt_tf_dir_stats stats;
};

/* rename without replacing; -PGWT_TF_EXISTS when dst is taken (by
 * anything, a link included: nothing is followed). */
static int
tf_rename_noreplace(int dirfd, const char *src, const char *dst)
{
	if (renameat2(dirfd, src, dirfd, dst, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EEXIST)
		return -PGWT_TF_EXISTS;
	if (errno != EINVAL && errno != ENOSYS)
		return -PGWT_TF_IO;
	/* file systems without RENAME_NOREPLACE: link refuses to replace */
	if (linkat(dirfd, src, dirfd, dst, 0) < 0)
		return errno == EEXIST ? -PGWT_TF_EXISTS : -PGWT_TF_IO;
	return unlinkat(dirfd, src, 0) < 0 ? -PGWT_TF_IO : 0;
}

/* Moves src to the first free archive name of its start hour. */
static int
tf_archive_file(int dirfd, const char *src, uint64_t start_realtime_ns,
				bool local_time, char *archived, size_t archived_len)
{
	unsigned	seq;

	for (seq = 0; seq < 100000; seq++)
	{
		char		name[128];
		int			rc;

		if ((rc = pgwt_tf_archive_name(start_realtime_ns, local_time, seq,
									   name, sizeof(name))) < 0)
			return rc;
		rc = tf_rename_noreplace(dirfd, src, name);
		if (rc == -PGWT_TF_EXISTS)
			continue;
		if (rc == 0)
		{
			if (archived && archived_len > 0)
				snprintf(archived, archived_len, "%s", name);
			return tf_fsync_dirfd(dirfd);
		}
		return rc;
	}
	return -PGWT_TF_EXISTS;
}

/* Renames name aside to name.bad-<realtime ns> (kept for a human: never
 * read, written or deleted); bad receives the new name. */
static int
tf_quarantine(int dirfd, const char *name, const pgwt_tf_dir_opts *opts,
			  pgwt_tf_dir_stats *stats, char *bad, size_t badlen)
{
	char		dst[256];
	int			rc;

	if (snprintf(dst, sizeof(dst), "%s.bad-%llu", name,
				 (unsigned long long) tf_clock_realtime(&opts->file.clock)) >= (int) sizeof(dst))
		return -PGWT_TF_INVAL;
	if ((rc = tf_rename_noreplace(dirfd, name, dst)) < 0)
		return rc;
	stats->quarantined++;
	if (bad && badlen > 0)
		snprintf(bad, badlen, "%s", dst);
	return 0;
}

/*
 * Moves current.trace.sum beside the trace archive `archived` (a basename)
 * after cutting a torn tail when recover is set. When there is no trace
 * to pair it with (archived NULL) or the name is taken, the summary is
 * kept aside as current.trace.sum.bad-<ns>; so is anything under its name
 * that is not a file of ours (a link is renamed, never followed).
 * Missing summary: nothing.
 */
static int
tf_archive_summary(int dirfd, const char *dir, const char *archived, bool recover,
				   const pgwt_tf_dir_opts *opts, pgwt_tf_dir_stats *stats)
{
	char		dst[256];
	struct stat st;
	int			rc;

	if (fstatat(dirfd, TF_SUM_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
	{
		tf_unlink_meta_at(dirfd, TF_SUM_NAME);
		return errno == ENOENT ? 0 : -PGWT_TF_IO;
	}
	if (!tf_file_safe(&st))
	{
		stats->unsafe_replaced++;
		archived = NULL;
	}
	else if (recover && archived)
	{
		char		path[4096];
		uint64_t	cut = 0;
		int			fd = tf_openat_modify(dirfd, TF_SUM_NAME);

		/* summary_file.c takes a path: give it this very file */
		if (fd < 0 || tf_fd_path(fd, dir, TF_SUM_NAME, path, sizeof(path)) < 0)
			rc = -PGWT_TF_BAD_HEADER;
		else
			rc = tf_sum_recover(path, &cut);
		if (fd >= 0)
			close(fd);
		if (rc == -PGWT_TF_NOMEM || rc == -PGWT_TF_IO)
			return rc;
		if (rc < 0)
			archived = NULL;	/* unreadable header: keep it aside */
		else
			stats->recovered_bytes_cut += cut;
	}
	rc = archived ? (snprintf(dst, sizeof(dst), "%s%s", archived,
							  PGWT_TF_SUM_SUFFIX) >= (int) sizeof(dst)
					 ? -PGWT_TF_INVAL : tf_rename_noreplace(dirfd, TF_SUM_NAME, dst))
		: -PGWT_TF_EXISTS;
	if (rc == -PGWT_TF_EXISTS)
		rc = tf_quarantine(dirfd, TF_SUM_NAME, opts, stats, NULL, 0);
	tf_unlink_meta_at(dirfd, TF_SUM_NAME);
	return rc < 0 ? rc : tf_fsync_dirfd(dirfd);
}

/* Walks every block of the leftover live file open on fd (no .meta
 * limit: complete blocks are all kept), cuts the torn tail, appends the
 * footer and fsyncs. *start_rt: the file's start. */
static int
tf_repair_live(int fd, const char *path, pgwt_tf_dir_stats *stats, uint64_t *start_rt)
{
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
	int			rc;

	memset(&rs, 0, sizeof(rs));
	if (fstat(fd, &st) < 0)
		return -PGWT_TF_IO;
	rc = tf_file_reader_open(path, true, true, &rs, &f);
	if (rc < 0)
		return rc;
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
	*start_rt = tf_file_reader_header(f)->start_realtime_ns;
	tf_file_reader_index(f, &ts, &offs, &nblocks);
	if ((rc = tf_footer_encode(ts, offs, nblocks, &footer, &footer_len)) < 0)
		goto done;
	rc = ftruncate(fd, (off_t) valid_end) < 0 ? -PGWT_TF_IO : 0;
	if (rc == 0 && lseek(fd, (off_t) valid_end, SEEK_SET) < 0)
		rc = -PGWT_TF_IO;
	if (rc == 0)
		rc = tf_write_all(fd, footer, footer_len);
	if (rc == 0 && fsync(fd) < 0)
		rc = -PGWT_TF_IO;
	if (rc == 0)
		stats->recovered_bytes_cut += (uint64_t) st.st_size - valid_end;
done:
	free(footer);
	free(recs);
	tf_file_reader_close(f);
	return rc;
}

static int
tf_recover_current_at(int dirfd, const char *dir, const pgwt_tf_dir_opts *opts,
					  pgwt_tf_dir_stats *stats, char *archived, size_t archived_len)
{
	char		path[4096];
	char		name[256];
	struct stat st;
	uint64_t	start_rt = 0;
	int			fd = -1;
	int			rc;

	if (fstatat(dirfd, PGWT_TF_CURRENT_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
	{
		if (errno != ENOENT)
			return -PGWT_TF_IO;
		tf_unlink_meta_at(dirfd, PGWT_TF_CURRENT_NAME);
		return tf_archive_summary(dirfd, dir, NULL, false, opts, stats);
	}
	/* a link, a file not ours: never read or cut, only set aside */
	if (tf_file_safe(&st))
		fd = tf_openat_modify(dirfd, PGWT_TF_CURRENT_NAME);
	if (fd < 0)
		stats->unsafe_replaced++;
	if (fd < 0 || tf_fd_path(fd, dir, PGWT_TF_CURRENT_NAME, path, sizeof(path)) < 0)
		rc = -PGWT_TF_UNSAFE;
	else
		rc = tf_repair_live(fd, path, stats, &start_rt);
	if (fd >= 0 && close(fd) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	if (rc == -PGWT_TF_NOMEM || rc == -PGWT_TF_IO)
		return rc;
	if (rc < 0)
	{
		/* Unreadable header (or not ours): keep it aside for a human. */
		if ((rc = tf_quarantine(dirfd, PGWT_TF_CURRENT_NAME, opts, stats,
								name, sizeof(name))) < 0)
			return rc;
		tf_unlink_meta_at(dirfd, PGWT_TF_CURRENT_NAME);
		if (archived && archived_len > 0)
			snprintf(archived, archived_len, "%s", name);
		if ((rc = tf_archive_summary(dirfd, dir, NULL, false, opts, stats)) < 0)
			return rc;
		return 2;
	}
	rc = tf_archive_file(dirfd, PGWT_TF_CURRENT_NAME, start_rt, opts->local_time,
						 name, sizeof(name));
	if (rc < 0)
		return rc;
	tf_unlink_meta_at(dirfd, PGWT_TF_CURRENT_NAME);
	stats->recovered++;
	if (archived && archived_len > 0)
		snprintf(archived, archived_len, "%s", name);
	rc = tf_archive_summary(dirfd, dir, name, true, opts, stats);
	return rc == 0 ? 1 : rc;
}

int
pgwt_tf_recover_current(const char *dir, const pgwt_tf_dir_opts *opts,
						pgwt_tf_dir_stats *stats, char *archived,
						size_t archived_len)
{
	int			dirfd;
	int			rc;

	if ((rc = tf_open_dir_path(dir, &dirfd)) < 0)
		return rc;
	rc = tf_recover_current_at(dirfd, dir, opts, stats, archived, archived_len);
	close(dirfd);
	return rc;
}

static int
tf_start_live(pgwt_tf_dir_writer *d)
{
	pgwt_tf_file_opts fo = d->opts.file;
	char		path[4096];
	int			rc;

	fo.write_meta = true;
	snprintf(path, sizeof(path), "%s/%s", d->dir, PGWT_TF_CURRENT_NAME);
	rc = tf_file_writer_create_at(d->dirfd, PGWT_TF_CURRENT_NAME, path, &fo, &d->w);
	if (rc < 0)
		return rc;
	if ((rc = pgwt_tf_file_writer_set_sample_period(d->w, d->sample_period_ns)) < 0)
		return rc;
	/* Query texts are written again per file, after this mark, so that
	 * their retention can follow the files' (side_retention.c). */
	if ((rc = pgwt_tf_queries_mark_file_at(d->dirfd,
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
	rc = tf_archive_file(d->dirfd, PGWT_TF_CURRENT_NAME, start_rt, d->opts.local_time,
						 name, sizeof(name));
	if (rc < 0)
		return rc;
	return tf_archive_summary(d->dirfd, d->dir, name, false, &d->opts, &d->stats);
}

static void
tf_dir_free(pgwt_tf_dir_writer *d)
{
	if (d->dirfd >= 0)
		close(d->dirfd);
	free(d->dir);
	free(d);
}

int
pgwt_tf_dir_open_fd(int dirfd, const char *dir, const pgwt_tf_dir_opts *opts,
					pgwt_tf_dir_writer **out)
{
	pgwt_tf_dir_writer *d;
	int			rc;

	if (dirfd < 0 || !opts || !out)
		return -PGWT_TF_INVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -PGWT_TF_NOMEM;
	d->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (d->dirfd < 0)
	{
		free(d);
		return -PGWT_TF_IO;
	}
	if (!(d->dir = strdup(dir ? dir : ".")))
	{
		tf_dir_free(d);
		return -PGWT_TF_NOMEM;
	}
	d->opts = *opts;
	d->side_max = opts->file.side_max_bytes ? opts->file.side_max_bytes :
		pgwt_tf_side_bound(opts->retention_bytes);
	if ((rc = tf_recover_current_at(d->dirfd, d->dir, opts, &d->stats, NULL, 0)) < 0 ||
		(rc = pgwt_tf_dir_apply_retention(d)) < 0 ||
		(rc = tf_start_live(d)) < 0)
	{
		if (d->w)
			pgwt_tf_file_writer_abandon(d->w);
		tf_dir_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

int
pgwt_tf_dir_open(const char *dir, const pgwt_tf_dir_opts *opts,
				 pgwt_tf_dir_writer **out)
{
	int			dirfd;
	int			rc;

	if (!dir || !opts || !out)
		return -PGWT_TF_INVAL;
	if ((rc = tf_open_dir_path(dir, &dirfd)) < 0)
		return rc == -PGWT_TF_NOT_FOUND ? -PGWT_TF_IO : rc;
	rc = pgwt_tf_dir_open_fd(dirfd, dir, opts, out);
	close(dirfd);
	return rc;
}

int
pgwt_tf_dir_writer_fd(const pgwt_tf_dir_writer *d)
{
	return d->dirfd;
}

pgwt_tf_file_opts
pgwt_tf_dir_side_opts(const pgwt_tf_dir_writer *d)
{
	pgwt_tf_file_opts fo = d->opts.file;

	fo.side_max_bytes = d->side_max;
	return fo;
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
		if ((rc = tf_recover_current_at(d->dirfd, d->dir, &d->opts, &d->stats, NULL, 0)) < 0 ||
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
 * about to start). Without any retention the horizon is 0: only repeats
 * and the bound cut lines.
 */
static int
tf_dir_side_retention(pgwt_tf_dir_writer *d, const pgwt_tf_archive *a,
					  const bool *del, size_t n)
{
	pgwt_tf_file_header oldest;
	uint64_t	now_rt = tf_clock_realtime(&d->opts.file.clock);
	uint64_t	now_mono = tf_clock_monotonic(&d->opts.file.clock);
	uint64_t	dropped = 0;
	uint64_t	trimmed = 0;
	size_t		i;
	int			rc;

	for (i = 0; i < n && del[i]; i++)
		;
	memset(&oldest, 0, sizeof(oldest));
	if (d->opts.retention_hours == 0 && d->opts.retention_bytes == 0)
		;						/* nothing is aged */
	else if (i < n)
	{
		uint8_t		hb[PGWT_TF_FILE_HEADER_SIZE];
		int			fd = tf_openat_read(d->dirfd, a[i].name);

		if (fd < 0)
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
		oldest.start_realtime_ns = now_rt;
		oldest.start_monotonic_ns = now_mono;
	}
	rc = tf_side_apply_retention(d->dirfd, &d->opts.file, &oldest, now_rt, now_mono,
								 d->side_max, &dropped, &trimmed);
	d->stats.side_lines_dropped += dropped;
	d->stats.side_lines_trimmed += trimmed;
	return rc;
}

/* name ends with suffix. */
static bool
tf_has_suffix(const char *name, const char *suffix)
{
	size_t		n = strlen(name),
				k = strlen(suffix);

	return n > k && strcmp(name + n - k, suffix) == 0;
}

/* Grows the archive list by one slot; false without memory. */
static bool
tf_archives_grow(pgwt_tf_archive **a, char ***names, size_t n, size_t *cap)
{
	size_t		c;
	pgwt_tf_archive *na;
	char	  **nn;

	if (n < *cap)
		return true;
	c = *cap ? *cap * 2 : 64;
	if (!(na = realloc(*a, c * sizeof(**a))))
		return false;
	*a = na;
	if (!(nn = realloc(*names, c * sizeof(**names))))
		return false;
	*names = nn;
	*cap = c;
	return true;
}

/*
 * Lists the archives of the directory (with the size of their summaries)
 * and adds up every other regular file in *other: the live file, its
 * .meta and summary, side files, files set aside. The cap counts them
 * all; retention can only delete archives.
 */
static int
tf_dir_list(pgwt_tf_dir_writer *d, pgwt_tf_archive **a, char ***names, size_t *n,
			uint64_t *other)
{
	DIR		   *dh;
	struct dirent *de;
	size_t		cap = 0;
	int			fd = fcntl(d->dirfd, F_DUPFD_CLOEXEC, 0);
	int			rc = 0;

	*n = 0;
	*other = 0;
	if (fd < 0 || !(dh = fdopendir(fd)))
	{
		if (fd >= 0)
			close(fd);
		return -PGWT_TF_IO;
	}
	rewinddir(dh);
	while ((de = readdir(dh)) != NULL)
	{
		char		base[256];
		struct stat st;
		int64_t		hour;
		unsigned	seq;

		if (fstatat(d->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			!S_ISREG(st.st_mode))
			continue;
		if (pgwt_tf_archive_parse(de->d_name, d->opts.local_time, &hour, &seq) < 0)
		{
			struct stat ast;
			size_t		bl = strlen(de->d_name) - strlen(PGWT_TF_SUM_SUFFIX);

			/* an archive's summary is counted with its archive */
			if (tf_has_suffix(de->d_name, PGWT_TF_SUM_SUFFIX) && bl < sizeof(base))
			{
				memcpy(base, de->d_name, bl);
				base[bl] = '\0';
				if (pgwt_tf_archive_parse(base, d->opts.local_time, &hour, &seq) == 0 &&
					fstatat(d->dirfd, base, &ast, AT_SYMLINK_NOFOLLOW) == 0 &&
					S_ISREG(ast.st_mode))
					continue;
			}
			*other += (uint64_t) st.st_size;
			continue;
		}
		if (!tf_archives_grow(a, names, *n, &cap) ||
			!((*names)[*n] = strdup(de->d_name)))
		{
			rc = -PGWT_TF_NOMEM;
			break;
		}
		(*a)[*n].name = (*names)[*n];
		(*a)[*n].hour_epoch_s = hour;
		(*a)[*n].seq = seq;
		(*a)[*n].size = (uint64_t) st.st_size;
		/* its summary is part of the archive's footprint */
		if (snprintf(base, sizeof(base), "%s%s", de->d_name, PGWT_TF_SUM_SUFFIX) < (int) sizeof(base) &&
			fstatat(d->dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			(*a)[*n].size += (uint64_t) st.st_size;
		(*n)++;
	}
	closedir(dh);
	return rc;
}

int
pgwt_tf_dir_apply_retention(pgwt_tf_dir_writer *d)
{
	pgwt_tf_archive *a = NULL;
	char	  **names = NULL;
	bool	   *del = NULL;
	size_t		n = 0,
				i;
	uint64_t	other = 0;
	int			rc = 0;

	if (d->opts.retention_hours != 0 || d->opts.retention_bytes != 0)
		rc = tf_dir_list(d, &a, &names, &n, &other);
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
								 d->opts.retention_bytes, other);
		for (i = 0; i < n; i++)
		{
			if (!del[i])
				continue;
			/* unlinkat removes names, never what a link points to */
			if (unlinkat(d->dirfd, a[i].name, 0) == 0)
			{
				char		sum[256];

				d->stats.deleted++;
				d->stats.deleted_bytes += a[i].size;
				if (snprintf(sum, sizeof(sum), "%s%s", a[i].name, PGWT_TF_SUM_SUFFIX) < (int) sizeof(sum))
					(void) unlinkat(d->dirfd, sum, 0);
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
	tf_dir_free(d);
	return rc;
}

const pgwt_tf_dir_stats *
pgwt_tf_dir_writer_stats(const pgwt_tf_dir_writer *d)
{
	return &d->stats;
}
