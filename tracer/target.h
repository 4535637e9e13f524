/*
 * target.h
 *		Which PostgreSQL cluster to attach to: postmaster.pid parsing and the
 *		judgement of a would-be postmaster (pure), and the /proc scans that
 *		find postmasters and their children.
 */
#ifndef PGWT_TRACER_TARGET_H
#define PGWT_TRACER_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct pgwt_pidfile
{
	int			pid;
	char		datadir[PATH_MAX];
	long long	start_time;
	int			port;
	char		sockdir[PATH_MAX];	/* first socket directory, may be "" */
	char		status[16];		/* line 8: "starting", "ready", "standby",
								 * "stopping"; "" until written */
} pgwt_pidfile;

/* Parse postmaster.pid text. 0 on success, -1 when malformed. */
extern int	pgwt_pidfile_parse(const char *text, pgwt_pidfile *out);

typedef struct pgwt_cluster
{
	int			pid;			/* postmaster */
	int			pg_major;		/* from PG_VERSION, e.g. 15 */
	int			port;
	char		exe[PATH_MAX];	/* /proc/PID/exe target */
	char		pgdata[PATH_MAX];
	char		sockdir[PATH_MAX];
	/*
	 * The postmaster accepts connections (postmaster.pid says ready or
	 * standby). Until then the file is still being written: the socket
	 * directory line, in particular, is empty until the socket exists.
	 */
	int			ready;
} pgwt_cluster;

/*
 * What /proc and the file system say about a process that may be a
 * postmaster: everything pgwt_pm_judge decides on, nothing read twice.
 */
typedef struct pgwt_pm_facts
{
	int			pid;
	char		comm[64];
	int			ppid;
	char		exe[PATH_MAX];	/* /proc/PID/exe's target, "" = unreadable */
	bool		exe_known;		/* the executable's inode was stat'ed */
	uid_t		exe_uid;
	mode_t		exe_mode;
	bool		parent_same_exe;	/* its parent runs the same binary */
	bool		ids_known;		/* /proc/PID/status Uid: line read */
	uid_t		ruid;
	uid_t		euid;
	char		user[32];		/* euid's name, "" when unknown */
	char		cwd[PATH_MAX];	/* /proc/PID/cwd's target, "" = unreadable */
	bool		dir_known;		/* the cwd's inode was stat'ed */
	uid_t		dir_uid;
	mode_t		dir_mode;
	char		dir_user[32];
	bool		pidfile_read;	/* postmaster.pid opened (no symlink) */
	bool		pidfile_regular;
	uid_t		pidfile_uid;
	bool		pidfile_parsed;
	int			pidfile_pid;
	const char *want_pgdata;	/* --pgdata as given; NULL when not asked */
	bool		want_is_cwd;	/* that directory is the process's cwd */
} pgwt_pm_facts;

typedef enum pgwt_pm_verdict
{
	PGWT_PM_OK = 0,
	PGWT_PM_NOT_POSTMASTER,		/* a backend, another program, no pidfile */
	PGWT_PM_UNTRUSTED			/* claims to be one; the facts disagree */
} pgwt_pm_verdict;

/*
 * Pure: is this a postmaster the root tracer may attach to? A process named
 * postgres, not a child of the same binary, whose cwd holds a regular
 * postmaster.pid naming it; its executable a root-owned file named
 * postgres that only root can write; real and effective uid equal, not
 * root, and the owner of both the data directory (writable by its owner
 * only) and postmaster.pid; for --pgdata, that directory is its cwd. why
 * gets one sentence naming the first fact that fails.
 */
extern pgwt_pm_verdict pgwt_pm_judge(const pgwt_pm_facts *f, char *why, size_t whylen);

/* Describe the postmaster `pid`. -1 + errbuf when it is not one. */
extern int	pgwt_cluster_from_pid(int pid, pgwt_cluster *c, char *errbuf, size_t errlen);

/* Describe the cluster whose data directory is pgdata (via postmaster.pid). */
extern int	pgwt_cluster_from_pgdata(const char *pgdata, pgwt_cluster *c,
									 char *errbuf, size_t errlen);

/*
 * Every running postmaster that passes the checks; returns how many were
 * found (up to max). A process that claims to be one (its cwd holds a
 * postmaster.pid naming it) and fails them is named on stderr with why.
 */
extern int	pgwt_cluster_discover(pgwt_cluster *out, int max);

/*
 * Read /proc/PID/stat: parent pid and comm. 0 on success, -1 when the
 * process is gone.
 */
extern int	pgwt_proc_stat(int pid, int *ppid, char *comm, size_t commlen);

/* Read a whole small file into a malloc'd NUL-terminated buffer. */
extern char *pgwt_read_text_file(const char *path, size_t *len);

#endif
