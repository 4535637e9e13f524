/*
 * target.c
 *		Find and describe the cluster to attach to.
 *
 * A postmaster is a process named "postgres" whose parent is not a
 * postgres process running the same binary, and whose cwd holds a
 * postmaster.pid naming it. The data directory comes from /proc/PID/cwd
 * (the postmaster chdirs there), the port and socket directory from
 * postmaster.pid, the major version from PG_VERSION.
 *
 * The tracer runs as root and connects to what it finds as a superuser, so
 * a process's name proves nothing: any user can run a program called
 * postgres with a crafted postmaster.pid in its cwd. The facts are gathered
 * once (target_gather: /proc, and the data directory opened through
 * /proc/PID/cwd, its files read with O_NOFOLLOW and bounded) and judged by
 * the pure pgwt_pm_judge: a root-owned executable named postgres, a process
 * whose uid owns the data directory and the pidfile, and for --pgdata the
 * process's own cwd. Auto-discovery names every process it refuses.
 */
#include "tracer/target.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/*
 * The executable's name without the " (deleted)" the kernel adds once the
 * file was replaced (a package upgrade under a running server).
 */
static void
target_exe_name(const char *exe, char *out, size_t outlen)
{
	const char *slash = strrchr(exe, '/');
	const char *name = slash ? slash + 1 : exe;
	size_t		n = strlen(name);
	static const char del[] = " (deleted)";

	if (n >= sizeof(del) - 1 && strcmp(name + n - (sizeof(del) - 1), del) == 0)
		n -= sizeof(del) - 1;
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, name, n);
	out[n] = '\0';
}

static const char *
target_who(uid_t uid, const char *name, char *buf, size_t len)
{
	if (name[0])
		snprintf(buf, len, "uid %u (%s)", (unsigned) uid, name);
	else
		snprintf(buf, len, "uid %u", (unsigned) uid);
	return buf;
}

/* The facts that show a process is no postmaster at all (not a lie). */
static bool
target_not_postmaster(const pgwt_pm_facts *f, char *why, size_t whylen)
{
	if (strcmp(f->comm, "postgres") != 0)
		snprintf(why, whylen, "pid %d is not a PostgreSQL postmaster (process name '%s')", f->pid, f->comm);
	else if (!f->exe[0])
		snprintf(why, whylen, "pid %d: cannot read its executable (are you root?)", f->pid);
	else if (f->parent_same_exe)
		snprintf(why, whylen, "pid %d is not a PostgreSQL postmaster (a child of postmaster %d)", f->pid, f->ppid);
	else if (!f->cwd[0] || !f->dir_known)
		snprintf(why, whylen, "pid %d: cannot read its working directory", f->pid);
	else if (!f->pidfile_read)
		snprintf(why, whylen, "pid %d is not a PostgreSQL postmaster (no postmaster.pid in %s)", f->pid, f->cwd);
	else if (f->pidfile_regular && (!f->pidfile_parsed || f->pidfile_pid != f->pid))
		snprintf(why, whylen, "pid %d is not a PostgreSQL postmaster (no matching %s/postmaster.pid)", f->pid, f->cwd);
	else
		return false;
	return true;
}

/* The first fact that contradicts the claim; false when none does. */
static bool
target_untrusted(const pgwt_pm_facts *f, char *why, size_t whylen)
{
	char		name[64],
				w1[80],
				w2[80];

	target_exe_name(f->exe, name, sizeof(name));
	if (!f->pidfile_regular)
		snprintf(why, whylen, "%s/postmaster.pid is not a regular file", f->cwd);
	else if (f->want_pgdata && !f->want_is_cwd)
		snprintf(why, whylen, "it runs in %s, not in --pgdata %s: the postmaster.pid there is not its own",
				 f->cwd, f->want_pgdata);
	else if (strcmp(name, "postgres") != 0)
		snprintf(why, whylen, "its executable %s is not a PostgreSQL server (not named postgres)", f->exe);
	else if (!f->exe_known || !S_ISREG(f->exe_mode))
		snprintf(why, whylen, "its executable %s cannot be examined", f->exe);
	else if (f->exe_uid != 0)
		snprintf(why, whylen,
				 "its executable %s belongs to uid %u, not root (a binary its user can replace proves nothing)",
				 f->exe, (unsigned) f->exe_uid);
	else if (f->exe_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, whylen, "its executable %s is writable by group or others (mode %04o)",
				 f->exe, (unsigned) (f->exe_mode & 07777));
	else if (!f->ids_known)
		snprintf(why, whylen, "its user ids cannot be read");
	else if (f->ruid != f->euid)
		snprintf(why, whylen, "it runs with real uid %u and effective uid %u", (unsigned) f->ruid,
				 (unsigned) f->euid);
	else if (f->euid == 0)
		snprintf(why, whylen, "it runs as root, which PostgreSQL never does");
	else if (f->dir_uid != f->euid)
		snprintf(why, whylen, "it runs as %s but its data directory %s belongs to %s",
				 target_who(f->euid, f->user, w1, sizeof(w1)), f->cwd,
				 target_who(f->dir_uid, f->dir_user, w2, sizeof(w2)));
	else if (f->dir_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, whylen, "its data directory %s is writable by group or others (mode %04o)",
				 f->cwd, (unsigned) (f->dir_mode & 07777));
	else if (f->pidfile_uid != f->dir_uid)
		snprintf(why, whylen, "%s/postmaster.pid belongs to uid %u, its data directory to %s", f->cwd,
				 (unsigned) f->pidfile_uid, target_who(f->dir_uid, f->dir_user, w2, sizeof(w2)));
	else
		return false;
	return true;
}

