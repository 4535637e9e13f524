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

/* All of a batch's lines, in order, in one append; too many: none. */
static void
test_backends_batch(void)
{
	char		dir[256],
				p[300];
	pgwt_tf_file_opts o = opts();
	pgwt_tf_backend b[PGWT_TF_BACKENDS_BATCH_MAX + 1];
	seen		s;
	uint64_t	bad = 0;
	struct stat st;
	int			dfd;

	tft_mkdtemp(dir, sizeof(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);
	for (int i = 0; i <= PGWT_TF_BACKENDS_BATCH_MAX; i++)
		b[i] = (pgwt_tf_backend) {(uint32_t) (1000 + i), 0, 1700000000000000000ull + (uint64_t) i,
			"client backend", "", "", "", ""};
	CHECK_RC(pgwt_tf_backends_append_at(dfd, &o, b, 3));
	CHECK(pgwt_tf_backends_append_at(dfd, &o, b, 0) == 0);
	memset(&s, 0, sizeof(s));
	CHECK_RC(pgwt_tf_backends_read(dir, on_backend, &s, &bad));
	CHECKF(s.n == 3 && bad == 0 && strcmp(s.last, "1002|0|1700000000000000002|client backend||||") == 0,
		   "n %d bad %llu last %s", s.n, (unsigned long long) bad, s.last);
	/* the file holds the magic line and exactly these three lines */
	snprintf(p, sizeof(p), "%s/%s", dir, PGWT_TF_BACKENDS_NAME);
	{
		FILE	   *f = fopen(p, "r");
		int			lines = 0,
					c;

		CHECK(f != NULL);
		while (f && (c = fgetc(f)) != EOF)
			lines += c == '\n';
		if (f)
			fclose(f);
		CHECKF(lines == 4, "%d lines", lines);
	}
	/* more than a batch: refused, nothing written */
	CHECK(stat(p, &st) == 0);
	CHECK(pgwt_tf_backends_append_at(dfd, &o, b, PGWT_TF_BACKENDS_BATCH_MAX + 1) == -PGWT_TF_INVAL);
	{
		struct stat st2;

		CHECK(stat(p, &st2) == 0 && st2.st_size == st.st_size);
	}
	close(dfd);
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

/* Appended names: cleaned to the rule, one magic line, read back in order. */
static void
test_events_append(void)
{
	char		dir[256];
	pgwt_tf_file_opts o = opts();
	char		longname[300];
	pgwt_tf_event_name ev[4];
	seen		s;
	uint64_t	bad = 9;
	uint32_t	pgv = 0;
	int			dirfd;

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ev[0] = (pgwt_tf_event_name) {0x0100005F, "LWLock", "pg_wait_tracer"};
	ev[1] = (pgwt_tf_event_name) {0x07000001, "Extension", "Bad\x01Name\nWith\tControls"};
	ev[2] = (pgwt_tf_event_name) {0x07000002, "Extension", longname};
	ev[3] = (pgwt_tf_event_name) {0x07000003, "Extension", ""};	/* skipped */
	tft_mkdtemp(dir, sizeof(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(dirfd >= 0);
	CHECK_RC(pgwt_tf_events_append_at(dirfd, &o, 180006, ev, 4));
	CHECK_RC(pgwt_tf_events_append_at(dirfd, &o, 180006, ev, 1));	/* no 2nd magic */
	memset(&s, 0, sizeof(s));
	CHECK_RC(pgwt_tf_events_read(dir, on_event, &s, &pgv, &bad));
	CHECK(s.n == 4 && bad == 0 && pgv == 180006);
	CHECK(strcmp(s.last, "0x0100005f|LWLock|pg_wait_tracer") == 0);
	/* the cleaned names pass the readers' rule */
	{
		char		c[PGWT_TF_EVENT_NAME_MAX + 1];

		CHECK(pgwt_tf_event_name_clean("Bad\x01Name\nWith\tControls", c, sizeof(c)) == 22);
		CHECK(strcmp(c, "Bad?Name?With?Controls") == 0 && pgwt_tf_event_name_ok(c));
		CHECK(pgwt_tf_event_name_clean(longname, c, sizeof(c)) == PGWT_TF_EVENT_NAME_MAX);
		CHECK(pgwt_tf_event_name_ok(c));
		/* a cut never splits a UTF-8 character: 63 'a' then a 2-byte char */
		memset(longname, 'a', 63);
		memcpy(longname + 63, "\xc3\xa9xyz", 6);
		CHECK(pgwt_tf_event_name_clean(longname, c, sizeof(c)) == 63);
		CHECK(!pgwt_tf_event_name_ok("") && !pgwt_tf_event_name_ok("a\x7f"));
	}
	close(dirfd);
	tft_rmdir(dir);
}

/* Writes len bytes as dir's events.tsv. */
static void
write_events(const char *dir, const char *buf, size_t len)
{
	char		p[300];
	int			fd;

	snprintf(p, sizeof(p), "%s/%s", dir, PGWT_TF_EVENTS_NAME);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, buf, len) == (ssize_t) len);
	close(fd);
}

/*
 * A hostile names file (names are server data, the file may be anyone's):
 * overlong names, control characters (raw and escaped), bad ids, bad
 * escapes, wrong field counts, duplicates, a torn last line, more lines
 * than the bound. Every bad line is counted, good lines still read, the
 * reader never takes more than PGWT_TF_EVENTS_MAX_LINES.
 */
static void
test_events_hostile(void)
{
	char		dir[256];
	size_t		cap = 64 * 1024 + (size_t) PGWT_TF_EVENTS_MAX_LINES * 40;
	char	   *buf = malloc(cap);
	size_t		len = 0;
	seen		s;
	uint64_t	bad = 0;
	uint32_t	pgv = 0;

	CHECK(buf != NULL);
	tft_mkdtemp(dir, sizeof(dir));
	len += (size_t) snprintf(buf + len, cap - len, "#pgwt-events\t1\t180006\n");
	len += (size_t) snprintf(buf + len, cap - len, "0x0100005f\tLWLock\tgood\n");	/* 1 ok */
	len += (size_t) snprintf(buf + len, cap - len, "0x0100005f\tLWLock\tagain\n");	/* 2 ok: a duplicate */
	len += (size_t) snprintf(buf + len, cap - len, "0x01000060\tLWLock\t");	/* bad: 65 bytes */
	memset(buf + len, 'x', PGWT_TF_EVENT_NAME_MAX + 1);
	len += PGWT_TF_EVENT_NAME_MAX + 1;
	buf[len++] = '\n';
	len += (size_t) snprintf(buf + len, cap - len, "0x01000061\tLWLock\tesc\\x1b[31m\x1b[2J\n");	/* bad: raw ESC */
	len += (size_t) snprintf(buf + len, cap - len, "0x01000062\tLWLock\ttab\\tin\n");	/* bad: \t unescaped */
	len += (size_t) snprintf(buf + len, cap - len, "0x01000063\tLWLock\tbell\x07\n");	/* bad */
	len += (size_t) snprintf(buf + len, cap - len, "0x1000063\tLWLock\tshortid\n");	/* bad */
	len += (size_t) snprintf(buf + len, cap - len, "0xZZ000063\tLWLock\tnotHex\n");	/* bad */
	len += (size_t) snprintf(buf + len, cap - len, "0x01000064\tLWLock\n");	/* bad: 2 fields */
	len += (size_t) snprintf(buf + len, cap - len, "0x01000064\tLWLock\ta\tb\n");	/* bad: 4 */
	len += (size_t) snprintf(buf + len, cap - len, "0x01000065\tLWLock\tbad\\q\n");	/* bad escape */
	len += (size_t) snprintf(buf + len, cap - len, "0x01000066\t\tnoclass\n");	/* bad */
	len += (size_t) snprintf(buf + len, cap - len, "#a comment\n");	/* skipped */
	len += (size_t) snprintf(buf + len, cap - len, "0x01000067\tLWLock\tmore");	/* torn */
	write_events(dir, buf, len);
	memset(&s, 0, sizeof(s));
	CHECK_RC(pgwt_tf_events_read(dir, on_event, &s, &pgv, &bad));
	CHECK(s.n == 2 && bad == 11 && pgv == 180006);
	CHECK(strcmp(s.last, "0x0100005f|LWLock|again") == 0);

	/* past the bound: the first PGWT_TF_EVENTS_MAX_LINES lines, the rest bad */
	len = (size_t) snprintf(buf, cap, "#pgwt-events\t1\t180006\n");
	for (unsigned i = 0; i < PGWT_TF_EVENTS_MAX_LINES + 10; i++)
		len += (size_t) snprintf(buf + len, cap - len, "0x07%06x\tExtension\tev%u\n", i, i);
	write_events(dir, buf, len);
	memset(&s, 0, sizeof(s));
	CHECK_RC(pgwt_tf_events_read(dir, on_event, &s, &pgv, &bad));
	CHECK(s.n == PGWT_TF_EVENTS_MAX_LINES && bad == 10);
	free(buf);
	tft_rmdir(dir);
}

int
main(void)
{
	RUN(test_backends_roundtrip);
	RUN(test_backends_batch);
	RUN(test_queries_modes);
	RUN(test_normalize);
	RUN(test_events_table);
	RUN(test_events_append);
	RUN(test_events_hostile);
	return TFT_END();
}
