/*
 * seed_sidefiles.c
 *		The side files of a trace directory the seed tool wrote, read into
 *		the same callbacks as ours (sidefiles.c falls back to these when
 *		its own file is missing): backends.jsonl, query_texts.jsonl (one
 *		JSON object per line) and wait_event_names.json (an object of
 *		per-class name arrays indexed by event number, and pg_version).
 *		Parsing is common/json_min's; what a line may say is checked here
 *		and a line that fails is counted, never guessed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_min.h"
#include "tracefmt/tf_internal.h"

#define TF_SEED_LINE_MAX	8192
/* A query text as the seed stored it: up to track_activity_query_size
 * (1 MB at most), each byte at most 6 escaped, and the line's keys. */
#define TF_SEED_QUERY_LINE_MAX	(6 * 1024 * 1024 + 1024)
#define TF_SEED_NAMES_MAX	(1024 * 1024)

/* The seed's process type names and the backend_type text ours use
 * (common/process_rule.h); a name of neither list is kept as it is.
 * to_seed: ours to the seed's, else the seed's to ours. */
static const char *
tf_seed_type_map(const char *t, bool to_seed)
{
	static const char *const map[][2] = {
		{"client", "client backend"},
		{"bgwriter", "background writer"},
		{"autovac_launcher", "autovacuum launcher"},
		{"autovac_worker", "autovacuum worker"},
		{"logical_launcher", "logical replication launcher"},
		{"logical_worker", "logical replication worker"},
		{"parallel_worker", "parallel worker"},
		{"io_worker", "io worker"},
		{"bg_worker", "background worker"},
		{"unknown", ""},
	};
	size_t		i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(t, map[i][to_seed ? 1 : 0]) == 0)
			return map[i][to_seed ? 0 : 1];
	return t;
}

static const char *
tf_seed_type(const char *t)
{
	return tf_seed_type_map(t, false);
}

const char *
pgwt_tf_seed_type_name(const char *backend_type)
{
	return tf_seed_type_map(backend_type, true);
}

typedef int (*tf_seed_line_fn) (const pgwt_json_obj *o, void *arg);
/* Before the parse: may take a long value out of the line (-1 = bad). */
typedef int (*tf_seed_pre_fn) (char *line, size_t *len, void *arg);

/* Each line of dir/name as a flat JSON object into fn; -1 from fn or a
 * line that does not parse counts as bad. */
static int
tf_seed_read_jsonl(const char *dir, const char *name, tf_seed_line_fn fn, void *arg,
				   uint64_t *bad, size_t max_line, tf_seed_pre_fn pre)
{
	char		path[4096];
	FILE	   *fp = NULL;
	char	   *line = malloc(max_line + 2);
	long		len;
	uint64_t	nbad = 0;
	int			rc = 0;
	pgwt_json_obj *o = malloc(sizeof(*o));

	if (!o || !line)
	{
		free(o);
		free(line);
		return -PGWT_TF_NOMEM;
	}
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int) sizeof(path))
		rc = -PGWT_TF_INVAL;
	else
		fp = pgwt_tf_fopen_regular(path, &rc);
	if (rc < 0)
	{
		free(o);
		free(line);
		return rc;
	}
	while ((len = pgwt_tf_getline_max(line, max_line, fp)) >= 0)
	{
		char		err[128];

		if (len == 0 || line[len - 1] != '\n' || (size_t) len > max_line)
		{
			nbad++;				/* torn or overlong */
			continue;
		}
		line[--len] = '\0';
		if (len == 0)
			continue;
		if (pre)
		{
			size_t		l = (size_t) len;

			if ((rc = pre(line, &l, arg)) == -1)
			{
				nbad++;
				rc = 0;
				continue;
			}
			if (rc < 0)
				break;
			rc = 0;
			len = (ssize_t) l;
		}
		if (pgwt_json_parse(line, (size_t) len, o, err, sizeof(err)) != 0)
		{
			nbad++;
			continue;
		}
		rc = fn(o, arg);
		if (rc == -1)
		{
			nbad++;
			rc = 0;
			continue;
		}
		if (rc != 0)
			break;
	}
	if (rc == 0 && ferror(fp))
		rc = -PGWT_TF_IO;
	free(line);
	free(o);
	fclose(fp);
	if (bad)
		*bad = nbad;
	return rc;
}