pgwt_pm_verdict
pgwt_pm_judge(const pgwt_pm_facts *f, char *why, size_t whylen)
{
	char		reason[PATH_MAX * 2 + 128];

	if (target_not_postmaster(f, why, whylen))
		return PGWT_PM_NOT_POSTMASTER;
	if (target_untrusted(f, reason, sizeof(reason)))
	{
		snprintf(why, whylen, "pid %d is not trusted as a PostgreSQL postmaster: %s", f->pid, reason);
		return PGWT_PM_UNTRUSTED;
	}
	return PGWT_PM_OK;
}

/* postmaster.pid and PG_VERSION are a few lines: anything longer is refused. */
#define TARGET_SMALL_FILE 8192

/*
 * Read the small file name in the directory dfd: never through a symlink,
 * never blocking on a FIFO, only a regular file. 0, or -1 (*st_ok says
 * whether it was there to stat: ELOOP counts, as a symlink is there).
 */
static int
target_read_small(int dfd, const char *name, char *buf, size_t cap, struct stat *st, bool *st_ok)
{
	int			fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	size_t		len = 0;

	*st_ok = false;
	memset(st, 0, sizeof(*st));
	if (fd < 0)
	{
		*st_ok = errno == ELOOP;
		return -1;
	}
	*st_ok = fstat(fd, st) == 0;
	if (!*st_ok || !S_ISREG(st->st_mode))
	{
		close(fd);
		return -1;
	}
	while (len + 1 < cap)
	{
		ssize_t		r = read(fd, buf + len, cap - 1 - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t) r;
	}
	close(fd);
	buf[len] = '\0';
	return len + 1 >= cap ? -1 : 0;
}

static void
target_user(uid_t uid, char *out, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	snprintf(out, len, "%s", pw && strlen(pw->pw_name) < len ? pw->pw_name : "");
}

/* Real and effective uid from /proc/PID/status. */
static bool
target_ids(int pid, uid_t *ruid, uid_t *euid)
{
	char		path[64],
				buf[4096];
	int			fd;
	ssize_t		n;
	const char *u;
	unsigned	r,
				e;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	u = strstr(buf, "\nUid:");
	if (!u || sscanf(u + 5, "%u %u", &r, &e) != 2)
		return false;
	*ruid = (uid_t) r;
	*euid = (uid_t) e;
	return true;
}

/*
 * Gather the facts about pid (and its postmaster.pid into pf). Returns the
 * descriptor of its working directory (the caller closes it), -1 when there
 * is none, -2 when the process does not exist.
 */
static int
target_gather(int pid, const char *want, const struct stat *want_st, pgwt_pm_facts *f, pgwt_pidfile *pf)
{
	char		path[64],
				pexe[PATH_MAX],
				text[TARGET_SMALL_FILE];
	struct stat st;
	int			dfd;

	memset(f, 0, sizeof(*f));
	memset(pf, 0, sizeof(*pf));
	f->pid = pid;
	f->want_pgdata = want;
	if (pgwt_proc_stat(pid, &f->ppid, f->comm, sizeof(f->comm)) != 0)
		return -2;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (target_readlink(path, f->exe, sizeof(f->exe)) != 0)
		f->exe[0] = '\0';
	if (stat(path, &st) == 0)	/* the running binary's inode, even if replaced */
	{
		f->exe_known = true;
		f->exe_uid = st.st_uid;
		f->exe_mode = st.st_mode;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", f->ppid);
	f->parent_same_exe = f->exe[0] && target_readlink(path, pexe, sizeof(pexe)) == 0 &&
		strcmp(pexe, f->exe) == 0;
	if (f->parent_same_exe || strcmp(f->comm, "postgres") != 0)
		return -1;				/* judged by now: a backend, or no postgres */
	f->ids_known = target_ids(pid, &f->ruid, &f->euid);
	if (f->ids_known)
		target_user(f->euid, f->user, sizeof(f->user));
	snprintf(path, sizeof(path), "/proc/%d/cwd", pid);
	if (target_readlink(path, f->cwd, sizeof(f->cwd)) != 0)
		f->cwd[0] = '\0';
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) != 0)
	{
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	f->dir_known = true;
	f->dir_uid = st.st_uid;
	f->dir_mode = st.st_mode;
	target_user(st.st_uid, f->dir_user, sizeof(f->dir_user));
	f->want_is_cwd = want_st && want_st->st_dev == st.st_dev && want_st->st_ino == st.st_ino;
	if (target_read_small(dfd, "postmaster.pid", text, sizeof(text), &st, &f->pidfile_read) == 0)
		f->pidfile_parsed = pgwt_pidfile_parse(text, pf) == 0;
	f->pidfile_regular = f->pidfile_read && S_ISREG(st.st_mode);
	f->pidfile_uid = st.st_uid;
	f->pidfile_pid = f->pidfile_parsed ? pf->pid : 0;
	return dfd;
}

