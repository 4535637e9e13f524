/*
 * recorder.c
 *		Trace recording: SAMPLES and TRANSITIONS blocks into the trace directory through
 *		tracefmt, plus the side files (backends, normalized query texts
 *		unless --query-text none, names of the wait events that occurred).
 *
 * The directory is opened and checked once (tracefmt/safe_dir.c: root's
 * daemon refuses a directory another user could plant links in); every
 * file goes through its descriptor. What the database shows is bounded:
 * a query id's text is written once per trace file (a fixed-size set of
 * the ids written, tracefmt/side_bounds.c), and each side file has a byte
 * bound (an eighth of --retention-gb) that an append cannot pass.
 *
 * Blocks are flushed about once a second, so a killed daemon loses at most
 * that much; the next start recovers the leftover live file (tracefmt).
 * Single-threaded: owned by the daemon loop.
 */
#include "tracer/recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefmt/tracefmt.h"

#define REC_FLUSH_NS		1000000000ull
#define REC_RETENTION_NS	60000000000ull
#define REC_MAX_EVENTS		4096
#define REC_KNOWN_SLOTS		64		/* a power of two */

struct pgwt_recorder
{
	char	   *dir;
	pgwt_tf_dir_opts dopts;
	pgwt_tf_dir_writer *w;
	int			dirfd;			/* the writer's (checked) directory */
	pgwt_tf_file_opts side;		/* side files: mode, group, bound */
	bool		no_query_text;	/* --query-text none */
	bool		seed_format;	/* --seed-format (docs/TRACE_FORMAT.md 7.2) */
	pgwt_self_metrics *metrics;
	uint64_t	last_flush_ns;
	uint64_t	last_retention_ns;
	const pgwt_names *names;
	uint32_t	events[REC_MAX_EVENTS];	/* distinct ids seen, unsorted */
	unsigned	nevents;
	/*
	 * Ids known to be in events[], direct-mapped (id + 1; 0 = empty): a
	 * tick's samples repeat a few ids, so nearly every one is found here
	 * without walking the list.
	 */
	uint32_t	events_known[REC_KNOWN_SLOTS];
	unsigned	events_written;
	pgwt_tf_query_seen *queries;	/* ids whose text this file has */
	uint64_t	queries_file;	/* files_started when the set was begun */
	uint64_t	full_warned;	/* files_started when a bound was last reported */
};

const char *
pgwt_recorder_error(int rc)
{
	return pgwt_tf_strerror(rc);
}

int
pgwt_recorder_open(const char *dir, const pgwt_recorder_opts *opts,
				   pgwt_recorder **out, char *errbuf, size_t errlen)
{
	pgwt_recorder *r;
	pgwt_tf_safe_dir_opts so;
	long		gid = -1;
	int			dirfd;
	int			rc;

	if (opts->group)
	{
		struct group *g = getgrnam(opts->group);

		if (!g)
		{
			snprintf(errbuf, errlen, "--trace-group: no group named '%s'", opts->group);
			return -1;
		}
		gid = (long) g->gr_gid;
	}
	else
	{
		struct group *g = getgrnam("dba");

		if (g)
			gid = (long) g->gr_gid;
	}
	/* a new directory: 0750, the group that may read the files may list it */
	memset(&so, 0, sizeof(so));
	so.create = true;
	so.mode = 0750;
	so.group_gid = gid;
	if (pgwt_tf_safe_dir_open(dir, &so, &dirfd, errbuf, errlen) < 0)
		return -1;

	r = calloc(1, sizeof(*r));
	if (!r || !(r->dir = strdup(dir)) || !(r->queries = calloc(1, sizeof(*r->queries))))
	{
		if (r)
			free(r->dir);
		free(r);
		close(dirfd);
		snprintf(errbuf, errlen, "out of memory");
		return -1;
	}
	r->metrics = opts->metrics;
	r->no_query_text = opts->no_query_text;
	r->dopts.file.pg_version = opts->pg_version;
	r->dopts.file.write_meta = true;
	r->dopts.file.seed_layout = opts->seed_format;
	r->seed_format = opts->seed_format;
	r->dopts.file.group_gid = gid;
	r->dopts.retention_hours = opts->retention_hours;
	r->dopts.retention_bytes = (uint64_t) (opts->retention_gb * 1073741824.0);
	rc = pgwt_tf_dir_open_fd(dirfd, dir, &r->dopts, &r->w);
	close(dirfd);
	if (rc < 0)
	{
		snprintf(errbuf, errlen, "trace directory %s: %s", dir, pgwt_tf_strerror(rc));
		free(r->queries);
		free(r->dir);
		free(r);
		return -1;
	}
	r->dirfd = pgwt_tf_dir_writer_fd(r->w);
	r->side = pgwt_tf_dir_side_opts(r->w);
	if (opts->sample_period_ns)
		pgwt_tf_dir_set_sample_period(r->w, opts->sample_period_ns);
	*out = r;
	return 0;
}

