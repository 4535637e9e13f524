/*
 * side_retention.c
 *		Retention of the side files (docs/TRACE_FORMAT.md 6.6): after the
 *		directory's retention has deleted archives, the side files keep only
 *		what can still describe a retained record. The horizon is the start
 *		of the oldest retained trace file; nothing before it is left.
 *
 *		backends.tsv  a line is dropped when a later line for the same pid
 *		              starts at or before the horizon: that later line
 *		              describes the pid for every retained record.
 *		blockers.tsv  observations older than the horizon are dropped
 *		              (CLOCK_MONOTONIC, so only when no reboot lies between
 *		              the oldest retained file and the live one).
 *		windows.tsv   the same rule, on each window's start.
 *		queries.tsv   writers mark each new trace file ("#file" lines) and
 *		              write a text again in every file that uses it, so the
 *		              segments before the file preceding the oldest retained
 *		              one describe deleted records only and are dropped; a
 *		              line repeated within a segment is dropped too.
 *		events.tsv    rewritten whole by the writer at start, or appended
 *		              a few names per writer run (docs/TRACE_FORMAT.md
 *		              8.3): small, not aged; its bound stops appends.
 *
 *		Bound: appends stop at a file's bound (an eighth of the
 *		directory's cap, side_bounds.c); a file whose kept lines pass 7/8
 *		of it loses its oldest lines down to 3/4, whatever the rules say,
 *		so the newest lines find room again.
 *
 *		The decision per line is pure (pgwt_tf_side_keep_*, _trim),
 *		unit-tested; the rewrite goes through a temporary file, fsync and
 *		rename, all by name in the checked directory (safe_dir.c): a name
 *		that is a link or a file not ours is never read or written. Lines
 *		the rules do not understand (comments, invalid or torn lines) are
 *		kept byte for byte unless the bound cuts them.
 *
 * Concurrency: appenders open, append one line and close (sidefiles.c). A
 * line appended while a file is rewritten is carried over: bytes past
 * what was read are copied before the rename and, from the old inode,
 * again after it. Only an appender that opened the old file before the
 * rename and writes after the second copy can lose its line; the tracer
 * appends from the thread that runs retention, so it never does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefmt/tf_internal.h"

/* ---- pure rules --------------------------------------------------------- */

/* The leading decimal field of a side-file line (terminated by a tab),
 * copied into buf (NUL-terminated); *rest points after it in buf. */
static bool
tf_side_first_field(const char *line, size_t len, char *buf, size_t buflen,
					unsigned long long *v, char **rest)
{
	char	   *end;

	if (len == 0 || line[0] == '#')
		return false;
	if (len >= buflen)
		len = buflen - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (end == buf || *end != '\t' || errno)
		return false;
	*rest = end;
	return true;
}

/* Parses "<u64>\t<u64>\t<u64>..." fields 0 and 2 of a backends line. */
static bool
tf_side_parse_backend(const char *line, size_t len, uint32_t *pid, uint64_t *start)
{
	char		buf[96];
	char	   *p,
			   *end;
	unsigned long long v;

	if (!tf_side_first_field(line, len, buf, sizeof(buf), &v, &end) || v > UINT32_MAX)
		return false;
	*pid = (uint32_t) v;
	p = strchr(end + 1, '\t');	/* skip leader_pid */
	if (!p)
		return false;
	v = strtoull(p + 1, &end, 10);
	if (end == p + 1 || (*end != '\t' && *end != '\0') || errno)
		return false;
	*start = v;
	return true;
}

typedef struct tf_side_bkey
{
	uint32_t	pid;
	uint64_t	start;
	size_t		line;
} tf_side_bkey;