/* An unsigned decimal field, or a signed one (as the seed writes query
 * ids) taken modulo 2^64, number or string. */
static bool
tf_seed_u64(const pgwt_json_obj *o, const char *key, uint64_t *out)
{
	const pgwt_json_field *f = pgwt_json_get(o, key);
	const char *s;
	char	   *end;

	if (!f || (f->type != PGWT_JSON_NUMBER && f->type != PGWT_JSON_STRING))
		return false;
	s = f->str;
	if (s[0] == '\0')
		return false;
	errno = 0;
	if (s[0] == '-')
	{
		long long	v = strtoll(s, &end, 10);

		*out = (uint64_t) v;
	}
	else
		*out = strtoull(s, &end, 10);
	return errno == 0 && *end == '\0';
}

static const char *
tf_seed_str(const pgwt_json_obj *o, const char *key)
{
	const pgwt_json_field *f = pgwt_json_get(o, key);

	return f && f->type == PGWT_JSON_STRING ? f->str : "";
}

typedef struct tf_seed_cb
{
	void	   *cb;
	void	   *arg;
} tf_seed_cb;

static int
tf_seed_backend_line(const pgwt_json_obj *o, void *a)
{
	tf_seed_cb *ca = a;
	pgwt_tf_backend b;
	uint64_t	pid,
				leader = 0;
	const pgwt_json_field *t = pgwt_json_get(o, "type");
	int			rc;

	if (!tf_seed_u64(o, "pid", &pid) || pid > UINT32_MAX || !t ||
		t->type != PGWT_JSON_STRING)
		return -1;
	if (pgwt_json_get(o, "leader_pid") &&
		(!tf_seed_u64(o, "leader_pid", &leader) || leader > UINT32_MAX))
		return -1;
	memset(&b, 0, sizeof(b));
	b.pid = (uint32_t) pid;
	b.leader_pid = (uint32_t) leader;
	b.type = tf_seed_type(t->str);
	b.user = tf_seed_str(o, "user");
	b.database = tf_seed_str(o, "db");
	b.client_addr = tf_seed_str(o, "addr");
	b.application_name = "";
	rc = ((pgwt_tf_backend_cb) ca->cb) (&b, ca->arg);
	return rc == -1 ? -2 : rc;
}

int
pgwt_tf_seed_backends_read(const char *dir, pgwt_tf_backend_cb cb, void *arg,
						   uint64_t *bad)
{
	tf_seed_cb	ca = {(void *) cb, arg};

	return tf_seed_read_jsonl(dir, "backends.jsonl", tf_seed_backend_line, &ca, bad,
							  TF_SEED_LINE_MAX, NULL);
}

/* A query line's text, taken out before the parse (seed_json_text.c). */
typedef struct tf_seed_qarg
{
	tf_seed_cb	ca;
	bool		has_text;
	bool		truncated;
	char		text[PGWT_TF_QUERY_TEXT_MAX + 1];
} tf_seed_qarg;

static int
tf_seed_query_pre(char *line, size_t *len, void *a)
{
	tf_seed_qarg *qa = a;
	int			rc = tf_seed_take_text(line, len, "t", qa->text, sizeof(qa->text),
									   &qa->truncated);

	qa->has_text = rc == 0;
	return rc == -2 ? -PGWT_TF_NOMEM : rc < 0 ? -1 : 0;
}

static int
tf_seed_query_line(const pgwt_json_obj *o, void *a)
{
	tf_seed_qarg *qa = a;
	uint64_t	qid;
	int			rc;

	if (!tf_seed_u64(o, "q", &qid) || !qa->has_text)
		return -1;
	/* the seed stores the statement as it ran, literals included; one
	 * longer than ours keep is cut and says so (the caller shows it) */
	rc = ((pgwt_tf_query_cb) qa->ca.cb) (qid, PGWT_TF_QUERY_FULL, qa->truncated, qa->text,
										 qa->ca.arg);
	return rc == -1 ? -2 : rc;
}

