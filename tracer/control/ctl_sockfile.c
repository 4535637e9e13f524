/*
 * ctl_sockfile.c
 *		The control socket's file and the metrics listener (ctl_sockfile.h).
 *
 * The trace directory is opened once; the socket's name is checked, bound
 * and removed relative to that descriptor (bind goes through
 * /proc/self/fd/N/NAME, which resolves to the opened directory itself), so
 * a symlink planted at the name or a directory swapped in the path is never
 * followed. An existing entry is replaced only when it is a socket no one
 * listens on any more; the mode comes from the umask at bind, so there is
 * no chmod by name. At exit the name is unlinked only while it is still the
 * socket made here (same device and inode).
 */
#include "ctl_sockfile.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int
ctl_nonblock(int fd)
{
	int			fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int
ctl_listen_http(const char *spec, char *err, size_t errlen)
{
	char		host[64];
	const char *colon = strrchr(spec, ':');
	long		port;
	char	   *end;
	int			fd,
				one = 1;
	struct sockaddr_storage ss;
	socklen_t	sl;

	if (!colon || (size_t) (colon - spec) >= sizeof(host))
	{
		snprintf(err, errlen, "--metrics-listen wants HOST:PORT, e.g. 127.0.0.1:9187");
		return -1;
	}
	memcpy(host, spec, (size_t) (colon - spec));
	host[colon - spec] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || port < 1 || port > 65535)
	{
		snprintf(err, errlen, "--metrics-listen: bad port \"%s\"", colon + 1);
		return -1;
	}
	memset(&ss, 0, sizeof(ss));
	if (host[0] == '[' && host[strlen(host) - 1] == ']')
	{
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *) &ss;

		host[strlen(host) - 1] = '\0';
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t) port);
		if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1 ||
			!IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr))
		{
			snprintf(err, errlen, "--metrics-listen: %s is not a loopback address", host + 1);
			return -1;
		}
		sl = sizeof(*s6);
	}
	else
	{
		struct sockaddr_in *s4 = (struct sockaddr_in *) &ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t) port);
		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1 ||
			(ntohl(s4->sin_addr.s_addr) >> 24) != 127)
		{
			snprintf(err, errlen, "--metrics-listen: %s is not a loopback address (127.0.0.0/8 or [::1])",
					 host);
			return -1;
		}
		sl = sizeof(*s4);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
	{
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *) &ss, sl) != 0 || listen(fd, 64) != 0 || ctl_nonblock(fd) != 0)
	{
		snprintf(err, errlen, "cannot listen on %s: %s", spec, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}


/* The address of name in the opened directory; -1 when it does not fit. */
static int
sf_addr(const ctl_sockfile *sf, const char *fallback, struct sockaddr_un *sa)
{
	int			n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (access("/proc/self/fd", X_OK) == 0)
		n = snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s", sf->dfd, sf->name);
	else
		n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", fallback);	/* no /proc */
	return n < 0 || (size_t) n >= sizeof(sa->sun_path) ? -1 : 0;
}

/* 1 when a server accepts on the socket at sa, 0 when none does. */
static int
sf_live(const struct sockaddr_un *sa)
{
	int			fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int			live;

	if (fd < 0)
		return 0;
	/* non-blocking: a full backlog (EAGAIN) is a live server too */
	live = connect(fd, (const struct sockaddr *) sa, sizeof(*sa)) == 0 || errno == EAGAIN;
	close(fd);
	return live;
}

/* Split path into the directory to open and the socket's name. */
static int
sf_split(ctl_sockfile *sf, const char *path, char *dir, size_t dirlen, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;

	if (strlen(path) >= sizeof(sf->path) || !*name || strlen(name) >= sizeof(sf->name) ||
		strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
	{
		snprintf(err, errlen, "bad control socket path: %s", path);
		return -1;
	}
	snprintf(sf->path, sizeof(sf->path), "%s", path);
	snprintf(sf->name, sizeof(sf->name), "%s", name);
	if (!slash)
		snprintf(dir, dirlen, ".");
	else if (slash == path)
		snprintf(dir, dirlen, "/");
	else
		snprintf(dir, dirlen, "%.*s", (int) (slash - path), path);
	return 0;
}

/* Make room for the socket: nothing there, or a stale socket removed. */
static int
sf_clear(ctl_sockfile *sf, const struct sockaddr_un *sa, char *err, size_t errlen)
{
	struct stat st;

	if (fstatat(sf->dfd, sf->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
	{
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "control socket %s: %s", sf->path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode))
	{
		snprintf(err, errlen, "%s exists and is not a socket; refusing to replace it", sf->path);
		return -1;
	}
	if (sf_live(sa))
	{
		snprintf(err, errlen, "%s: another process serves this control socket (a daemon already records into this directory?)",
				 sf->path);
		return -1;
	}
	/* unlinkat never follows: at worst it removes whatever entry is there now */
	if (unlinkat(sf->dfd, sf->name, 0) != 0 && errno != ENOENT)
	{
		snprintf(err, errlen, "cannot remove the stale socket %s: %s", sf->path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Bind with the mode set by the umask: no moment with a wider mode. */
static int
sf_bind(ctl_sockfile *sf, int fd, const struct sockaddr_un *sa, char *err, size_t errlen)
{
	mode_t		old = umask(sf->reader_gid != (gid_t) -1 ? 0117 : 0177);
	int			rc = bind(fd, (const struct sockaddr *) sa, sizeof(*sa));
	int			e = errno;
	struct stat st;

	umask(old);
	if (rc != 0)
	{
		snprintf(err, errlen, "cannot create control socket %s: %s", sf->path, strerror(e));
		return -1;
	}
	if (fstatat(sf->dfd, sf->name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(st.st_mode) ||
		st.st_uid != geteuid())
	{
		snprintf(err, errlen, "control socket %s: replaced while it was being made", sf->path);
		return -1;
	}
	sf->dev = st.st_dev;
	sf->ino = st.st_ino;
	if (sf->reader_gid != (gid_t) -1 &&
		fchownat(sf->dfd, sf->name, (uid_t) -1, sf->reader_gid, AT_SYMLINK_NOFOLLOW) != 0)
	{
		snprintf(err, errlen, "control socket %s: cannot give it to group %u: %s", sf->path,
				 (unsigned) sf->reader_gid, strerror(errno));
		return -1;
	}
	return 0;
}

/* Bind and listen at sf->name in the directory sf->dfd (already open). */
static int
sf_listen(ctl_sockfile *sf, char *err, size_t errlen)
{
	struct stat st;
	struct sockaddr_un sa;
	int			fd;

	if (fstat(sf->dfd, &st) != 0 || !S_ISDIR(st.st_mode))
	{
		snprintf(err, errlen, "control socket %s: its directory cannot be examined", sf->path);
		return -1;
	}
	/* the group that may enter the trace directory reads the files: it may read status too */
	if (st.st_gid != 0 && (st.st_mode & S_IXGRP))
		sf->reader_gid = st.st_gid;
	if (sf_addr(sf, sf->path, &sa) != 0)
	{
		snprintf(err, errlen, "control socket path too long: %s", sf->path);
		return -1;
	}
	if (sf_clear(sf, &sa, err, errlen) != 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
	{
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (sf_bind(sf, fd, &sa, err, errlen) != 0)
	{
		close(fd);
		return -1;
	}
	if (listen(fd, 16) != 0 || ctl_nonblock(fd) != 0)
	{
		snprintf(err, errlen, "cannot listen on %s: %s", sf->path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int
ctl_sockfile_listen(ctl_sockfile *sf, const char *path, char *err, size_t errlen)
{
	char		dir[PATH_MAX];

	sf->dfd = -1;
	sf->reader_gid = (gid_t) -1;
	if (sf_split(sf, path, dir, sizeof(dir), err, errlen) != 0)
		return -1;
	sf->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sf->dfd < 0)
	{
		snprintf(err, errlen, "control socket directory %s: %s", dir, strerror(errno));
		return -1;
	}
	return sf_listen(sf, err, errlen);
}

int
ctl_sockfile_listen_at(ctl_sockfile *sf, int dirfd, const char *name, const char *path,
					   char *err, size_t errlen)
{
	sf->dfd = -1;
	sf->reader_gid = (gid_t) -1;
	if (strlen(name) >= sizeof(sf->name) || !*name || strchr(name, '/') ||
		strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
	{
		snprintf(err, errlen, "bad control socket name: %s", name);
		return -1;
	}
	snprintf(sf->name, sizeof(sf->name), "%s", name);
	snprintf(sf->path, sizeof(sf->path), "%s", path);
	sf->dfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (sf->dfd < 0)
	{
		snprintf(err, errlen, "control socket %s: %s", path, strerror(errno));
		return -1;
	}
	return sf_listen(sf, err, errlen);
}

void
ctl_sockfile_remove(ctl_sockfile *sf)
{
	struct stat st;

	if (sf->dfd < 0)
		return;
	if (sf->ino != 0 && fstatat(sf->dfd, sf->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		S_ISSOCK(st.st_mode) && st.st_dev == sf->dev && st.st_ino == sf->ino)
		unlinkat(sf->dfd, sf->name, 0);
	close(sf->dfd);
	sf->dfd = -1;
	sf->ino = 0;
}
