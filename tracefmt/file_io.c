/*
 * file_io.c
 *		The small I/O helpers every trace-file unit shares: whole writes and
 *		reads, the live file's .meta record (its committed block count),
 *		directory fsync, the clocks a writer reads, the footer encoding.
 *
 * It sits below the writer (file_writer.c), the summary file
 * (summary_file.c), the reader and the directory code, and calls none of
 * them, so none of them depend on each other through it. No shared state.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

int
tf_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0)
	{
		ssize_t		w = write(fd, p, len);

		if (w < 0)
		{
			if (errno == EINTR)
				continue;
			return -PGWT_TF_IO;
		}
		p += w;
		len -= (size_t) w;
	}
	return 0;
}

int
tf_pread_all(int fd, void *buf, size_t len, off_t off)
{
	char	   *p = buf;

	while (len > 0)
	{
		ssize_t		r = pread(fd, p, len, off);

		if (r < 0)
		{
			if (errno == EINTR)
				continue;
			return -PGWT_TF_IO;
		}
		if (r == 0)
			return -PGWT_TF_TRUNCATED;
		p += r;
		off += r;
		len -= (size_t) r;
	}
	return 0;
}

/*
 * The committed count of a live file, as text: ten zero-padded digits, a
 * space, eight hex digits of a check over the digits, a newline. The
 * record has a fixed size so the writer overwrites it in place with one
 * pwrite(); a reader that reads while it is being overwritten may see a
 * mix of old and new bytes, which the check rejects (docs/TRACE_FORMAT.md
 * 6.1).
 */
static uint32_t
tf_meta_check(const char *digits)
{
	uint32_t	h = 2166136261u;	/* FNV-1a */
	int			i;

	for (i = 0; i < TF_META_DIGITS; i++)
		h = (h ^ (uint8_t) digits[i]) * 16777619u;
	return h;
}

static void
tf_meta_format(uint64_t count, char *text)
{
	char		tmp[TF_META_LEN + 1];

	snprintf(tmp, sizeof(tmp), "%010llu", (unsigned long long) count);
	snprintf(tmp + TF_META_DIGITS, sizeof(tmp) - TF_META_DIGITS, " %08x\n",
			 (unsigned) tf_meta_check(tmp));
	memcpy(text, tmp, TF_META_LEN);
}

/* "<name>.meta" and "<name>.meta.tmp" of a file in the directory. */
static int
tf_meta_names(const char *name, char *meta, size_t mlen, char *tmp, size_t tlen)
{
	if (snprintf(meta, mlen, "%s%s", name, PGWT_TF_META_SUFFIX) >= (int) mlen ||
		(tmp && snprintf(tmp, tlen, "%s%s.tmp", name, PGWT_TF_META_SUFFIX) >= (int) tlen))
		return -PGWT_TF_INVAL;
	return 0;
}

int
tf_meta_create_at(int dirfd, const char *name, uint64_t count, int mode, long gid,
				  int *fd_out)
{
	char		tmp[512];
	char		dst[512];
	char		text[TF_META_LEN];
	int			fd;
	int			rc;

	if ((rc = tf_meta_names(name, dst, sizeof(dst), tmp, sizeof(tmp))) < 0)
		return rc;
	tf_meta_format(count, text);
	/* a leftover or planted .tmp is replaced, never written through */
	fd = tf_openat_replace(dirfd, tmp, O_WRONLY, mode, gid);
	if (fd < 0)
		return -PGWT_TF_IO;
	rc = tf_write_all(fd, text, sizeof(text));
	/* the name appears with its first count in it, never empty; a link
	 * planted under it is replaced, not followed */
	if (rc == 0 && renameat(dirfd, tmp, dirfd, dst) < 0)
		rc = -PGWT_TF_IO;
	if (rc < 0)
	{
		close(fd);
		(void) unlinkat(dirfd, tmp, 0);
		return rc;
	}
	*fd_out = fd;
	return 0;
}

int
tf_meta_create(const char *path, uint64_t count, int mode, long gid, int *fd_out)
{
	const char *name;
	int			dirfd;
	int			rc;

	if ((rc = tf_split_path(path, &dirfd, &name)) < 0)
		return rc;
	rc = tf_meta_create_at(dirfd, name, count, mode, gid, fd_out);
	close(dirfd);
	return rc;
}

