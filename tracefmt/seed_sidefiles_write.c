/*
 * seed_sidefiles_write.c
 *		The seed tool's side files written from ours (docs/TRACE_FORMAT.md
 *		7.2): backends.jsonl and query_texts.jsonl (one JSON object per
 *		line) and wait_event_names.json (per class, names by event number,
 *		and pg_version, the major version). What the seed's reader takes
 *		is what seed_sidefiles.c reads back; escaping is common/json_min's.
 *
 * Each file is written whole to <name>.tmp (created 0640, replacing
 * whatever had the name) and renamed over the old one, so a reader sees
 * the previous file or the new one. Our own side files stay: they are
 * the ones this project reads first. One caller at a time per directory
 * (the recorder at rotation and close, pgwt-synth at its end).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/json_min.h"
#include "tracefmt/tf_internal.h"

#define TF_SW_LINE_MAX	(PGWT_TF_QUERY_TEXT_MAX * 6 + 512)

typedef struct tf_sw
{
	FILE	   *f;
	char	   *line;
	int			rc;
} tf_sw;

static void
tf_sw_put(tf_sw *w, pgwt_json_out *o)
{
	long		n = pgwt_json_end(o);

	if (n < 0 || fwrite(w->line, 1, (size_t) n, w->f) != (size_t) n)
		w->rc = -PGWT_TF_IO;
}

static int
tf_sw_backend(const pgwt_tf_backend *b, void *arg)
{
	tf_sw	   *w = arg;
	pgwt_json_out o;

	pgwt_json_begin(&o, w->line, TF_SW_LINE_MAX);
	pgwt_json_int(&o, "pid", b->pid);
	pgwt_json_str(&o, "type", pgwt_tf_seed_type_name(b->type));
	pgwt_json_str(&o, "user", b->user ? b->user : "");
	pgwt_json_str(&o, "db", b->database ? b->database : "");
	if (b->client_addr && b->client_addr[0])
		pgwt_json_str(&o, "addr", b->client_addr);
	if (b->leader_pid)
		pgwt_json_int(&o, "leader_pid", b->leader_pid);
	tf_sw_put(w, &o);
	return w->rc;
}

static int
tf_sw_query(uint64_t id, pgwt_tf_query_mode mode, bool truncated, const char *text,
			void *arg)
{
	tf_sw	   *w = arg;
	pgwt_json_out o;

	(void) mode;
	(void) truncated;
	pgwt_json_begin(&o, w->line, TF_SW_LINE_MAX);
	/* the seed writes a query id as a signed 64-bit number */
	pgwt_json_int(&o, "q", (long long) id);
	pgwt_json_str(&o, "t", text);
	tf_sw_put(w, &o);
	return w->rc;
}

/* wait_event_names.json: per class byte, names by event number. */
#define TF_SW_CLASSES	256
#define TF_SW_EVENTS	1024

typedef struct tf_sw_names
{
	char	   *cls[TF_SW_CLASSES];
	char	   *name[TF_SW_CLASSES][TF_SW_EVENTS];
	int			rc;
} tf_sw_names;

static int
tf_sw_event(const pgwt_tf_event_name *e, void *arg)
{
	tf_sw_names *t = arg;
	unsigned	c = e->id >> 24,
				k = e->id & 0xFFFFFF;

	if (k >= TF_SW_EVENTS)
		return 0;				/* beyond the seed's arrays: named by number */
	if (!t->cls[c] && !(t->cls[c] = strdup(e->class_name)))
		t->rc = -PGWT_TF_NOMEM;
	free(t->name[c][k]);
	if (!(t->name[c][k] = strdup(e->name)))
		t->rc = -PGWT_TF_NOMEM;
	return t->rc;
}

