/*
 * test_side.c
 *		Unit tests of the side files: backends, query texts (modes,
 *		normalization, truncation), the wait-event name table, escaping,
 *		and readers that count bad or torn lines.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "tf_test.h"

typedef struct seen
{
	int			n;
	char		last[8192];
	uint64_t	last_id;
	bool		truncated;
	pgwt_tf_query_mode mode;
} seen;

static int
on_backend(const pgwt_tf_backend *b, void *arg)
{
	seen	   *s = arg;

	s->n++;
	snprintf(s->last, sizeof(s->last), "%u|%u|%llu|%s|%s|%s|%s|%s", b->pid, b->leader_pid,
			 (unsigned long long) b->start_realtime_ns, b->type, b->user, b->database,
			 b->client_addr, b->application_name);
	return 0;
}

static int
on_query(uint64_t id, pgwt_tf_query_mode mode, bool truncated, const char *text, void *arg)
{
	seen	   *s = arg;

	s->n++;
	s->last_id = id;
	s->mode = mode;
	s->truncated = truncated;
	snprintf(s->last, sizeof(s->last), "%s", text);
	return 0;
}

static int
on_event(const pgwt_tf_event_name *e, void *arg)
{
	seen	   *s = arg;

	s->n++;
	snprintf(s->last, sizeof(s->last), "0x%08x|%s|%s", e->id, e->class_name, e->name);
	return 0;
}

static pgwt_tf_file_opts
opts(void)
{
	pgwt_tf_file_opts o;

	memset(&o, 0, sizeof(o));
	o.group_gid = -1;
	return o;
}

static void
test_backends_roundtrip(void)
{
	char		dir[256],
				p[300];
	pgwt_tf_file_opts o = opts();
	pgwt_tf_backend b = {4242, 0, 1700000000000000000ull, "client backend", "alice",
	"shop", "10.0.0.1", "app\twith\ttabs\nand\\newline"};
	seen		s;
	uint64_t	bad = 0;
	struct stat st;

	tft_mkdtemp(dir, sizeof(dir));
	CHECK_RC(pgwt_tf_backend_append(dir, &o, &b));
	b.pid = 4243;
	b.leader_pid = 4242;
	b.application_name = "";
	b.type = "parallel worker";
	CHECK_RC(pgwt_tf_backend_append(dir, &o, &b));
	memset(&s, 0, sizeof(s));
	CHECK_RC(pgwt_tf_backends_read(dir, on_backend, &s, &bad));
	CHECK(s.n == 2 && bad == 0);
	CHECKF(strcmp(s.last, "4243|4242|1700000000000000000|parallel worker|alice|shop|10.0.0.1|") == 0,
		   "got %s", s.last);
	snprintf(p, sizeof(p), "%s/%s", dir, PGWT_TF_BACKENDS_NAME);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0640);
	/* escaped fields come back as written */
	b.pid = 1;
	b.application_name = "app\twith\ttabs\nand\\newline";
	CHECK_RC(pgwt_tf_backend_append(dir, &o, &b));
	memset(&s, 0, sizeof(s));
	CHECK_RC(pgwt_tf_backends_read(dir, on_backend, &s, &bad));
	CHECK(strstr(s.last, "app\twith\ttabs\nand\\newline") != NULL);
	/* long fields are cut at the documented cap */
	{
		char		longname[1000];

		memset(longname, 'x', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		b.user = longname;
		CHECK_RC(pgwt_tf_backend_append(dir, &o, &b));
		memset(&s, 0, sizeof(s));
		CHECK_RC(pgwt_tf_backends_read(dir, on_backend, &s, &bad));
		CHECK(strstr(s.last, "|parallel worker|") && strlen(s.last) < 1000);
	}
	/* garbage lines and a torn last line are counted, not fatal */
	{
		int			fd = open(p, O_WRONLY | O_APPEND);

		CHECK(fd >= 0);
		const char *junk = "notanumber\tx\n1\t2\n1\t0\t5\tt\tu\td\tc\ta\\q\n7\t0\t5\tt\tu";

		CHECK(write(fd, junk, strlen(junk)) == (ssize_t) strlen(junk));
		close(fd);
		memset(&s, 0, sizeof(s));
		CHECK_RC(pgwt_tf_backends_read(dir, on_backend, &s, &bad));
		CHECKF(s.n == 4 && bad == 4, "n %d bad %llu", s.n, (unsigned long long) bad);
	}
	tft_rmdir(dir);
}