/* Check pid (for --pgdata: against that directory) and describe it. */
static int
target_describe(int pid, const char *want, const struct stat *want_st, pgwt_cluster *c,
				pgwt_pm_verdict *verdict, char *errbuf, size_t errlen)
{
	pgwt_pm_facts f;
	pgwt_pidfile pf;
	char		text[TARGET_SMALL_FILE];
	struct stat st;
	bool		st_ok;
	long long	major;
	int			dfd = target_gather(pid, want, want_st, &f, &pf);

	memset(c, 0, sizeof(*c));
	c->pid = pid;
	*verdict = PGWT_PM_NOT_POSTMASTER;
	if (dfd == -2)
	{
		snprintf(errbuf, errlen, "pid %d: no such process", pid);
		return -1;
	}
	*verdict = pgwt_pm_judge(&f, errbuf, errlen);
	if (*verdict != PGWT_PM_OK)
	{
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	snprintf(c->exe, sizeof(c->exe), "%s", f.exe);
	snprintf(c->pgdata, sizeof(c->pgdata), "%s", f.cwd);
	c->port = pf.port;
	snprintf(c->sockdir, sizeof(c->sockdir), "%s", pf.sockdir);
	c->ready = strcmp(pf.status, "ready") == 0 || strcmp(pf.status, "standby") == 0;
	if (target_read_small(dfd, "PG_VERSION", text, sizeof(text), &st, &st_ok) != 0 ||
		target_parse_int(text, 9, 99, &major) != 0)
	{
		close(dfd);
		snprintf(errbuf, errlen, "%s/PG_VERSION: cannot read the server version", c->pgdata);
		return -1;
	}
	close(dfd);
	c->pg_major = (int) major;
	return 0;
}

int
pgwt_cluster_from_pid(int pid, pgwt_cluster *c, char *errbuf, size_t errlen)
{
	pgwt_pm_verdict v;

	return target_describe(pid, NULL, NULL, c, &v, errbuf, errlen);
}

int
pgwt_cluster_from_pgdata(const char *pgdata, pgwt_cluster *c,
						 char *errbuf, size_t errlen)
{
	char		text[TARGET_SMALL_FILE];
	struct stat dst,
				st;
	bool		st_ok;
	pgwt_pidfile pf;
	pgwt_pm_verdict v;
	int			dfd = open(pgdata, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int			rc;

	if (dfd < 0 || fstat(dfd, &dst) != 0)
	{
		snprintf(errbuf, errlen, "%s: %s (is it a data directory?)", pgdata, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	rc = target_read_small(dfd, "postmaster.pid", text, sizeof(text), &st, &st_ok);
	close(dfd);
	if (rc != 0)
	{
		if (st_ok && !S_ISREG(st.st_mode))
			snprintf(errbuf, errlen, "%s/postmaster.pid is not a regular file", pgdata);
		else if (st_ok)
			snprintf(errbuf, errlen, "%s/postmaster.pid: too long", pgdata);
		else
			snprintf(errbuf, errlen, "%s/postmaster.pid: cannot read (is the cluster running?)", pgdata);
		return -1;
	}
	if (pgwt_pidfile_parse(text, &pf) != 0)
	{
		snprintf(errbuf, errlen, "%s/postmaster.pid: malformed", pgdata);
		return -1;
	}
	return target_describe(pf.pid, pgdata, &dst, c, &v, errbuf, errlen);
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
					err[PATH_MAX * 2 + 256];
		int			pid,
					ppid;
		pgwt_pm_verdict v;

		if (!isdigit((unsigned char) de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (pgwt_proc_stat(pid, &ppid, comm, sizeof(comm)) != 0 ||
			strcmp(comm, "postgres") != 0)
			continue;
		if (target_describe(pid, NULL, NULL, &out[n], &v, err, sizeof(err)) == 0)
			n++;
		else if (v == PGWT_PM_UNTRUSTED)
			fprintf(stderr, "pg_wait_tracer: not attaching: %s\n", err);
	}
	closedir(d);
	return n;
}
