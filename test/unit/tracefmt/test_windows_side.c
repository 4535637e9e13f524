/*
 * test_windows_side.c
 *		windows.tsv (docs/TRACE_FORMAT.md 8.5): lines appended and read
 *		back, a source name this reader does not know read as a window of
 *		source unknown, bad lines counted, the count per source of the
 *		windows starting in a range and the line the views print from it,
 *		and a directory without the file (read as before: no line).
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "tf_test.h"

static int
on_window(const pgwt_tf_window *w, void *arg)
{
	int		   *n = arg;

	(*n)++;
	(void) w;
	return 0;
}

static void
test_windows_roundtrip(void)
{
	char		dir[256],
				path[300],
				line[160];
	pgwt_tf_file_opts o;
	pgwt_tf_window w = {1000, 5000000000ull, PGWT_TF_XSRC_SCHED};
	pgwt_tf_window_sources s;
	int			dirfd,
				fd,
				n = 0;
	uint64_t	bad = 0;
	const char *junk = "12\tnot-a-number\tsched\n#comment\n13\t7000000000\tfancy\n14\t8000000000\tBAD!\n";

	memset(&o, 0, sizeof(o));
	o.group_gid = -1;
	tft_mkdtemp(dir, sizeof(dir));
	/* no file: nothing to say, the views read as before */
	CHECK_RC(pgwt_tf_window_sources_load(dir, 0, 0, &s));
	CHECK(!s.present && s.windows == 0);
	CHECK(pgwt_tf_window_sources_text(&s, line, sizeof(line)) == 0 && line[0] == '\0');

	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(dirfd >= 0);
	CHECK_RC(pgwt_tf_window_append_at(dirfd, &o, &w));
	w.start_mono_ns = 2000;
	w.start_rt_ns = 6000000000ull;
	CHECK_RC(pgwt_tf_window_append_at(dirfd, &o, &w));
	close(dirfd);
	CHECK_RC(pgwt_tf_windows_read(dir, on_window, &n, &bad));
	CHECK(n == 2 && bad == 0);
	CHECK_RC(pgwt_tf_window_sources_load(dir, 0, 0, &s));
	CHECK(s.present && s.windows == 2 && s.by_source[PGWT_TF_XSRC_SCHED] == 2);
	pgwt_tf_window_sources_text(&s, line, sizeof(line));
	CHECKF(strcmp(line, "exact windows: 2, source sched") == 0, "'%s'", line);
	/* the range: a window counts by its start */
	CHECK_RC(pgwt_tf_window_sources_load(dir, 5500000000ull, 6000000000ull, &s));
	CHECK(s.present && s.windows == 0);
	pgwt_tf_window_sources_text(&s, line, sizeof(line));
	CHECKF(strcmp(line, "exact windows: 0") == 0, "'%s'", line);

	/* a newer source name, bad lines, a comment */
	snprintf(path, sizeof(path), "%s/%s", dir, PGWT_TF_WINDOWS_NAME);
	fd = open(path, O_WRONLY | O_APPEND);
	CHECK(fd >= 0);
	CHECK(write(fd, junk, strlen(junk)) == (ssize_t) strlen(junk));
	close(fd);
	CHECK_RC(pgwt_tf_window_sources_load(dir, 0, 0, &s));
	CHECK(s.windows == 3 && s.by_source[PGWT_TF_XSRC_UNKNOWN] == 1 && s.bad == 2);
	pgwt_tf_window_sources_text(&s, line, sizeof(line));
	CHECKF(strcmp(line, "exact windows: 3, sources sched 2 unknown 1 (2 lines of windows.tsv skipped)") == 0,
		   "'%s'", line);
	tft_rmdir(dir);
}

static void
test_windows_names(void)
{
	pgwt_tf_window_sources s;
	pgwt_tf_window w = {1, 10, PGWT_TF_XSRC_WATCH};
	char		line[160];

	CHECK(pgwt_tf_exact_source_parse("watch") == PGWT_TF_XSRC_WATCH);
	CHECK(pgwt_tf_exact_source_parse("sched") == PGWT_TF_XSRC_SCHED);
	CHECK(pgwt_tf_exact_source_parse("unknown") == PGWT_TF_XSRC_UNKNOWN);
	CHECK(pgwt_tf_exact_source_parse(NULL) == PGWT_TF_XSRC_UNKNOWN);
	CHECK(strcmp(pgwt_tf_exact_source_name((pgwt_tf_exact_source) 99), "unknown") == 0);
	memset(&s, 0, sizeof(s));
	s.present = true;
	pgwt_tf_window_sources_add(&s, &w, 0, 0);
	w.source = PGWT_TF_XSRC_SCHED;
	pgwt_tf_window_sources_add(&s, &w, 0, 0);
	pgwt_tf_window_sources_add(&s, &w, 11, 0);	/* before the range */
	pgwt_tf_window_sources_add(&s, &w, 0, 10);	/* at its end: out */
	pgwt_tf_window_sources_text(&s, line, sizeof(line));
	CHECKF(strcmp(line, "exact windows: 2, sources watch 1 sched 1") == 0, "'%s'", line);
	/* a short buffer is cut, never overrun */
	CHECK(pgwt_tf_window_sources_text(&s, line, 8) == 7 && strcmp(line, "exact w") == 0);
}

int
main(void)
{
	RUN(test_windows_roundtrip);
	RUN(test_windows_names);
	return TFT_END();
}