static void
test_queries_modes(void)
{
	char		dir[256];
	pgwt_tf_file_opts o = opts();
	seen		s;
	uint64_t	bad;

	tft_mkdtemp(dir, sizeof(dir));
	CHECK_RC(pgwt_tf_query_append(dir, &o, PGWT_TF_QUERY_NONE, 1, "SELECT 'secret'"));
	CHECK(pgwt_tf_queries_read(dir, on_query, &s, &bad) == -PGWT_TF_NOT_FOUND);
	CHECK_RC(pgwt_tf_query_append(dir, &o, PGWT_TF_QUERY_NORMALIZED, UINT64_MAX,
								  "SELECT * FROM t WHERE a = 'x''y' AND b = 42 AND c = 1.5e3"));
	memset(&s, 0, sizeof(s));
	CHECK_RC(pgwt_tf_queries_read(dir, on_query, &s, &bad));
	CHECK(s.n == 1 && s.last_id == UINT64_MAX && s.mode == PGWT_TF_QUERY_NORMALIZED && !s.truncated);
	CHECKF(strcmp(s.last, "SELECT * FROM t WHERE a = ? AND b = ? AND c = ?") == 0, "got %s", s.last);
	CHECK_RC(pgwt_tf_query_append(dir, &o, PGWT_TF_QUERY_FULL, 0x1234, "SELECT 'secret'\n"));
	memset(&s, 0, sizeof(s));
	CHECK_RC(pgwt_tf_queries_read(dir, on_query, &s, &bad));
	CHECK(s.n == 2 && s.last_id == 0x1234 && strcmp(s.last, "SELECT 'secret'\n") == 0);
	/* truncation at the cap, on a UTF-8 boundary, flagged */
	{
		static char big[PGWT_TF_QUERY_TEXT_MAX + 100];
		size_t		i;

		for (i = 0; i + 2 < sizeof(big); i += 2)
			memcpy(big + i, "\xc3\xa9", 2);	/* e-acute, 2 bytes */
		big[i] = '\0';
		CHECK_RC(pgwt_tf_query_append(dir, &o, PGWT_TF_QUERY_FULL, 7, big));
		memset(&s, 0, sizeof(s));
		CHECK_RC(pgwt_tf_queries_read(dir, on_query, &s, &bad));
		CHECK(s.truncated && strlen(s.last) == PGWT_TF_QUERY_TEXT_MAX &&
			  ((unsigned char) s.last[strlen(s.last) - 1]) == 0xa9);
	}
	tft_rmdir(dir);
}

static void
test_normalize(void)
{
	struct
	{
		const char *in;
		const char *out;
	}			cases[] = {
		{"SELECT 1", "SELECT ?"},
		{"select a1, t2.b from t2 where x=-3", "select a1, t2.b from t2 where x=-?"},
		{"SELECT E'it\\'s', e'\\\\', 'plain'", "SELECT ?, ?, ?"},
		{"SELECT $$body 'x' 1$$, $tag$a$$b$tag$", "SELECT ?, ?"},
		{"SELECT $1, $2::int", "SELECT $1, $2::int"},
		{"SELECT \"col 1\" FROM \"T'x\"", "SELECT \"col 1\" FROM \"T'x\""},
		{"SELECT .5, 1e10, 3.", "SELECT ?, ?, ?"},
		{"SELECT X'FF', B'1010', U&'d\\0061t'", "SELECT ?, ?, ?"},
		{"SELECT 'unterminated", "SELECT ?"},
		{"", ""},
	};
	char		out[256];
	size_t		i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		pgwt_tf_normalize_query(cases[i].in, out, sizeof(out));
		CHECKF(strcmp(out, cases[i].out) == 0, "'%s' -> '%s'", cases[i].in, out);
	}
	/* output is cut to the buffer and always terminated */
	CHECK(pgwt_tf_normalize_query("SELECT abc", out, 4) == 3 && strcmp(out, "SEL") == 0);
}

static void
test_events_table(void)
{
	char		dir[256],
				p[300];
	pgwt_tf_file_opts o = opts();
	pgwt_tf_event_name ev[] = {
		{0x01000000, "LWLock", "ShmemIndex"},
		{0x06000000, "Client", "ClientRead"},
		{0x09000002, "Timeout", "PgSleep"},
	};
	seen		s;
	uint64_t	bad;
	uint32_t	pgv = 0;

	tft_mkdtemp(dir, sizeof(dir));
	CHECK_RC(pgwt_tf_events_write(dir, &o, 150004, ev, 3));
	memset(&s, 0, sizeof(s));
	CHECK_RC(pgwt_tf_events_read(dir, on_event, &s, &pgv, &bad));
	CHECK(s.n == 3 && bad == 0 && pgv == 150004);
	CHECK(strcmp(s.last, "0x09000002|Timeout|PgSleep") == 0);
	/* rewriting replaces the table */
	CHECK_RC(pgwt_tf_events_write(dir, &o, 180000, ev, 1));
	memset(&s, 0, sizeof(s));
	CHECK_RC(pgwt_tf_events_read(dir, on_event, &s, &pgv, &bad));
	CHECK(s.n == 1 && pgv == 180000);
	/* a file of another kind is refused as a whole */
	snprintf(p, sizeof(p), "%s/%s", dir, PGWT_TF_EVENTS_NAME);
	{
		int			fd = open(p, O_WRONLY | O_TRUNC);

		CHECK(fd >= 0 && write(fd, "#pgwt-events\t9\t1\n", 17) == 17);
		close(fd);
	}
	CHECK(pgwt_tf_events_read(dir, on_event, &s, &pgv, &bad) == -PGWT_TF_BAD_SIDEFILE);
	tft_rmdir(dir);
}

int
main(void)
{
	RUN(test_backends_roundtrip);
	RUN(test_queries_modes);
	RUN(test_normalize);
	RUN(test_events_table);
	return TFT_END();
}