/* Overwrites the record in place; every TF_META_RECHECK-th call first
 * recreates a .meta removed under the writer (by hand: nothing here
 * removes a live one), as the renames of earlier writers did. */
static int
tf_meta_store_common(int *fd, int dirfd, const char *path, const char *name,
					 uint64_t count, int mode, long gid, unsigned *nstores)
{
	char		text[TF_META_LEN];
	ssize_t		w;

	if (++*nstores % TF_META_RECHECK == 0)
	{
		struct stat st;

		if (fstat(*fd, &st) == 0 && st.st_nlink == 0)
		{
			int			nfd;
			int			rc = dirfd >= 0 ?
				tf_meta_create_at(dirfd, name, count, mode, gid, &nfd) :
				tf_meta_create(path, count, mode, gid, &nfd);

			if (rc < 0)
				return rc;
			close(*fd);
			*fd = nfd;
			return 0;
		}
	}
	tf_meta_format(count, text);
	do
		w = pwrite(*fd, text, sizeof(text), 0);
	while (w < 0 && errno == EINTR);
	return w == (ssize_t) sizeof(text) ? 0 : -PGWT_TF_IO;
}

int
tf_meta_store(int *fd, const char *path, uint64_t count, int mode, long gid,
			  unsigned *nstores)
{
	return tf_meta_store_common(fd, -1, path, NULL, count, mode, gid, nstores);
}

int
tf_meta_store_at(int *fd, int dirfd, const char *name, uint64_t count, int mode,
				 long gid, unsigned *nstores)
{
	return tf_meta_store_common(fd, dirfd, NULL, name, count, mode, gid, nstores);
}

/* Parses one read of a .meta: 1 = torn (check failed), 0 = ok, < 0 bad. */
static int
tf_meta_parse(const char *text, ssize_t len, uint64_t *count)
{
	uint64_t	v = 0;
	ssize_t		ndig;
	ssize_t		i;

	if (len <= 0 || len > TF_META_LEN)
		return -PGWT_TF_BAD_META;
	if (text[len - 1] == '\n')
		len--;
	for (ndig = 0; ndig < len && text[ndig] >= '0' && text[ndig] <= '9'; ndig++)
		;
	if (ndig == 0 || ndig > TF_META_DIGITS)	/* at most 4294967295 blocks */
		return -PGWT_TF_BAD_META;
	if (ndig < len)
	{
		/* the checked form; a bare count is what earlier writers renamed */
		uint32_t	check = 0;

		if (ndig != TF_META_DIGITS || len != TF_META_LEN - 1 || text[ndig] != ' ')
			return -PGWT_TF_BAD_META;
		for (i = ndig + 1; i < len; i++)
		{
			char		c = text[i];
			int			d = c >= '0' && c <= '9' ? c - '0' :
				c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

			if (d < 0)
				return 1;		/* torn: a hex digit mixed with a count digit */
			check = check << 4 | (uint32_t) d;
		}
		if (check != tf_meta_check(text))
			return 1;
	}
	for (i = 0; i < ndig; i++)
		v = v * 10 + (uint64_t) (text[i] - '0');
	if (v > UINT32_MAX)
		return -PGWT_TF_BAD_META;
	*count = v;
	return 0;
}

int
tf_read_meta(const char *path, uint64_t *count)
{
	char		name[4096];
	char		text[32];
	int			attempt;

	if (snprintf(name, sizeof(name), "%s%s", path, PGWT_TF_META_SUFFIX) >= (int) sizeof(name))
		return -PGWT_TF_INVAL;
	for (attempt = 0; attempt < 3; attempt++)
	{
		ssize_t		len;
		int			rc;
		int			fd = pgwt_tf_open_regular(name);

		if (fd < 0)
			return fd == -PGWT_TF_IO ? -PGWT_TF_IO : -PGWT_TF_BAD_META;
		len = pread(fd, text, sizeof(text), 0);
		close(fd);
		rc = tf_meta_parse(text, len, count);
		if (rc <= 0)
			return rc;
		/* caught mid-overwrite: the next read sees the whole record */
	}
	return -PGWT_TF_BAD_META;
}