int
pgwt_recorder_dirfd(const pgwt_recorder *r)
{
	return r->dirfd;
}

const pgwt_tf_file_opts *
pgwt_recorder_side_opts(const pgwt_recorder *r)
{
	return &r->side;
}

int
pgwt_recorder_append(pgwt_recorder *r, const pgwt_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		int			rc = pgwt_tf_dir_append(r->w, &recs[i]);

		if (rc < 0)
			return rc;
	}
	if (r->metrics)
		r->metrics->trace_records_written_total += n;
	return 0;
}

void
pgwt_recorder_set_names(pgwt_recorder *r, const pgwt_names *names)
{
	r->names = names;
}

void
pgwt_recorder_note_events(pgwt_recorder *r, const pgwt_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		/* a transition names two events; markers and exits name none */
		uint32_t	evs[2] = {recs[i].new_event, recs[i].old_event};
		int			nev = recs[i].kind == PGWT_REC_SAMPLE ? 1 : 2;

		if (recs[i].kind == PGWT_REC_TRANSITION && PGWT_IS_MARKER(recs[i].new_event))
			continue;
		for (int j = 0; j < nev; j++)
		{
			uint32_t	ev = evs[j];
			uint32_t   *known = &r->events_known[(ev * 2654435761u) >> 26];
			unsigned	k;

			if (ev == PGWT_EVENT_EXIT || *known == ev + 1)
				continue;
			for (k = 0; k < r->nevents; k++)
				if (r->events[k] == ev)
					break;
			if (k == r->nevents && r->nevents < REC_MAX_EVENTS)
				r->events[r->nevents++] = ev;
			if (k < r->nevents)
				*known = ev + 1;
		}
	}
}

/* Rewrite events.tsv when new ids appeared since the last write. */
static int
rec_write_events(pgwt_recorder *r)
{
	pgwt_tf_event_name *tab;
	char	   *names;
	unsigned	n = 0;
	int			rc;

	if (r->nevents == r->events_written || !r->names)
		return 0;
	tab = calloc(r->nevents, sizeof(*tab));
	names = calloc(r->nevents, PGWT_EVENT_NAME_MAX);
	if (!tab || !names)
	{
		free(tab);
		free(names);
		return PGWT_TF_NOMEM;
	}
	for (unsigned i = 0; i < r->nevents; i++)
	{
		uint32_t	id = r->events[i];
		const char *ev = pgwt_names_lookup(r->names, id);
		const char *cls = pgwt_class_name(pgwt_event_class(id));
		char	   *slot = names + (size_t) i * PGWT_EVENT_NAME_MAX;

		if (id == 0 || !ev || !cls)
			continue;			/* CPU* and unnamed ids need no entry */
		snprintf(slot, PGWT_EVENT_NAME_MAX, "%s", ev);
		tab[n].id = id;
		tab[n].class_name = cls;
		tab[n].name = slot;
		n++;
	}
	rc = pgwt_tf_events_write_at(r->dirfd, &r->side, r->dopts.file.pg_version, tab, n);
	free(tab);
	free(names);
	if (rc >= 0)
		r->events_written = r->nevents;
	return rc;
}

