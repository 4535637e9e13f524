/*
 * target.c
 *		Find and describe the cluster to attach to.
 *
 * A postmaster is a process named "postgres" whose parent is not a
 * postgres process running the same binary, and whose cwd holds a
 * postmaster.pid naming it. The data directory comes from /proc/PID/cwd
 * (the postmaster chdirs there), the port and socket directory from
 * postmaster.pid, the major version from PG_VERSION.
 */
#include "tracer/target.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *
pgwt_read_text_file(const char *path, size_t *len)
{
	int			fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t		cap = 4096,
				n = 0;
	char	   *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	if (!buf)
	{
		close(fd);
		return NULL;
	}
	for (;;)
	{
		ssize_t		r;

		if (n + 1 >= cap)
		{
			char	   *nb = realloc(buf, cap * 2);

			if (!nb)
			{
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
		{
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t) r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Copy line number `want` (0-based) of text into out; -1 when missing. */
static int
target_line(const char *text, int want, char *out, size_t outlen)
{
	const char *p = text;
	size_t		n;

	for (int i = 0; i < want; i++)
	{
		p = strchr(p, '\n');
		if (!p)
			return -1;
		p++;
	}
	n = strcspn(p, "\n");
	if (n >= outlen)
		return -1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

static int
target_parse_int(const char *s, long long lo, long long hi, long long *out)
{
	char	   *end;
	long long	v;

	while (isspace((unsigned char) *s))
		s++;
	if (!*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	while (isspace((unsigned char) *end))
		end++;
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int
pgwt_pidfile_parse(const char *text, pgwt_pidfile *out)
{
	char		line[PATH_MAX];
	long long	v;

	memset(out, 0, sizeof(*out));
	/* line 1: pid (negative in a standalone backend: not a postmaster) */
	if (target_line(text, 0, line, sizeof(line)) || target_parse_int(line, 1, INT_MAX, &v))
		return -1;
	out->pid = (int) v;
	if (target_line(text, 1, out->datadir, sizeof(out->datadir)) || out->datadir[0] != '/')
		return -1;
	if (target_line(text, 2, line, sizeof(line)) || target_parse_int(line, 0, INT64_MAX, &v))
		return -1;
	out->start_time = v;
	if (target_line(text, 3, line, sizeof(line)) || target_parse_int(line, 1, 65535, &v))
		return -1;
	out->port = (int) v;
	/* socket directory line may be empty (no Unix sockets) or absent */
	if (target_line(text, 4, out->sockdir, sizeof(out->sockdir)))
		out->sockdir[0] = '\0';
	/* status, padded with blanks so it can be rewritten in place */
	if (target_line(text, 7, out->status, sizeof(out->status)))
		out->status[0] = '\0';
	for (size_t n = strlen(out->status); n > 0 && out->status[n - 1] == ' '; n--)
		out->status[n - 1] = '\0';
	return 0;
}

int
pgwt_proc_stat(int pid, int *ppid, char *comm, size_t commlen)
{
	char		path[64],
				buf[512];
	int			fd;
	ssize_t		n;
	char	   *lp,
			   *rp;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* comm is in parentheses and may itself contain ')' : use the last one */
	lp = strchr(buf, '(');
	rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp || rp[1] != ' ')
		return -1;
	if (comm && commlen)
	{
		size_t		cl = (size_t) (rp - lp - 1);

		if (cl >= commlen)
			cl = commlen - 1;
		memcpy(comm, lp + 1, cl);
		comm[cl] = '\0';
	}
	/* after ") " come state and ppid */
	if (sscanf(rp + 2, "%*c %d", ppid) != 1)
		return -1;
	return 0;
}

static int
target_readlink(const char *path, char *out, size_t outlen)
{
	ssize_t		n = readlink(path, out, outlen - 1);

	if (n < 0 || (size_t) n >= outlen - 1)
		return -1;
	out[n] = '\0';
	return 0;
}

int
pgwt_cluster_from_pid(int pid, pgwt_cluster *c, char *errbuf, size_t errlen)
{
	char		path[PATH_MAX + 32],
				comm[64],
				pexe[PATH_MAX];
	int			ppid;
	char	   *text;
	pgwt_pidfile pf;
	long long	major;

	memset(c, 0, sizeof(*c));
	c->pid = pid;
	if (pgwt_proc_stat(pid, &ppid, comm, sizeof(comm)) != 0)
	{
		snprintf(errbuf, errlen, "pid %d: no such process", pid);
		return -1;
	}
	if (strcmp(comm, "postgres") != 0)
	{
		snprintf(errbuf, errlen, "pid %d is not a PostgreSQL postmaster (process name '%s')", pid, comm);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (target_readlink(path, c->exe, sizeof(c->exe)) != 0)
	{
		snprintf(errbuf, errlen, "pid %d: cannot read its executable (are you root?)", pid);
		return -1;
	}
	/* A child of a postgres process running the same binary is a backend. */
	snprintf(path, sizeof(path), "/proc/%d/exe", ppid);
	if (target_readlink(path, pexe, sizeof(pexe)) == 0 && strcmp(pexe, c->exe) == 0)
	{
		snprintf(errbuf, errlen, "pid %d is not a PostgreSQL postmaster (a child of postmaster %d)", pid, ppid);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/cwd", pid);
	if (target_readlink(path, c->pgdata, sizeof(c->pgdata)) != 0)
	{
		snprintf(errbuf, errlen, "pid %d: cannot read its working directory", pid);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/postmaster.pid", c->pgdata);
	text = pgwt_read_text_file(path, NULL);
	if (!text || pgwt_pidfile_parse(text, &pf) != 0 || pf.pid != pid)
	{
		free(text);
		snprintf(errbuf, errlen, "pid %d is not a PostgreSQL postmaster (no matching %s)", pid, path);
		return -1;
	}
	free(text);
	c->port = pf.port;
	snprintf(c->sockdir, sizeof(c->sockdir), "%s", pf.sockdir);
	c->ready = strcmp(pf.status, "ready") == 0 || strcmp(pf.status, "standby") == 0;
	snprintf(path, sizeof(path), "%s/PG_VERSION", c->pgdata);
	text = pgwt_read_text_file(path, NULL);
	if (!text || target_parse_int(text, 9, 99, &major) != 0)
	{
		free(text);
		snprintf(errbuf, errlen, "%s: cannot read the server version", path);
		return -1;
	}
	free(text);
	c->pg_major = (int) major;
	return 0;
}

int
pgwt_cluster_from_pgdata(const char *pgdata, pgwt_cluster *c,
						 char *errbuf, size_t errlen)
{
	char		path[PATH_MAX + 32];
	char	   *text;
	pgwt_pidfile pf;

	snprintf(path, sizeof(path), "%s/postmaster.pid", pgdata);
	text = pgwt_read_text_file(path, NULL);
	if (!text)
	{
		snprintf(errbuf, errlen, "%s: cannot read (is the cluster running?)", path);
		return -1;
	}
	if (pgwt_pidfile_parse(text, &pf) != 0)
	{
		free(text);
		snprintf(errbuf, errlen, "%s: malformed", path);
		return -1;
	}
	free(text);
	return pgwt_cluster_from_pid(pf.pid, c, errbuf, errlen);
}

int
pgwt_cluster_discover(pgwt_cluster *out, int max)
{
	DIR		   *d = opendir("/proc");
	struct dirent *de;
	int			n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL && n < max)
	{
		char		comm[64],
					err[256];
		int			pid,
					ppid;

		if (!isdigit((unsigned char) de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (pgwt_proc_stat(pid, &ppid, comm, sizeof(comm)) != 0 ||
			strcmp(comm, "postgres") != 0)
			continue;
		if (pgwt_cluster_from_pid(pid, &out[n], err, sizeof(err)) == 0)
			n++;
	}
	closedir(d);
	return n;
}
