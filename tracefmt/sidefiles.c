/*
 * sidefiles.c
 *		Side files beside the traces, so a trace is readable on another
 *		machine: backends.tsv (who each pid was), queries.tsv (query texts
 *		by query_id) and events.tsv (the server's wait-event names: a whole
 *		table written at once, or names appended as new ids appear).
 *
 * Format (docs/TRACE_FORMAT.md, "Side files"): UTF-8 text, one record per
 * line, fields separated by TAB; the first line names the file kind and
 * its version. Inside fields, backslash, TAB, LF and CR are written as
 * \\ \t \n \r. A line is appended with a single write() on an O_APPEND
 * descriptor, so concurrent appenders never interleave within a line;
 * a torn last line (no LF) is ignored by readers and counted as bad.
 * Files are opened by name relative to the checked directory descriptor
 * (safe_dir.c): never through a link, never into a file not ours. Each
 * side file is bounded (opts->side_max_bytes, side_bounds.c): a line that
 * would pass the bound is refused with -PGWT_TF_FULL.
 * No state is kept between calls.
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
#include "common/parse_u64.h"

#define TF_BACKENDS_MAGIC	"#pgwt-backends\t1"
#define TF_WINDOWS_MAGIC	"#pgwt-windows\t1"
#define TF_QUERIES_MAGIC	"#pgwt-queries\t1"
#define TF_EVENTS_MAGIC		"#pgwt-events\t1"
/* Longest line a reader accepts (an escaped text doubles at most). */
#define TF_LINE_MAX			(4 * PGWT_TF_QUERY_TEXT_MAX + 1024)

/* Growable line buffer for building one record. */
typedef struct tf_line
{
	char		buf[TF_LINE_MAX];
	size_t		len;
	bool		overflow;
} tf_line;