int
pgwt_tf_seed_queries_read(const char *dir, pgwt_tf_query_cb cb, void *arg,
						  uint64_t *bad)
{
	tf_seed_qarg *qa = calloc(1, sizeof(*qa));
	int			rc;

	if (!qa)
		return -PGWT_TF_NOMEM;
	qa->ca.cb = (void *) cb;
	qa->ca.arg = arg;
	rc = tf_seed_read_jsonl(dir, "query_texts.jsonl", tf_seed_query_line, qa, bad,
							TF_SEED_QUERY_LINE_MAX, tf_seed_query_pre);
	free(qa);
	return rc;
}

/* Class names of the seed's table and their class bytes. */
static int
tf_seed_class(const char *name)
{
	static const struct
	{
		const char *name;
		int			cls;
	}			classes[] = {
		{"LWLock", 0x01}, {"Lock", 0x03}, {"BufferPin", 0x04}, {"Activity", 0x05},
		{"Client", 0x06}, {"Extension", 0x07}, {"IPC", 0x08}, {"Timeout", 0x09},
		{"IO", 0x0A}, {"InjectionPoint", 0x0B},
	};
	size_t		i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strcmp(name, classes[i].name) == 0)
			return classes[i].cls;
	return -1;
}

typedef struct tf_seed_names
{
	pgwt_tf_event_cb cb;
	void	   *arg;
	uint64_t	bad;
	uint64_t	taken;
	int			rc;
} tf_seed_names;

static int
tf_seed_name(const char *key, int index, const char *value, void *a)
{
	tf_seed_names *sn = a;
	int			cls = tf_seed_class(key);
	pgwt_tf_event_name e;

	if (value[0] == '\0')
		return 0;				/* a hole in the seed's table */
	if (cls < 0 || index > 0xFFFFFF || !pgwt_tf_event_name_ok(value) ||
		sn->taken >= PGWT_TF_EVENTS_MAX_LINES)
	{
		sn->bad++;
		return 0;
	}
	sn->taken++;
	e.id = ((uint32_t) cls << 24) | (uint32_t) index;
	e.class_name = key;
	e.name = value;
	sn->rc = sn->cb(&e, sn->arg);
	return sn->rc != 0 && sn->rc != -1;
}

int
pgwt_tf_seed_events_read(const char *dir, pgwt_tf_event_cb cb, void *arg,
						 uint32_t *pg_version, uint64_t *bad)
{
	char		path[4096];
	FILE	   *fp;
	char	   *buf;
	size_t		len;
	char		err[128];
	tf_seed_names sn = {cb, arg, 0, 0, 0};
	pgwt_json_obj *o;
	long long	v;
	int			rc = 0;

	if (snprintf(path, sizeof(path), "%s/wait_event_names.json", dir) >= (int) sizeof(path))
		return -PGWT_TF_INVAL;
	if (!(fp = pgwt_tf_fopen_regular(path, &rc)))
		return rc;
	buf = malloc(TF_SEED_NAMES_MAX + 1);
	o = malloc(sizeof(*o));
	if (!buf || !o)
		rc = -PGWT_TF_NOMEM;
	else
	{
		len = fread(buf, 1, TF_SEED_NAMES_MAX + 1, fp);
		if (ferror(fp))
			rc = -PGWT_TF_IO;
		else if (len > TF_SEED_NAMES_MAX ||
				 pgwt_json_parse_nested(buf, len, o, err, sizeof(err)) != 0 ||
				 pgwt_json_each_string(buf, len, tf_seed_name, &sn, err, sizeof(err)) < 0)
			rc = -PGWT_TF_BAD_SIDEFILE;
		else if (sn.rc < 0 && sn.rc != -1)
			rc = sn.rc;
		else if (pg_version)
			*pg_version = pgwt_json_get_int(o, "pg_version", &v) && v > 0 &&
				v <= UINT32_MAX ? (uint32_t) v : 0;
	}
	free(buf);
	free(o);
	fclose(fp);
	if (bad)
		*bad = sn.bad;
	return rc;
}
