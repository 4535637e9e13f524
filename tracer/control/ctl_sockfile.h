/*
 * ctl_sockfile.h
 *		The control socket's file and the metrics listener (internal to
 *		tracer/control/): made in a directory opened once, replaced only
 *		when it is a stale socket, removed only while it is ours.
 */
#ifndef PGWT_CTL_SOCKFILE_H
#define PGWT_CTL_SOCKFILE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct ctl_sockfile
{
	int			dfd;			/* the socket's directory, -1 = none */
	char		name[64];		/* the socket's name in it */
	char		path[PATH_MAX]; /* for messages */
	dev_t		dev;			/* the socket file we made */
	ino_t		ino;
	gid_t		reader_gid;		/* (gid_t) -1: no readers' group */
} ctl_sockfile;

/*
 * Creates and binds the listening socket at path (mode 0600, or 0660 in the
 * directory's group when that group may enter it and is not root's). Returns
 * the listening fd (non-blocking, close-on-exec) or -1 with err.
 */
int			ctl_sockfile_listen(ctl_sockfile *sf, const char *path, char *err, size_t errlen);

/* The same in a directory the caller opened (and checked): dirfd is dup'ed. */
int			ctl_sockfile_listen_at(ctl_sockfile *sf, int dirfd, const char *name,
								   const char *path, char *err, size_t errlen);

/* Unlinks the socket file if it is still the one made; closes the directory. */
void		ctl_sockfile_remove(ctl_sockfile *sf);

/* The loopback TCP listener of --metrics-listen HOST:PORT; -1 with err. */
int			ctl_listen_http(const char *spec, char *err, size_t errlen);

int			ctl_nonblock(int fd);

#endif							/* PGWT_CTL_SOCKFILE_H */