/*
 * /proc/self/fd/N is the one link followed: it names a descriptor this
 * process opened itself, through the checks of safe_dir.c (tf_fd_path:
 * the writer's recovery reads the file it holds open that way).
 */
#define TF_OWN_FD_PREFIX	"/proc/self/fd/"

static bool
tf_own_fd_path(const char *path)
{
	size_t		n = strlen(TF_OWN_FD_PREFIX);

	if (strncmp(path, TF_OWN_FD_PREFIX, n) != 0 || path[n] == '\0')
		return false;
	for (path += n; *path; path++)
		if (*path < '0' || *path > '9')
			return false;
	return true;
}

int
pgwt_tf_open_regular(const char *path)
{
	struct stat st;
	int			fd = open(path, O_RDONLY | (tf_own_fd_path(path) ? 0 : O_NOFOLLOW) |
						  O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? -PGWT_TF_NOT_FOUND :
			errno == ELOOP ? -PGWT_TF_NOT_REGULAR : -PGWT_TF_IO;
	if (fstat(fd, &st) < 0)
	{
		close(fd);
		return -PGWT_TF_IO;
	}
	if (!S_ISREG(st.st_mode))
	{
		close(fd);
		return -PGWT_TF_NOT_REGULAR;
	}
	return fd;
}

FILE *
pgwt_tf_fopen_regular(const char *path, int *err)
{
	int			fd = pgwt_tf_open_regular(path);
	FILE	   *fp;

	if (fd < 0)
	{
		*err = fd;
		return NULL;
	}
	if (!(fp = fdopen(fd, "r")))
	{
		close(fd);
		*err = -PGWT_TF_NOMEM;
	}
	return fp;
}

long
pgwt_tf_getline_max(char *buf, size_t max, FILE *fp)
{
	size_t		n = 0;
	int			c = EOF;

	while ((c = getc_unlocked(fp)) != EOF)
	{
		if (n < max)
			buf[n] = (char) c;
		n++;
		if (c == '\n')
			break;
	}
	if (n == 0)
		return -1;
	if (n > max)
	{
		buf[max] = '\0';
		return (long) max + 1;
	}
	buf[n] = '\0';
	return (long) n;
}

int
tf_fsync_dir(const char *dir)
{
	int			fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int			rc = 0;

	if (fd < 0)
		return -PGWT_TF_IO;
	if (fsync(fd) < 0)
		rc = -PGWT_TF_IO;
	close(fd);
	return rc;
}

static uint64_t
tf_system_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

uint64_t
tf_clock_realtime(const pgwt_tf_clock *c)
{
	return c && c->realtime_ns ? c->realtime_ns(c->arg) : tf_system_clock(CLOCK_REALTIME);
}

uint64_t
tf_clock_monotonic(const pgwt_tf_clock *c)
{
	return c && c->monotonic_ns ? c->monotonic_ns(c->arg) : tf_system_clock(CLOCK_MONOTONIC);
}

int
tf_footer_encode(const uint64_t *first_ts, const uint64_t *offsets, uint32_t n,
				 uint8_t **buf, size_t *len)
{
	size_t		sz = (size_t) n * PGWT_TF_FOOTER_ENTRY_SIZE + 4;
	uint8_t    *b = malloc(sz);
	uint32_t	i;

	if (!b)
		return -PGWT_TF_NOMEM;
	for (i = 0; i < n; i++)
	{
		tf_put_u64(b + (size_t) i * 16, first_ts[i]);
		tf_put_u64(b + (size_t) i * 16 + 8, offsets[i]);
	}
	tf_put_u32(b + sz - 4, n);
	*buf = b;
	*len = sz;
	return 0;
}

void
tf_unlink_meta_at(int dirfd, const char *name)
{
	char		meta[512];

	if (tf_meta_names(name, meta, sizeof(meta), NULL, 0) == 0)
		(void) unlinkat(dirfd, meta, 0);
}

void
tf_unlink_meta_of(const char *path)
{
	const char *name;
	int			dirfd;

	if (tf_split_path(path, &dirfd, &name) < 0)
		return;
	tf_unlink_meta_at(dirfd, name);
	close(dirfd);
}
