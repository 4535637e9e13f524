/*
 * safe_dir.c
 *		The one place where a trace directory and the files in it are
 *		opened for writing (docs/TRACE_FORMAT.md 6, "Who may write the
 *		directory").
 *
 * The directory is opened once (O_DIRECTORY|O_NOFOLLOW) and judged like
 * sshd's StrictModes judges a home directory: it must belong to root or
 * to the effective user, and neither its group nor others may write it;
 * each directory above it (the real chain, and each one the path names)
 * must belong to root or the effective user and may be writable by others
 * only with the sticky bit (/tmp), and a link on the path must belong to
 * root or the effective user. Whoever else could write there could plant
 * a link that a writer running as root would follow, or redirect the
 * path. Every file is then opened relative to that descriptor by
 * a plain name (no '/', never "." or ".."), with O_NOFOLLOW, and checked
 * on its descriptor before a byte is written: a regular file of the
 * effective user with one link. A symbolic link, a hard link, or a file
 * of another user under one of our names is never written through: an
 * append replaces it with a new file of its own, a rename replaces the
 * name only, and the file itself is never opened. fchmod/fchown are only
 * applied to descriptors opened here.
 *
 * Library code that still takes paths (summary_file.c, file_reader.c) is
 * given /proc/self/fd/N/name or /proc/self/fd/N (the descriptor's own
 * directory or file), so even its path lookups resolve through a checked
 * descriptor.
 *
 * No state: every call works on the descriptors its caller owns.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefmt/tf_internal.h"

/* Deepest directory chain walked above a trace directory. */
#define TF_MAX_ANCESTORS	256

/* ---- pure rules ---------------------------------------------------------- */

bool
tf_name_ok(const char *name)
{
	return name && name[0] != '\0' && strchr(name, '/') == NULL &&
		strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int
pgwt_tf_dir_verdict(uint32_t owner, uint32_t mode, uint32_t euid, bool ancestor,
					char *why, size_t whylen)
{
	char		dummy[8];

	if (!why || whylen == 0)
	{
		why = dummy;
		whylen = sizeof(dummy);
	}
	why[0] = '\0';
	if (owner != 0 && owner != euid)
	{
		snprintf(why, whylen, "owned by uid %u, not by root or uid %u", owner, euid);
		return -PGWT_TF_UNSAFE;
	}
	if (ancestor)
	{
		/* a sticky directory (/tmp) lets nobody else rename our entry */
		if ((mode & (S_IWGRP | S_IWOTH)) && !(mode & S_ISVTX))
		{
			snprintf(why, whylen, "writable by %s without the sticky bit (mode %04o)",
					 (mode & S_IWOTH) ? "others" : "its group", mode & 07777);
			return -PGWT_TF_UNSAFE;
		}
		return 0;
	}
	if (mode & S_IWOTH)
	{
		snprintf(why, whylen, "writable by others (mode %04o)", mode & 07777);
		return -PGWT_TF_UNSAFE;
	}
	if (mode & S_IWGRP)
	{
		snprintf(why, whylen, "writable by its group (mode %04o)", mode & 07777);
		return -PGWT_TF_UNSAFE;
	}
	return 0;
}

bool
tf_file_safe(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == geteuid() && st->st_nlink == 1;
}

/* ---- the directory ------------------------------------------------------- */

/* "uid N (name)" for messages. */
static void
tf_uid_text(uid_t uid, char *buf, size_t len)
{
	struct passwd pw;
	struct passwd *res = NULL;
	char		tmp[1024];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, len, "%u (%s)", (unsigned) uid, res->pw_name);
	else
		snprintf(buf, len, "%u", (unsigned) uid);
}

/* The verdict with uids named, e.g. "owned by uid 999 (postgres), ...". */
static int
tf_judge(const struct stat *st, bool ancestor, char *why, size_t whylen)
{
	int			rc = pgwt_tf_dir_verdict((uint32_t) st->st_uid, (uint32_t) st->st_mode,
										 (uint32_t) geteuid(), ancestor, why, whylen);

	if (rc < 0 && st->st_uid != 0 && st->st_uid != geteuid())
	{
		char		a[96],
					b[96];

		tf_uid_text(st->st_uid, a, sizeof(a));
		tf_uid_text(geteuid(), b, sizeof(b));
		snprintf(why, whylen, "owned by uid %s, not by root or uid %s", a, b);
	}
	return rc;
}

