/*
 * target.h
 *		Which PostgreSQL cluster to attach to: postmaster.pid parsing (pure)
 *		and the /proc scans that find postmasters and their children.
 */
#ifndef PGWT_TRACER_TARGET_H
#define PGWT_TRACER_TARGET_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

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

/* Describe the postmaster `pid`. -1 + errbuf when it is not one. */
extern int	pgwt_cluster_from_pid(int pid, pgwt_cluster *c, char *errbuf, size_t errlen);

/* Describe the cluster whose data directory is pgdata (via postmaster.pid). */
extern int	pgwt_cluster_from_pgdata(const char *pgdata, pgwt_cluster *c,
									 char *errbuf, size_t errlen);

/* Every running postmaster; returns how many were found (up to max). */
extern int	pgwt_cluster_discover(pgwt_cluster *out, int max);

/*
 * Read /proc/PID/stat: parent pid and comm. 0 on success, -1 when the
 * process is gone.
 */
extern int	pgwt_proc_stat(int pid, int *ppid, char *comm, size_t commlen);

/* Read a whole small file into a malloc'd NUL-terminated buffer. */
extern char *pgwt_read_text_file(const char *path, size_t *len);

#endif