static int
tf_sw_names_write(tf_sw *w, tf_sw_names *t, uint32_t pg_version)
{
	const char *vals[TF_SW_EVENTS];
	char	   *buf;
	size_t		cap = 1024 * 1024;
	int			c;

	if (!(buf = malloc(cap)))
		return -PGWT_TF_NOMEM;
	fputs("{", w->f);
	for (c = 0; c < TF_SW_CLASSES; c++)
	{
		pgwt_json_out o;
		int			n = 0,
					k;
		long		len;

		if (!t->cls[c])
			continue;
		for (k = 0; k < TF_SW_EVENTS; k++)
			if (t->name[c][k])
				n = k + 1;
		for (k = 0; k < n; k++)
			vals[k] = t->name[c][k] ? t->name[c][k] : "";
		/* one key of an object of its own, spliced into ours */
		pgwt_json_begin(&o, buf, cap);
		pgwt_json_str_array(&o, t->cls[c], vals, n);
		len = pgwt_json_end(&o);
		if (len < 3)
		{
			free(buf);
			return -PGWT_TF_NOMEM;
		}
		fprintf(w->f, "%.*s, ", (int) (len - 3), buf + 1);
	}
	fprintf(w->f, "\"pg_version\": %u}\n", pgwt_tf_pg_major(pg_version));
	free(buf);
	return ferror(w->f) ? -PGWT_TF_IO : 0;
}

/* One side file through name.tmp; kind 0 backends, 1 queries, 2 names. */
static int
tf_sw_file(int dirfd, const char *dir, const char *name, int kind)
{
	char		tmp[256];
	tf_sw		w = {0};
	int			fd,
				rc;

	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	if ((fd = tf_openat_replace(dirfd, tmp, O_WRONLY, 0640, -1)) < 0)
		return -PGWT_TF_IO;
	if (!(w.f = fdopen(fd, "w")) || !(w.line = malloc(TF_SW_LINE_MAX)))
	{
		if (w.f)
			fclose(w.f);
		else
			close(fd);
		(void) unlinkat(dirfd, tmp, 0);
		return -PGWT_TF_NOMEM;
	}
	if (kind == 0)
		rc = pgwt_tf_backends_read(dir, tf_sw_backend, &w, NULL);
	else if (kind == 1)
		rc = pgwt_tf_queries_read(dir, tf_sw_query, &w, NULL);
	else
	{
		tf_sw_names *t = calloc(1, sizeof(*t));
		uint32_t	pgv = 0;

		rc = t ? pgwt_tf_events_read(dir, tf_sw_event, t, &pgv, NULL) : -PGWT_TF_NOMEM;
		if (t && rc == 0)
			rc = t->rc ? t->rc : tf_sw_names_write(&w, t, pgv);
		for (int c = 0; t && c < TF_SW_CLASSES; c++)
		{
			free(t->cls[c]);
			for (int k = 0; k < TF_SW_EVENTS; k++)
				free(t->name[c][k]);
		}
		free(t);
	}
	/* nothing of ours to write from: the seed keeps an empty backends or
	 * query file (its directories show one); no names file */
	if (rc == -PGWT_TF_NOT_FOUND)
		rc = kind == 2 ? 1 : 0;
	if (rc == 0)
		rc = w.rc;
	free(w.line);
	if (fclose(w.f) != 0 && rc == 0)
		rc = -PGWT_TF_IO;
	if (rc == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		rc = -PGWT_TF_IO;
	if (rc != 0)
		(void) unlinkat(dirfd, tmp, 0);
	return rc > 0 ? 0 : rc;
}

int
pgwt_tf_seed_sidefiles_write(const char *dir)
{
	static const char *const names[] = {
		"backends.jsonl", "query_texts.jsonl", "wait_event_names.json"
	};
	int			dirfd;
	int			rc = 0;

	if ((rc = tf_open_dir_path(dir, &dirfd)) < 0)
		return rc;
	for (int k = 0; k < 3 && rc == 0; k++)
		rc = tf_sw_file(dirfd, dir, names[k], k);
	close(dirfd);
	return rc;
}