static void
rec_account_bytes(pgwt_recorder *r)
{
	struct stat st;

	if (!r->metrics)
		return;
	if (fstatat(r->dirfd, PGWT_TF_CURRENT_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0)
		r->metrics->trace_bytes_written_total = r->metrics->trace_bytes_archived + (uint64_t) st.st_size;
}

int
pgwt_recorder_periodic(pgwt_recorder *r, uint64_t now_ns)
{
	int			rc = 0;

	if (now_ns - r->last_flush_ns >= REC_FLUSH_NS)
	{
		uint64_t	before_rot = pgwt_tf_dir_writer_stats(r->w)->rotations;

		if (r->metrics)
		{
			struct stat st;

			/* remember the live file's size in case the flush rotates it */
			if (fstatat(r->dirfd, PGWT_TF_CURRENT_NAME, &st, AT_SYMLINK_NOFOLLOW) != 0)
				st.st_size = 0;
			rc = pgwt_tf_dir_flush(r->w);
			if (pgwt_tf_dir_writer_stats(r->w)->rotations != before_rot)
				r->metrics->trace_bytes_archived += (uint64_t) st.st_size;
		}
		else
			rc = pgwt_tf_dir_flush(r->w);
		if (rc >= 0)
			rc = rec_write_events(r);
		if (rc >= 0 && r->seed_format &&
			pgwt_tf_dir_writer_stats(r->w)->rotations != before_rot)
			rc = pgwt_tf_seed_sidefiles_write(r->dir);
		rec_account_bytes(r);
		r->last_flush_ns = now_ns;
	}
	if (rc >= 0 && now_ns - r->last_retention_ns >= REC_RETENTION_NS)
	{
		rc = pgwt_tf_dir_apply_retention(r->w);
		if (rc >= 0 && r->seed_format)
			rc = pgwt_tf_seed_sidefiles_write(r->dir);
		r->last_retention_ns = now_ns;
	}
	return rc < 0 ? rc : 0;
}

/* A side file reached its bound: said once per trace file. */
static void
rec_note_full(pgwt_recorder *r, const char *name)
{
	uint64_t	file = pgwt_tf_dir_writer_stats(r->w)->files_started;

	if (r->full_warned == file)
		return;
	r->full_warned = file;
	fprintf(stderr, "pg_wait_tracer: %s/%s reached its size bound (%llu bytes): new lines are dropped until retention cuts it\n",
			r->dir, name, (unsigned long long) r->side.side_max_bytes);
}

int
pgwt_recorder_backend(pgwt_recorder *r, const pgwt_pg_backend *b)
{
	pgwt_tf_backend tb;
	int			rc;

	memset(&tb, 0, sizeof(tb));
	tb.pid = b->pid;
	tb.leader_pid = b->leader_pid;
	tb.start_realtime_ns = (uint64_t) (b->backend_start * 1e9);
	tb.type = b->type;
	tb.user = b->user;
	tb.database = b->database;
	tb.client_addr = b->client_addr;
	tb.application_name = b->application;
	rc = pgwt_tf_backend_append_at(r->dirfd, &r->side, &tb);
	if (rc == -PGWT_TF_FULL)
		rec_note_full(r, PGWT_TF_BACKENDS_NAME);
	return rc;
}

int
pgwt_recorder_query(pgwt_recorder *r, uint64_t query_id, const char *text)
{
	int			rc;

	if (r->no_query_text || query_id == 0 || !text || !*text)
		return 0;
	/*
	 * Write each query id once per trace file: texts follow their files'
	 * retention (docs/TRACE_FORMAT.md 6.6), so a new file starts a new set.
	 * The set is bounded: when more distinct ids come than it holds, the
	 * least recently seen go (a returning one costs one more line), and a
	 * refused line (the bound) is not tried again in this file.
	 */
	if (pgwt_tf_dir_writer_stats(r->w)->files_started != r->queries_file)
	{
		pgwt_tf_query_seen_reset(r->queries);
		r->queries_file = pgwt_tf_dir_writer_stats(r->w)->files_started;
	}
	if (pgwt_tf_query_seen_add(r->queries, query_id))
		return 0;
	rc = pgwt_tf_query_append_at(r->dirfd, &r->side, PGWT_TF_QUERY_NORMALIZED,
								 query_id, text);
	if (rc == -PGWT_TF_FULL)
		rec_note_full(r, PGWT_TF_QUERIES_NAME);
	return rc;
}

int
pgwt_recorder_close(pgwt_recorder *r)
{
	int			rc;

	if (!r)
		return 0;
	rc = pgwt_tf_dir_flush(r->w);
	if (rc >= 0)
		rc = rec_write_events(r);
	{
		int			rc2 = pgwt_tf_dir_close(r->w);

		if (rc >= 0)
			rc = rc2;
	}
	if (rc >= 0 && r->seed_format)
		rc = pgwt_tf_seed_sidefiles_write(r->dir);
	free(r->queries);
	free(r->dir);
	free(r);
	return rc < 0 ? rc : 0;
}