static void
tf_line_raw(tf_line *l, const char *s, size_t n)
{
	if (l->len + n >= sizeof(l->buf))
	{
		l->overflow = true;
		return;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

/* Length of s cut to at most max bytes without splitting a UTF-8 char. */
static size_t
tf_utf8_cut(const char *s, size_t max)
{
	size_t		n = strlen(s);

	if (n <= max)
		return n;
	n = max;
	while (n > 0 && ((unsigned char) s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* Appends TAB (unless first) and the escaped first n bytes of s. */
static void
tf_line_field(tf_line *l, const char *s, size_t n, bool first)
{
	size_t		i;

	if (!first)
		tf_line_raw(l, "\t", 1);
	for (i = 0; i < n; i++)
	{
		switch (s[i])
		{
			case '\\':
				tf_line_raw(l, "\\\\", 2);
				break;
			case '\t':
				tf_line_raw(l, "\\t", 2);
				break;
			case '\n':
				tf_line_raw(l, "\\n", 2);
				break;
			case '\r':
				tf_line_raw(l, "\\r", 2);
				break;
			default:
				tf_line_raw(l, s + i, 1);
		}
	}
}

static void
tf_line_str(tf_line *l, const char *s, size_t max)
{
	if (!s)
		s = "";
	tf_line_field(l, s, tf_utf8_cut(s, max), false);
}

/* The bound an append respects (opts->side_max_bytes, else the default). */
static uint64_t
tf_side_max(const pgwt_tf_file_opts *opts)
{
	return opts && opts->side_max_bytes ? opts->side_max_bytes : PGWT_TF_SIDE_MAX_DEFAULT;
}

/*
 * Appends len bytes to name in dirfd (safe_dir.c: never through a link or
 * into a file not ours), writing the magic line first into a new file.
 * Refused with -PGWT_TF_FULL when the file would pass its bound.
 */
static int
tf_append_at(int dirfd, const char *name, const char *magic,
			 const pgwt_tf_file_opts *opts, const char *buf, size_t len)
{
	int			mode = opts && opts->mode ? opts->mode : 0640;
	long		gid = opts ? opts->group_gid : -1;
	char		m[64];
	size_t		mlen = 0;
	struct stat st;
	int			fd;
	int			rc = 0;

	fd = tf_openat_append(dirfd, name, mode, gid, true);
	if (fd < 0)
		return errno == EINVAL ? -PGWT_TF_INVAL : -PGWT_TF_IO;
	if (fstat(fd, &st) < 0)
		rc = -PGWT_TF_IO;
	else if (st.st_size == 0)
	{
		/* a file another writer left empty gets our mode and group too */
		(void) fchmod(fd, (mode_t) mode);
		if (gid >= 0)
			(void) fchown(fd, (uid_t) -1, (gid_t) gid);
		if (magic)
			mlen = (size_t) snprintf(m, sizeof(m), "%s\n", magic);
	}
	/* a new file gets its magic line even when the line is refused */
	if (rc == 0 && mlen > 0)
		rc = tf_write_all(fd, m, mlen);
	if (rc == 0 && (uint64_t) st.st_size + mlen + len > tf_side_max(opts))
		rc = -PGWT_TF_FULL;
	if (rc == 0)
		rc = tf_write_all(fd, buf, len);
	if (close(fd) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	return rc;
}

/* Appends one finished line (tf_append_at). */
static int
tf_append_line(int dirfd, const char *name, const char *magic,
			   const pgwt_tf_file_opts *opts, tf_line *l)
{
	if (l->overflow)
		return -PGWT_TF_INVAL;
	tf_line_raw(l, "\n", 1);
	if (l->overflow)
		return -PGWT_TF_INVAL;
	return tf_append_at(dirfd, name, magic, opts, l->buf, l->len);
}

int
pgwt_tf_side_append_at(int dirfd, const char *name, const pgwt_tf_file_opts *opts,
					   const char *lines, size_t len)
{
	if (!tf_name_ok(name) || (len > 0 && lines[len - 1] != '\n'))
		return -PGWT_TF_INVAL;
	if (len == 0)
		return 0;
	return tf_append_at(dirfd, name, NULL, opts, lines, len);
}

/* The backends.tsv line of b, LF included, into l (overflow flagged). */
static void
tf_backend_format(tf_line *l, const pgwt_tf_backend *b)
{
	l->len = (size_t) snprintf(l->buf, sizeof(l->buf), "%u\t%u\t%" PRIu64,
							   b->pid, b->leader_pid, b->start_realtime_ns);
	l->overflow = false;
	tf_line_str(l, b->type, PGWT_TF_FIELD_MAX);
	tf_line_str(l, b->user, PGWT_TF_FIELD_MAX);
	tf_line_str(l, b->database, PGWT_TF_FIELD_MAX);
	tf_line_str(l, b->client_addr, PGWT_TF_FIELD_MAX);
	tf_line_str(l, b->application_name, PGWT_TF_FIELD_MAX);
	tf_line_raw(l, "\n", 1);
}

int
pgwt_tf_backend_append_at(int dirfd, const pgwt_tf_file_opts *opts,
						  const pgwt_tf_backend *b)
{
	return pgwt_tf_backends_append_at(dirfd, opts, b, 1);
}

int
pgwt_tf_backends_append_at(int dirfd, const pgwt_tf_file_opts *opts,
						   const pgwt_tf_backend *b, size_t n)
{
	tf_line    *l;
	char	   *all;
	size_t		len = 0;
	int			rc = 0;

	if (n == 0)
		return 0;
	if (n > PGWT_TF_BACKENDS_BATCH_MAX)
		return -PGWT_TF_INVAL;
	if (!(l = calloc(1, sizeof(*l))))
		return -PGWT_TF_NOMEM;
	all = NULL;
	for (size_t i = 0; i < n && rc == 0; i++)
	{
		char	   *grown;

		tf_backend_format(l, &b[i]);
		if (l->overflow)
			rc = -PGWT_TF_INVAL;
		else if (!(grown = realloc(all, len + l->len)))
			rc = -PGWT_TF_NOMEM;
		else
		{
			all = grown;
			memcpy(all + len, l->buf, l->len);
			len += l->len;
		}
	}
	if (rc == 0)
		rc = tf_append_at(dirfd, PGWT_TF_BACKENDS_NAME, TF_BACKENDS_MAGIC, opts, all, len);
	free(all);
	free(l);
	return rc;
}

int
pgwt_tf_query_append_at(int dirfd, const pgwt_tf_file_opts *opts,
						pgwt_tf_query_mode mode, uint64_t query_id, const char *text)
{
	tf_line    *l;
	char	   *norm = NULL;
	const char *src = text ? text : "";
	size_t		n;
	bool		truncated;
	int			rc;

	if (mode == PGWT_TF_QUERY_NONE)
		return 0;
	if (mode != PGWT_TF_QUERY_FULL && mode != PGWT_TF_QUERY_NORMALIZED)
		return -PGWT_TF_INVAL;
	if (mode == PGWT_TF_QUERY_NORMALIZED)
	{
		size_t		len = strlen(src) + 1;

		if (!(norm = malloc(len)))
			return -PGWT_TF_NOMEM;
		pgwt_tf_normalize_query(src, norm, len);
		src = norm;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
	{
		free(norm);
		return -PGWT_TF_NOMEM;
	}
	n = tf_utf8_cut(src, PGWT_TF_QUERY_TEXT_MAX);
	truncated = n < strlen(src);
	l->len = (size_t) snprintf(l->buf, sizeof(l->buf), "%016" PRIx64 "\t%c\t%d",
							   query_id, mode == PGWT_TF_QUERY_FULL ? 'F' : 'N',
							   truncated ? 1 : 0);
	tf_line_field(l, src, n, false);
	rc = tf_append_line(dirfd, PGWT_TF_QUERIES_NAME, TF_QUERIES_MAGIC, opts, l);
	free(l);
	free(norm);
	return rc;
}

/*
 * Marks in queries.tsv that a new trace file starts at start_rt (a line
 * "#file<TAB>start_rt"; readers skip '#' lines). Texts written after it
 * belong to that file and later ones, which is what lets retention age
 * texts with the trace files (side_retention.c). Only an existing
 * queries.tsv is marked: a directory without texts stays without one.
 * A mark is a few bytes once an hour: it is not held to the bound.
 */
int
pgwt_tf_queries_mark_file_at(int dirfd, uint64_t start_rt)
{
	char		line[64];
	int			n;
	int			fd;
	int			rc;

	fd = tf_openat_append(dirfd, PGWT_TF_QUERIES_NAME, 0640, -1, false);
	if (fd < 0)
		return errno == ENOENT ? 0 : -PGWT_TF_IO;
	n = snprintf(line, sizeof(line), "%s\t%" PRIu64 "\n", PGWT_TF_QUERIES_FILE_MARK, start_rt);
	rc = tf_write_all(fd, line, (size_t) n);
	if (close(fd) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	return rc;
}

/*
 * One events.tsv line of ev into l (id, class, name; each cleaned to the
 * readers' rule, pgwt_tf_event_name_ok, and escaped). False when the name
 * or class cleans to nothing: no line for it.
 */
static bool
tf_event_line_format(tf_line *l, const pgwt_tf_event_name *ev)
{
	char		name[PGWT_TF_EVENT_NAME_MAX + 1];
	char		cls[PGWT_TF_EVENT_NAME_MAX + 1];

	if (pgwt_tf_event_name_clean(ev->name, name, sizeof(name)) == 0 ||
		pgwt_tf_event_name_clean(ev->class_name, cls, sizeof(cls)) == 0)
		return false;
	l->len = (size_t) snprintf(l->buf, sizeof(l->buf), "0x%08x", ev->id);
	l->overflow = false;
	tf_line_str(l, cls, PGWT_TF_EVENT_NAME_MAX);
	tf_line_str(l, name, PGWT_TF_EVENT_NAME_MAX);
	tf_line_raw(l, "\n", 1);
	return true;
}

int
pgwt_tf_events_write_at(int dirfd, const pgwt_tf_file_opts *opts,
						uint32_t pg_version, const pgwt_tf_event_name *ev, size_t n)
{
	const char *tmp = PGWT_TF_EVENTS_NAME ".tmp";
	int			mode = opts && opts->mode ? opts->mode : 0640;
	tf_line    *l;
	size_t		i;
	int			fd;
	int			rc = 0;

	if (!(l = calloc(1, sizeof(*l))))
		return -PGWT_TF_NOMEM;
	fd = tf_openat_replace(dirfd, tmp, O_WRONLY, mode, opts ? opts->group_gid : -1);
	if (fd < 0)
	{
		free(l);
		return -PGWT_TF_IO;
	}
	l->len = (size_t) snprintf(l->buf, sizeof(l->buf), "%s\t%u\n", TF_EVENTS_MAGIC, pg_version);
	rc = tf_write_all(fd, l->buf, l->len);
	for (i = 0; rc == 0 && i < n; i++)
		if (tf_event_line_format(l, &ev[i]))
			rc = l->overflow ? -PGWT_TF_INVAL : tf_write_all(fd, l->buf, l->len);
	if (rc == 0 && fsync(fd) < 0)
		rc = -PGWT_TF_IO;
	if (close(fd) < 0 && rc == 0)
		rc = -PGWT_TF_IO;
	/* renameat replaces whatever has the name, a link included, itself */
	if (rc == 0 && renameat(dirfd, tmp, dirfd, PGWT_TF_EVENTS_NAME) < 0)
		rc = -PGWT_TF_IO;
	if (rc < 0)
		(void) unlinkat(dirfd, tmp, 0);
	free(l);
	return rc;
}

int
pgwt_tf_events_append_at(int dirfd, const pgwt_tf_file_opts *opts,
						 uint32_t pg_version, const pgwt_tf_event_name *ev, size_t n)
{
	char		magic[64];
	char	   *buf;
	tf_line    *l;
	size_t		len = 0,
				cap;
	int			rc = 0;

	if (n == 0)
		return 0;
	/* a line: id, class and name, each cleaned to its bound, escaped */
	cap = n * (16 + 4 * PGWT_TF_EVENT_NAME_MAX);
	buf = malloc(cap);
	l = malloc(sizeof(*l));
	if (!buf || !l)
	{
		free(buf);
		free(l);
		return -PGWT_TF_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
	{
		if (!tf_event_line_format(l, &ev[i]))
			continue;
		if (l->overflow || len + l->len > cap)
		{
			rc = -PGWT_TF_INVAL;
			break;
		}
		memcpy(buf + len, l->buf, l->len);
		len += l->len;
	}
	free(l);
	snprintf(magic, sizeof(magic), "%s\t%u", TF_EVENTS_MAGIC, pg_version);
	if (rc == 0 && len > 0)
		rc = tf_append_at(dirfd, PGWT_TF_EVENTS_NAME, magic, opts, buf, len);
	free(buf);
	return rc;
}

/* ---- the same by directory path ------------------------------------------ */

int
pgwt_tf_backend_append(const char *dir, const pgwt_tf_file_opts *opts,
					   const pgwt_tf_backend *b)
{
	int			dirfd;
	int			rc;

	if ((rc = tf_open_dir_path(dir, &dirfd)) < 0)
		return rc;
	rc = pgwt_tf_backend_append_at(dirfd, opts, b);
	close(dirfd);
	return rc;
}

int
pgwt_tf_query_append(const char *dir, const pgwt_tf_file_opts *opts,
					 pgwt_tf_query_mode mode, uint64_t query_id, const char *text)
{
	int			dirfd;
	int			rc;

	if (mode == PGWT_TF_QUERY_NONE)
		return 0;
	if ((rc = tf_open_dir_path(dir, &dirfd)) < 0)
		return rc;
	rc = pgwt_tf_query_append_at(dirfd, opts, mode, query_id, text);
	close(dirfd);
	return rc;
}

int
pgwt_tf_queries_mark_file(const char *dir, uint64_t start_rt)
{
	int			dirfd;
	int			rc;

	if ((rc = tf_open_dir_path(dir, &dirfd)) < 0)
		return rc;
	rc = pgwt_tf_queries_mark_file_at(dirfd, start_rt);
	close(dirfd);
	return rc;
}

int
pgwt_tf_events_write(const char *dir, const pgwt_tf_file_opts *opts,
					 uint32_t pg_version, const pgwt_tf_event_name *ev, size_t n)
{
	int			dirfd;
	int			rc;

	if ((rc = tf_open_dir_path(dir, &dirfd)) < 0)
		return rc;
	rc = pgwt_tf_events_write_at(dirfd, opts, pg_version, ev, n);
	close(dirfd);
	return rc;
}

/* ---- readers ---------------------------------------------------------------- */

/* Splits line in place into at most max fields, unescaping each. Returns
 * the field count, or -1 on a bad escape. */
static int
tf_split(char *line, char **fields, int max)
{
	int			n = 0;
	char	   *r = line;

	while (n < max)
	{
		char	   *w = r;

		fields[n++] = w;
		while (*r && *r != '\t')
		{
			if (*r == '\\')
			{
				switch (r[1])
				{
					case '\\':
						*w++ = '\\';
						break;
					case 't':
						*w++ = '\t';
						break;
					case 'n':
						*w++ = '\n';
						break;
					case 'r':
						*w++ = '\r';
						break;
					default:
						return -1;
				}
				r += 2;
			}
			else
				*w++ = *r++;
		}
		if (*r == '\t')
		{
			*w = '\0';
			r++;
			continue;
		}
		*w = '\0';
		return n;
	}
	return -1;					/* more fields than expected */
}

typedef int (*tf_line_fn) (char **fields, int nfields, void *arg);

/* Reads a side file: checks the magic line (prefix), feeds each complete
 * line's fields to fn; lines fn refuses (returns -1) are counted bad. */
static int
tf_read_side(const char *dir, const char *name, const char *magic,
			 char *magic_rest, size_t rest_len,
			 int nfields, tf_line_fn fn, void *arg, uint64_t *bad)
{
	char		path[4096];
	FILE	   *fp;
	char	   *line;
	long		len;
	bool		first = true;
	uint64_t	nbad = 0;
	int			rc = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int) sizeof(path))
		return -PGWT_TF_INVAL;
	if (!(fp = pgwt_tf_fopen_regular(path, &rc)))
		return rc;
	if (!(line = malloc(TF_LINE_MAX + 2)))
	{
		fclose(fp);
		return -PGWT_TF_NOMEM;
	}
	while ((len = pgwt_tf_getline_max(line, TF_LINE_MAX, fp)) >= 0)
	{
		char	   *fields[16];
		int			nf;

		if (len == 0 || line[len - 1] != '\n' || len > TF_LINE_MAX)
		{
			nbad++;				/* torn or overlong */
			continue;
		}
		line[--len] = '\0';
		if (first)
		{
			size_t		ml = strlen(magic);

			first = false;
			if (strncmp(line, magic, ml) != 0 || (line[ml] != '\0' && line[ml] != '\t'))
			{
				rc = -PGWT_TF_BAD_SIDEFILE;
				break;
			}
			if (magic_rest && rest_len > 0)
				snprintf(magic_rest, rest_len, "%s", line[ml] ? line + ml + 1 : "");
			continue;
		}
		if (line[0] == '#')
			continue;			/* a second appender's magic line */
		nf = tf_split(line, fields, 16);
		if (nf != nfields)
		{
			nbad++;
			continue;
		}
		rc = fn(fields, nf, arg);
		if (rc == -1)
		{
			nbad++;
			rc = 0;
			continue;
		}
		if (rc != 0)
			break;
	}
	if (rc == 0 && first)
		rc = -PGWT_TF_BAD_SIDEFILE;	/* empty file: no magic line */
	if (rc == 0 && ferror(fp))
		rc = -PGWT_TF_IO;
	free(line);
	fclose(fp);
	if (bad)
		*bad = nbad;
	return rc;
}

typedef struct tf_cb_arg
{
	void	   *cb;
	void	   *arg;
} tf_cb_arg;

static int
tf_backend_line(char **f, int nf, void *a)
{
	tf_cb_arg  *ca = a;
	pgwt_tf_backend b;
	uint64_t	pid,
				leader,
				start;
	int			rc;

	if (!pgwt_parse_u64(f[0], 10, UINT32_MAX, &pid) ||
		!pgwt_parse_u64(f[1], 10, UINT32_MAX, &leader) ||
		!pgwt_parse_u64(f[2], 10, UINT64_MAX, &start))
		return -1;
	b.pid = (uint32_t) pid;
	b.leader_pid = (uint32_t) leader;
	b.start_realtime_ns = start;
	b.type = f[3];
	b.user = f[4];
	b.database = f[5];
	b.client_addr = f[6];
	b.application_name = f[7];
	rc = ((pgwt_tf_backend_cb) ca->cb) (&b, ca->arg);
	return rc == -1 ? -2 : rc;
}

int
pgwt_tf_backends_read(const char *dir, pgwt_tf_backend_cb cb, void *arg, uint64_t *bad)
{
	tf_cb_arg	ca = {(void *) cb, arg};

	int			rc = tf_read_side(dir, PGWT_TF_BACKENDS_NAME, TF_BACKENDS_MAGIC, NULL, 0,
								  8, tf_backend_line, &ca, bad);

	return rc == -PGWT_TF_NOT_FOUND ? pgwt_tf_seed_backends_read(dir, cb, arg, bad) : rc;
}

static int
tf_query_line(char **f, int nf, void *a)
{
	tf_cb_arg  *ca = a;
	uint64_t	qid;
	pgwt_tf_query_mode mode;
	int			rc;

	if (strlen(f[0]) != 16 || !pgwt_parse_u64(f[0], 16, UINT64_MAX, &qid))
		return -1;
	if (strcmp(f[1], "F") == 0)
		mode = PGWT_TF_QUERY_FULL;
	else if (strcmp(f[1], "N") == 0)
		mode = PGWT_TF_QUERY_NORMALIZED;
	else
		return -1;
	if ((strcmp(f[2], "0") != 0 && strcmp(f[2], "1") != 0) ||
		strlen(f[3]) > PGWT_TF_QUERY_TEXT_MAX)
		return -1;
	rc = ((pgwt_tf_query_cb) ca->cb) (qid, mode, f[2][0] == '1', f[3], ca->arg);
	return rc == -1 ? -2 : rc;
}

int
pgwt_tf_queries_read(const char *dir, pgwt_tf_query_cb cb, void *arg, uint64_t *bad)
{
	tf_cb_arg	ca = {(void *) cb, arg};

	int			rc = tf_read_side(dir, PGWT_TF_QUERIES_NAME, TF_QUERIES_MAGIC, NULL, 0,
								  4, tf_query_line, &ca, bad);

	return rc == -PGWT_TF_NOT_FOUND ? pgwt_tf_seed_queries_read(dir, cb, arg, bad) : rc;
}

/* events.tsv's reader state: the caller's callback and the lines taken. */
typedef struct tf_event_arg
{
	tf_cb_arg	ca;
	size_t		taken;
} tf_event_arg;

static int
tf_event_line(char **f, int nf, void *a)
{
	tf_event_arg *ea = a;
	tf_cb_arg  *ca = &ea->ca;
	pgwt_tf_event_name e;
	uint64_t	id;
	int			rc;

	/* names are server data: bounded, no control characters, few lines */
	if (strncmp(f[0], "0x", 2) != 0 || strlen(f[0]) != 10 ||
		!pgwt_parse_u64(f[0] + 2, 16, UINT32_MAX, &id) ||
		!pgwt_tf_event_name_ok(f[1]) || !pgwt_tf_event_name_ok(f[2]) ||
		ea->taken >= PGWT_TF_EVENTS_MAX_LINES)
		return -1;
	ea->taken++;
	e.id = (uint32_t) id;
	e.class_name = f[1];
	e.name = f[2];
	rc = ((pgwt_tf_event_cb) ca->cb) (&e, ca->arg);
	return rc == -1 ? -2 : rc;
}

int
pgwt_tf_events_read(const char *dir, pgwt_tf_event_cb cb, void *arg,
					uint32_t *pg_version, uint64_t *bad)
{
	tf_event_arg ea = {{(void *) cb, arg}, 0};
	char		rest[32] = "";
	uint64_t	v = 0;
	int			rc;

	rc = tf_read_side(dir, PGWT_TF_EVENTS_NAME, TF_EVENTS_MAGIC, rest, sizeof(rest),
					  3, tf_event_line, &ea, bad);
	if (rc == -PGWT_TF_NOT_FOUND)
		return pgwt_tf_seed_events_read(dir, cb, arg, pg_version, bad);
	if (rc == 0 && pg_version)
	{
		if (!pgwt_parse_u64(rest, 10, UINT32_MAX, &v))
			return -PGWT_TF_BAD_SIDEFILE;
		*pg_version = (uint32_t) v;
	}
	return rc;
}

/*
 * windows.tsv: start_mono_ns, start_rt_ns, source (8.5), and the names it
 * stores for each exact source.
 */
static const char *const tf_xsrc_names[PGWT_TF_XSRC_COUNT] = {"unknown", "watch", "sched"};

const char *
pgwt_tf_exact_source_name(pgwt_tf_exact_source s)
{
	return (unsigned) s < PGWT_TF_XSRC_COUNT ? tf_xsrc_names[s] : "unknown";
}

pgwt_tf_exact_source
pgwt_tf_exact_source_parse(const char *name)
{
	for (int i = 1; i < PGWT_TF_XSRC_COUNT; i++)
		if (name && strcmp(name, tf_xsrc_names[i]) == 0)
			return (pgwt_tf_exact_source) i;
	return PGWT_TF_XSRC_UNKNOWN;
}

int
pgwt_tf_window_append_at(int dirfd, const pgwt_tf_file_opts *opts, const pgwt_tf_window *w)
{
	tf_line    *l = calloc(1, sizeof(*l));
	int			rc;

	if (!l)
		return -PGWT_TF_NOMEM;
	l->len = (size_t) snprintf(l->buf, sizeof(l->buf), "%" PRIu64 "\t%" PRIu64 "\t%s",
							   w->start_mono_ns, w->start_rt_ns,
							   pgwt_tf_exact_source_name(w->source));
	rc = tf_append_line(dirfd, PGWT_TF_WINDOWS_NAME, TF_WINDOWS_MAGIC, opts, l);
	free(l);
	return rc;
}

static int
tf_window_line(char **f, int nf, void *a)
{
	tf_cb_arg  *ca = a;
	pgwt_tf_window w;
	size_t		n = strlen(f[2]);
	int			rc;

	(void) nf;
	if (!pgwt_parse_u64(f[0], 10, UINT64_MAX, &w.start_mono_ns) ||
		!pgwt_parse_u64(f[1], 10, UINT64_MAX, &w.start_rt_ns) || n == 0 || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (f[2][i] < 'a' || f[2][i] > 'z')
			return -1;
	/* a source this reader does not know is a window all the same */
	w.source = pgwt_tf_exact_source_parse(f[2]);
	rc = ((pgwt_tf_window_cb) ca->cb) (&w, ca->arg);
	return rc == -1 ? -2 : rc;
}

int
pgwt_tf_windows_read(const char *dir, pgwt_tf_window_cb cb, void *arg, uint64_t *bad)
{
	tf_cb_arg	ca = {(void *) cb, arg};

	return tf_read_side(dir, PGWT_TF_WINDOWS_NAME, TF_WINDOWS_MAGIC, NULL, 0, 3,
						tf_window_line, &ca, bad);
}