static int
tf_side_bkey_cmp(const void *x, const void *y)
{
	const tf_side_bkey *a = x,
			   *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

int
pgwt_tf_side_keep_backends(const uint32_t *pid, const uint64_t *start,
						   const bool *valid, size_t n, uint64_t horizon_rt,
						   bool *keep)
{
	tf_side_bkey *k = malloc((n ? n : 1) * sizeof(*k));
	size_t		m = 0,
				i;

	for (i = 0; i < n; i++)
		keep[i] = true;
	if (!k)
		return -PGWT_TF_NOMEM;	/* keeps everything */
	for (i = 0; i < n; i++)
		if (valid[i] && start[i] <= horizon_rt)
		{
			k[m].pid = pid[i];
			k[m].start = start[i];
			k[m++].line = i;
		}
	/*
	 * Per pid, in start order (file order on ties), every line started at
	 * or before the horizon except the last of them is superseded.
	 */
	qsort(k, m, sizeof(*k), tf_side_bkey_cmp);
	for (i = 0; i + 1 < m; i++)
		if (k[i + 1].pid == k[i].pid)
			keep[k[i].line] = false;
	free(k);
	return 0;
}

bool
pgwt_tf_side_keep_blocker(const char *line, size_t len, uint64_t horizon_mono)
{
	char		buf[32];
	char	   *end;
	unsigned long long v;

	if (!tf_side_first_field(line, len, buf, sizeof(buf), &v, &end))
		return true;			/* a comment or not ours to judge */
	return v >= horizon_mono;
}

/* ---- rewriting a file ------------------------------------------------------ */

typedef struct tf_side_lines
{
	char	   *buf;			/* whole file */
	size_t		len;
	size_t	   *off;			/* start of each complete line (LF included) */
	size_t	   *llen;
	size_t		n;
	size_t		tail;			/* offset of a torn last line, or len */
} tf_side_lines;

static void
tf_side_lines_free(tf_side_lines *l)
{
	free(l->buf);
	free(l->off);
	free(l->llen);
}

static int
tf_side_read(int fd, tf_side_lines *l)
{
	struct stat st;
	size_t		i,
				start;

	memset(l, 0, sizeof(*l));
	if (fstat(fd, &st) < 0)
		return -PGWT_TF_IO;
	l->len = (size_t) st.st_size;
	if (!(l->buf = malloc(l->len + 1)))
		return -PGWT_TF_NOMEM;
	if (l->len && tf_pread_all(fd, l->buf, l->len, 0) < 0)
		return -PGWT_TF_IO;
	for (i = 0; i < l->len; i++)
		l->n += l->buf[i] == '\n';
	l->off = malloc((l->n + 1) * sizeof(size_t));
	l->llen = malloc((l->n + 1) * sizeof(size_t));
	if (!l->off || !l->llen)
		return -PGWT_TF_NOMEM;
	l->n = 0;
	for (i = 0, start = 0; i < l->len; i++)
		if (l->buf[i] == '\n')
		{
			l->off[l->n] = start;
			l->llen[l->n++] = i - start;	/* without the LF */
			start = i + 1;
		}
	l->tail = start;
	return 0;
}

/* Copies bytes [from, size of fd) of fd to out; *from moves to the end. */
static int
tf_side_copy_new(int fd, int out, size_t *from)
{
	struct stat st;
	char		buf[8192];

	if (fstat(fd, &st) < 0)
		return -PGWT_TF_IO;
	while ((size_t) st.st_size > *from)
	{
		size_t		k = (size_t) st.st_size - *from;

		if (k > sizeof(buf))
			k = sizeof(buf);
		if (tf_pread_all(fd, buf, k, (off_t) *from) < 0 || tf_write_all(out, buf, k) < 0)
			return -PGWT_TF_IO;
		*from += k;
	}
	return 0;
}

/*
 * Rewrites name in dirfd keeping line 0 (the magic line) and the lines
 * whose keep[] is true. keep_fn fills keep[] from the lines (NULL keeps
 * every line); when what it keeps is over 7/8 of max_bytes, the oldest of
 * those go too, down to 3/4 of it (*trimmed counts them). Returns the number of
 * lines dropped (>= 0) or an error; a missing file drops nothing, and so
 * does anything under the name that is not a regular file of ours (a
 * link is never followed: the next append replaces it).
 */
typedef void (*tf_side_keep_fn) (const tf_side_lines *l, bool *keep, const void *arg);

/* When what is kept passes 7/8 of max (appends stop at max), marks the
 * oldest kept lines dropped until the rest fits 3/4 of it. */
static int64_t
tf_side_trim_kept(const tf_side_lines *l, bool *keep, uint64_t max_bytes)
{
	uint64_t	kept = 0;
	size_t	   *len;
	size_t	   *idx;
	bool	   *k2;
	size_t		m = 0,
				i;
	int64_t		trimmed = 0;

	for (i = 0; i < l->n; i++)
		if (keep[i])
			kept += l->llen[i] + 1;
	kept += l->len - l->tail;
	if (max_bytes == 0 || kept <= max_bytes / 8 * 7)
		return 0;
	len = malloc(l->n * sizeof(size_t));
	idx = malloc(l->n * sizeof(size_t));
	k2 = malloc(l->n * sizeof(bool));
	if (len && idx && k2)
	{
		for (i = 0; i < l->n; i++)
			if (keep[i])
			{
				len[m] = l->llen[i] + 1;
				idx[m++] = i;
			}
		trimmed = (int64_t) pgwt_tf_side_trim(len, m, m > 0 && idx[0] == 0 &&
											  l->llen[0] > 0 && l->buf[0] == '#',
											  max_bytes / 4 * 3, k2);
		for (i = 0; i < m; i++)
			keep[idx[i]] = k2[i];
	}
	free(len);
	free(idx);
	free(k2);
	return trimmed;
}

static int64_t
tf_side_rewrite(int dirfd, const char *name, const pgwt_tf_file_opts *opts,
				tf_side_keep_fn keep_fn, const void *arg, uint64_t max_bytes,
				uint64_t *trimmed)
{
	char		tmp[256];
	int			mode = opts && opts->mode ? opts->mode : 0640;
	tf_side_lines l;
	bool	   *keep = NULL;
	int64_t		dropped = 0;
	size_t		i,
				copied;
	int			fd,
				out = -1,
				rc;

	memset(&l, 0, sizeof(l));
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= (int) sizeof(tmp))
		return -PGWT_TF_INVAL;
	fd = tf_openat_read(dirfd, name);
	if (fd < 0)
		return errno == ENOENT || errno == EPERM || errno == ELOOP ? 0 : -PGWT_TF_IO;
	rc = tf_side_read(fd, &l);
	if (rc == 0 && l.n > 0 && !(keep = calloc(l.n, sizeof(bool))))
		rc = -PGWT_TF_NOMEM;
	if (rc == 0 && l.n > 0)
	{
		int64_t		cut;

		if (keep_fn)
			keep_fn(&l, keep, arg);
		else
			memset(keep, 1, l.n * sizeof(bool));
		if (l.llen[0] > 0 && l.buf[l.off[0]] == '#')
			keep[0] = true;		/* the magic line */
		cut = tf_side_trim_kept(&l, keep, max_bytes);
		if (trimmed)
			*trimmed += (uint64_t) cut;
		for (i = 0; i < l.n; i++)
			dropped += !keep[i];
	}
	if (rc < 0 || dropped == 0)
		goto done;

	out = tf_openat_replace(dirfd, tmp, O_WRONLY, mode, opts ? opts->group_gid : -1);
	if (out < 0)
	{
		rc = -PGWT_TF_IO;
		goto done;
	}
	for (i = 0; rc == 0 && i < l.n; i++)
		if (keep[i])
			rc = tf_write_all(out, l.buf + l.off[i], l.llen[i] + 1);
	copied = l.tail;
	if (rc == 0 && copied < l.len)
	{
		rc = tf_write_all(out, l.buf + copied, l.len - copied);
		copied = l.len;
	}
	/* lines appended since the read */
	if (rc == 0)
		rc = tf_side_copy_new(fd, out, &copied);
	if (rc == 0 && fsync(out) < 0)
		rc = -PGWT_TF_IO;
	if (close(out) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	out = -1;
	if (rc == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		rc = -PGWT_TF_IO;
	if (rc < 0)
		(void) unlinkat(dirfd, tmp, 0);
	else
	{
		/* an appender that opened the old inode before the rename */
		int			ap = tf_openat_append(dirfd, name, mode, -1, false);

		if (ap >= 0)
		{
			(void) tf_side_copy_new(fd, ap, &copied);
			(void) close(ap);
		}
		(void) tf_fsync_dirfd(dirfd);
	}
done:
	close(fd);
	tf_side_lines_free(&l);
	free(keep);
	return rc < 0 ? rc : dropped;
}

static void
tf_side_keep_backends_fn(const tf_side_lines *l, bool *keep, const void *arg)
{
	uint64_t	horizon = *(const uint64_t *) arg;
	uint32_t   *pid = calloc(l->n, sizeof(uint32_t));
	uint64_t   *start = calloc(l->n, sizeof(uint64_t));
	bool	   *valid = calloc(l->n, sizeof(bool));
	size_t		i;

	for (i = 0; i < l->n; i++)
		keep[i] = true;			/* without memory nothing is dropped */
	if (pid && start && valid)
	{
		for (i = 1; i < l->n; i++)
			valid[i] = tf_side_parse_backend(l->buf + l->off[i], l->llen[i],
											 &pid[i], &start[i]);
		(void) pgwt_tf_side_keep_backends(pid, start, valid, l->n, horizon, keep);
	}
	free(pid);
	free(start);
	free(valid);
}

static void
tf_side_keep_blockers_fn(const tf_side_lines *l, bool *keep, const void *arg)
{
	uint64_t	horizon = *(const uint64_t *) arg;
	size_t		i;

	for (i = 0; i < l->n; i++)
		keep[i] = pgwt_tf_side_keep_blocker(l->buf + l->off[i], l->llen[i], horizon);
}

/* The start of a "#file<TAB><u64>" mark, or false. */
static bool
tf_side_parse_mark(const char *line, size_t len, uint64_t *start_rt)
{
	size_t		ml = strlen(PGWT_TF_QUERIES_FILE_MARK);
	char		buf[32];
	char	   *end;
	unsigned long long v;

	if (len <= ml + 1 || len - ml - 1 >= sizeof(buf) ||
		memcmp(line, PGWT_TF_QUERIES_FILE_MARK, ml) != 0 || line[ml] != '\t')
		return false;
	memcpy(buf, line + ml + 1, len - ml - 1);
	buf[len - ml - 1] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (end == buf || *end != '\0' || errno || buf[0] == '-')
		return false;
	*start_rt = v;
	return true;
}

/* A text line: "<16 hex>\t..." */
static bool
tf_side_is_text(const char *line, size_t len)
{
	size_t		i;

	if (len < 17 || line[16] != '\t')
		return false;
	for (i = 0; i < 16; i++)
		if (!((line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f')))
			return false;
	return true;
}

int
pgwt_tf_side_keep_queries(const char *const *line, const size_t *len,
						  size_t n, uint64_t horizon_rt, bool *keep)
{
	size_t		slots = 1;
	size_t	   *tab;
	size_t		cut = 0,
				seg_start = 0,
				prev_mark = SIZE_MAX,
				i;
	uint64_t	rt;

	for (i = 0; i < n; i++)
		keep[i] = true;
	/* the mark of the file before the newest one started by the horizon */
	for (i = 1; i < n; i++)
		if (tf_side_parse_mark(line[i], len[i], &rt))
		{
			if (rt > horizon_rt)
				break;
			cut = prev_mark == SIZE_MAX ? 0 : prev_mark;
			prev_mark = i;
		}
	for (i = 1; i < cut; i++)
		if (tf_side_is_text(line[i], len[i]) || tf_side_parse_mark(line[i], len[i], &rt))
			keep[i] = false;

	while (slots < 2 * n)
		slots <<= 1;
	if (!(tab = calloc(slots, sizeof(size_t))))
		return -PGWT_TF_NOMEM;	/* ages, keeps repeats */
	for (i = cut; i < n; i++)
	{
		uint64_t	h = 1469598103934665603ull;
		size_t		k;

		if (tf_side_parse_mark(line[i], len[i], &rt))
		{
			seg_start = i;		/* repeats are judged per segment */
			continue;
		}
		if (!tf_side_is_text(line[i], len[i]))
			continue;
		for (k = 0; k < len[i]; k++)
			h = (h ^ (uint8_t) line[i][k]) * 1099511628211ull;
		for (k = h & (slots - 1);; k = (k + 1) & (slots - 1))
		{
			size_t		j;

			if (tab[k] == 0 || tab[k] - 1 < seg_start)
			{
				tab[k] = i + 1;	/* empty, or a copy in an earlier segment */
				break;
			}
			j = tab[k] - 1;
			if (len[j] == len[i] && memcmp(line[j], line[i], len[i]) == 0)
			{
				keep[i] = false;
				break;
			}
		}
	}
	free(tab);
	return 0;
}

static void
tf_side_keep_queries_fn(const tf_side_lines *l, bool *keep, const void *arg)
{
	uint64_t	horizon = *(const uint64_t *) arg;
	const char **line = malloc((l->n ? l->n : 1) * sizeof(char *));
	size_t		i;

	for (i = 0; i < l->n; i++)
		keep[i] = true;			/* without memory nothing is dropped */
	if (!line)
		return;
	for (i = 0; i < l->n; i++)
		line[i] = l->buf + l->off[i];
	(void) pgwt_tf_side_keep_queries(line, l->llen, l->n, horizon, keep);
	free(line);
}

int
tf_side_apply_retention(int dirfd, const pgwt_tf_file_opts *opts,
						const pgwt_tf_file_header *oldest, uint64_t now_rt,
						uint64_t now_mono, uint64_t max_bytes, uint64_t *dropped,
						uint64_t *trimmed)
{
	int64_t		rc;
	uint64_t	h_rt = oldest->start_realtime_ns;
	uint64_t	h_mono = oldest->start_monotonic_ns;
	bool		same_boot;

	*dropped = 0;
	if ((rc = tf_side_rewrite(dirfd, PGWT_TF_BACKENDS_NAME, opts,
							  tf_side_keep_backends_fn, &h_rt, max_bytes, trimmed)) < 0)
		return (int) rc;
	*dropped += (uint64_t) rc;
	if ((rc = tf_side_rewrite(dirfd, PGWT_TF_QUERIES_NAME, opts,
							  tf_side_keep_queries_fn, &h_rt, max_bytes, trimmed)) < 0)
		return (int) rc;
	*dropped += (uint64_t) rc;

	/*
	 * Monotonic time restarts at boot: compare only when the monotonic
	 * clock advanced with the wall clock (within a minute) from the oldest
	 * retained file to now, i.e. no reboot between them. The bound holds
	 * either way.
	 */
	same_boot = now_mono >= h_mono && now_rt >= h_rt &&
		now_mono - h_mono + 60000000000ull >= now_rt - h_rt;
	if ((rc = tf_side_rewrite(dirfd, PGWT_TF_BLOCKERS_NAME, opts,
							  same_boot ? tf_side_keep_blockers_fn : NULL, &h_mono,
							  max_bytes, trimmed)) < 0)
		return (int) rc;
	*dropped += (uint64_t) rc;
	/* windows.tsv opens with the same CLOCK_MONOTONIC field: the same rule */
	if ((rc = tf_side_rewrite(dirfd, PGWT_TF_WINDOWS_NAME, opts,
							  same_boot ? tf_side_keep_blockers_fn : NULL, &h_mono,
							  max_bytes, trimmed)) < 0)
		return (int) rc;
	*dropped += (uint64_t) rc;
	return 0;
}