/* Where fd is, for a message (the path as given when /proc cannot say). */
static void
tf_fd_name(int fd, const char *fallback, char *buf, size_t len)
{
	char		link[64];
	ssize_t		n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, len - 1);
	if (n <= 0)
		snprintf(buf, len, "%s", fallback);
	else
		buf[n] = '\0';
}

/* Each directory above fd: root or ours, written by others only if sticky. */
static int
tf_check_ancestors(int fd, const char *path, char *why, size_t whylen)
{
	struct stat cur;
	int			dfd = fd;
	int			depth;
	int			rc = 0;

	if (fstat(fd, &cur) < 0)
		return -PGWT_TF_IO;
	for (depth = 0; depth < TF_MAX_ANCESTORS; depth++)
	{
		struct stat up;
		int			pfd = openat(dfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		char		reason[400];

		if (pfd < 0 || fstat(pfd, &up) < 0)
		{
			if (pfd >= 0)
				close(pfd);
			snprintf(why, whylen, "trace directory %s: cannot examine the directories above it: %s",
					 path, strerror(errno));
			rc = -PGWT_TF_IO;
			break;
		}
		if (dfd != fd)
			close(dfd);
		dfd = pfd;
		if (up.st_dev == cur.st_dev && up.st_ino == cur.st_ino)
			break;				/* the root is its own parent */
		if (tf_judge(&up, true, reason, sizeof(reason)) < 0)
		{
			char		name[1024];

			tf_fd_name(pfd, "..", name, sizeof(name));
			snprintf(why, whylen,
					 "trace directory %s: refused: the directory %s above it is %s, so another user could replace it",
					 path, name, reason);
			rc = -PGWT_TF_UNSAFE;
			break;
		}
		cur = up;
	}
	if (dfd != fd)
		close(dfd);
	return rc;
}

/*
 * The path as written: each directory it names on the way is judged like
 * an ancestor, and a link on the way must belong to root or the effective
 * user (whoever owns a link decides where it leads). The real chain above
 * the opened directory is judged separately (tf_check_ancestors).
 */
static int
tf_check_path_prefixes(const char *path, char *why, size_t whylen)
{
	char	   *buf = strdup(path);
	char	   *p;
	int			rc = 0;

	if (!buf)
		return -PGWT_TF_NOMEM;
	for (p = strchr(buf + 1, '/'); p && rc == 0; p = strchr(p + 1, '/'))
	{
		struct stat st;
		char		reason[400];

		*p = '\0';
		if (lstat(buf, &st) == 0 &&
			(S_ISLNK(st.st_mode) ? st.st_uid != 0 && st.st_uid != geteuid() :
			 S_ISDIR(st.st_mode) && tf_judge(&st, true, reason, sizeof(reason)) < 0))
		{
			if (S_ISLNK(st.st_mode))
				tf_judge(&st, false, reason, sizeof(reason));
			snprintf(why, whylen,
					 "trace directory %s: refused: %s%s on its path is %s, so another user could redirect it",
					 path, S_ISLNK(st.st_mode) ? "the link " : "the directory ", buf, reason);
			rc = -PGWT_TF_UNSAFE;
		}
		*p = '/';
	}
	free(buf);
	return rc;
}

int
pgwt_tf_safe_dir_open(const char *path, const pgwt_tf_safe_dir_opts *o,
					  int *dirfd_out, char *why, size_t whylen)
{
	char		dummy[8];
	char		reason[400];
	bool		created = false;
	int			mode = o && o->mode ? o->mode : 0750;
	struct stat st;
	int			fd;
	int			rc;

	if (!why || whylen == 0)
	{
		why = dummy;
		whylen = sizeof(dummy);
	}
	why[0] = '\0';
	if (!path || !*path || !dirfd_out)
	{
		snprintf(why, whylen, "no trace directory given");
		return -PGWT_TF_INVAL;
	}
	/* "dir/" would make the kernel follow a link named dir */
	if (path[strlen(path) - 1] == '/' && strspn(path, "/") != strlen(path))
	{
		char	   *trimmed = strdup(path);
		size_t		n;

		if (!trimmed)
			return -PGWT_TF_NOMEM;
		for (n = strlen(trimmed); n > 1 && trimmed[n - 1] == '/'; n--)
			trimmed[n - 1] = '\0';
		rc = pgwt_tf_safe_dir_open(trimmed, o, dirfd_out, why, whylen);
		free(trimmed);
		return rc;
	}
	if ((rc = tf_check_path_prefixes(path, why, whylen)) < 0)
		return rc;
	if (o && o->create)
	{
		if (mkdir(path, (mode_t) (mode & 0777)) == 0)
			created = true;
		else if (errno != EEXIST)
		{
			snprintf(why, whylen, "trace directory %s: cannot create it: %s", path, strerror(errno));
			return -PGWT_TF_IO;
		}
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
	{
		int			e = errno;

		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		{
			snprintf(why, whylen, "trace directory %s: refused: it is a symbolic link (give the directory it points to)", path);
			return -PGWT_TF_UNSAFE;
		}
		snprintf(why, whylen, "trace directory %s: %s", path,
				 e == ENOTDIR ? "not a directory" : strerror(e));
		return e == ENOENT ? -PGWT_TF_NOT_FOUND : -PGWT_TF_IO;
	}
	if (created)
	{
		/* the documented modes, whatever the umask */
		if (fchmod(fd, (mode_t) (mode & 0777)) < 0 ||
			(o->group_gid >= 0 && fchown(fd, (uid_t) -1, (gid_t) o->group_gid) < 0))
		{
			snprintf(why, whylen, "trace directory %s: cannot set its mode or group: %s", path, strerror(errno));
			close(fd);
			return -PGWT_TF_IO;
		}
	}
	if (fstat(fd, &st) < 0)
	{
		snprintf(why, whylen, "trace directory %s: %s", path, strerror(errno));
		close(fd);
		return -PGWT_TF_IO;
	}
	if (tf_judge(&st, false, reason, sizeof(reason)) < 0)
	{
		snprintf(why, whylen,
				 "trace directory %s: refused: it is %s; another user could plant links in it (make it belong to root or uid %u and chmod go-w)",
				 path, reason, (unsigned) geteuid());
		close(fd);
		return -PGWT_TF_UNSAFE;
	}
	if ((rc = tf_check_ancestors(fd, path, why, whylen)) < 0)
	{
		close(fd);
		return rc;
	}
	*dirfd_out = fd;
	return 0;
}

int
tf_open_dir_path(const char *path, int *dirfd)
{
	return pgwt_tf_safe_dir_open(path, NULL, dirfd, NULL, 0);
}

int
tf_split_path(const char *path, int *dirfd, const char **name)
{
	const char *slash;
	char	   *parent;
	int			fd;

	if (!path || !*path)
		return -PGWT_TF_INVAL;
	slash = strrchr(path, '/');
	*name = slash ? slash + 1 : path;
	if (!tf_name_ok(*name))
		return -PGWT_TF_INVAL;
	if (!slash)
		parent = strdup(".");
	else if (slash == path)
		parent = strdup("/");
	else
		parent = strndup(path, (size_t) (slash - path));
	if (!parent)
		return -PGWT_TF_NOMEM;
	/* a path API: the parent may be reached through links (and through
	 * /proc/self/fd/N, the form this library hands to itself) */
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(parent);
	if (fd < 0)
		return -PGWT_TF_IO;
	*dirfd = fd;
	return 0;
}

/* ---- files in the directory ------------------------------------------------ */

/*
 * An existing file of ours, opened by name in the checked directory: never
 * through a link (O_NOFOLLOW; a hard link fails tf_file_safe), and with
 * O_NONBLOCK, so a FIFO planted under our name cannot stall the open.
 */
static int
tf_openat_existing(int dirfd, const char *name, int access)
{
	struct stat st;
	int			fd;

	if (!tf_name_ok(name))
	{
		errno = EINVAL;
		return -1;
	}
	fd = openat(dirfd, name, access | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !tf_file_safe(&st))
	{
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int
tf_openat_read(int dirfd, const char *name)
{
	return tf_openat_existing(dirfd, name, O_RDONLY);
}

int
tf_openat_modify(int dirfd, const char *name)
{
	return tf_openat_existing(dirfd, name, O_RDWR);
}

int
tf_openat_new(int dirfd, const char *name, int flags, int mode, long gid)
{
	int			fd;

	if (!tf_name_ok(name))
	{
		errno = EINVAL;
		return -1;
	}
	/* O_EXCL never follows a link: a planted one makes this fail */
	fd = openat(dirfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	/* the documented mode, whatever the umask */
	(void) fchmod(fd, (mode_t) mode);
	if (gid >= 0)
		(void) fchown(fd, (uid_t) -1, (gid_t) gid);
	return fd;
}

int
tf_openat_replace(int dirfd, const char *name, int flags, int mode, long gid)
{
	if (!tf_name_ok(name))
	{
		errno = EINVAL;
		return -1;
	}
	/* a leftover of ours, or anything planted: the name goes, not its target */
	if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
		return -1;
	return tf_openat_new(dirfd, name, flags, mode, gid);
}

int
tf_openat_append(int dirfd, const char *name, int mode, long gid, bool create)
{
	int			attempt;

	if (!tf_name_ok(name))
	{
		errno = EINVAL;
		return -1;
	}
	for (attempt = 0; attempt < 3; attempt++)
	{
		struct stat st;
		int			fd = openat(dirfd, name,
								O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

		if (fd >= 0)
		{
			if (fstat(fd, &st) == 0 && tf_file_safe(&st))
				return fd;
			close(fd);
		}
		else if (errno == ENOENT)
		{
			if (!create)
				return -1;
			fd = tf_openat_new(dirfd, name, O_WRONLY | O_APPEND, mode, gid);
			if (fd >= 0 || errno != EEXIST)
				return fd;
			continue;			/* another appender created it meanwhile */
		}
		else if (errno != ELOOP && errno != ENXIO && errno != EISDIR)
			return -1;
		/*
		 * A link, a file that is not ours, or not a file: never written
		 * through. Its name is removed (not what it points to); a new file
		 * takes it when the caller creates one.
		 */
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return -1;
		if (!create)
		{
			errno = ENOENT;
			return -1;
		}
	}
	errno = EAGAIN;
	return -1;
}

bool
tf_entry_unsafe(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;			/* missing: nothing to judge */
	return !tf_file_safe(&st);
}

int
tf_fsync_dirfd(int dirfd)
{
	return fsync(dirfd) < 0 ? -PGWT_TF_IO : 0;
}

/* /proc/self/fd/N exists in this process (Linux with /proc mounted). */
static bool
tf_proc_fd_usable(int fd)
{
	char		p[64];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return access(p, F_OK) == 0;
}

int
tf_at_path(int dirfd, const char *dir_path, const char *name, char *buf, size_t len)
{
	int			n;

	if (!tf_name_ok(name))
		return -PGWT_TF_INVAL;
	if (dirfd >= 0 && tf_proc_fd_usable(dirfd))
		n = snprintf(buf, len, "/proc/self/fd/%d/%s", dirfd, name);
	else if (dir_path)
		n = snprintf(buf, len, "%s/%s", dir_path, name);
	else
		return -PGWT_TF_INVAL;
	return n < 0 || (size_t) n >= len ? -PGWT_TF_INVAL : 0;
}

int
tf_fd_path(int fd, const char *dir_path, const char *name, char *buf, size_t len)
{
	int			n;

	if (tf_proc_fd_usable(fd))
		n = snprintf(buf, len, "/proc/self/fd/%d", fd);
	else if (dir_path && tf_name_ok(name))
		n = snprintf(buf, len, "%s/%s", dir_path, name);
	else
		return -PGWT_TF_INVAL;
	return n < 0 || (size_t) n >= len ? -PGWT_TF_INVAL : 0;
}
