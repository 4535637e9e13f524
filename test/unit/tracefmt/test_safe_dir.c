/*
 * test_safe_dir.c
 *		Who may write a trace directory and how files in it are opened
 *		(tracefmt/safe_dir.c): the StrictModes-like rule (pure), the
 *		directory checks on real directories, links planted under every
 *		name the directory writer and the side-file writers use (the file
 *		they point to keeps its bytes, mode and owner), the side files'
 *		bound and their place in the size cap.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "tf_test.h"

#define HOUR_NS 3600000000000ull
#define BASE_RT 1700000000000000000ull	/* 2023-11-14 22:13:20 UTC */

static pgwt_tf_dir_opts
dir_opts(void)
{
	pgwt_tf_dir_opts o;

	memset(&o, 0, sizeof(o));
	o.file.pg_version = 150004;
	o.file.group_gid = -1;
	o.file.clock.realtime_ns = tft_clk_rt;
	o.file.clock.monotonic_ns = tft_clk_mono;
	return o;
}

static void
path_of(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void
test_verdict_rule(void)
{
	char		why[200];

	CHECK(pgwt_tf_dir_verdict(0, 040750, 0, false, why, sizeof(why)) == 0);
	CHECK(pgwt_tf_dir_verdict(999, 040700, 999, false, why, sizeof(why)) == 0);
	/* root's own directory is fine for another effective user too */
	CHECK(pgwt_tf_dir_verdict(0, 040755, 999, false, why, sizeof(why)) == 0);
	CHECK(pgwt_tf_dir_verdict(999, 040700, 0, false, why, sizeof(why)) == -PGWT_TF_UNSAFE);
	CHECK(strstr(why, "owned by uid 999, not by root or uid 0"));
	CHECK(pgwt_tf_dir_verdict(0, 041777, 0, false, why, sizeof(why)) == -PGWT_TF_UNSAFE);
	CHECK(strstr(why, "writable by others (mode 1777)"));
	CHECK(pgwt_tf_dir_verdict(0, 040777, 0, false, why, sizeof(why)) == -PGWT_TF_UNSAFE);
	CHECK(pgwt_tf_dir_verdict(0, 040770, 0, false, why, sizeof(why)) == -PGWT_TF_UNSAFE);
	CHECK(strstr(why, "writable by its group (mode 0770)"));
	/* above the directory: sticky (/tmp) is fine, a plain 0777 is not */
	CHECK(pgwt_tf_dir_verdict(0, 041777, 0, true, why, sizeof(why)) == 0);
	CHECK(pgwt_tf_dir_verdict(0, 040777, 0, true, why, sizeof(why)) == -PGWT_TF_UNSAFE);
	CHECK(strstr(why, "without the sticky bit"));
	CHECK(pgwt_tf_dir_verdict(0, 040775, 0, true, why, sizeof(why)) == -PGWT_TF_UNSAFE);
	CHECK(pgwt_tf_dir_verdict(999, 040755, 0, true, why, sizeof(why)) == -PGWT_TF_UNSAFE);
	CHECK(pgwt_tf_dir_verdict(0, 040755, 999, true, NULL, 0) == 0);
}

static int
safe_open(const char *dir, bool create, char *why, size_t len)
{
	pgwt_tf_safe_dir_opts so;
	int			fd = -1;
	int			rc;

	memset(&so, 0, sizeof(so));
	so.create = create;
	so.group_gid = -1;
	rc = pgwt_tf_safe_dir_open(dir, &so, &fd, why, len);
	if (fd >= 0)
		close(fd);
	return rc;
}

static void
test_directory_checks(void)
{
	char		top[256],
				d[512],
				link[512],
				sub[600],
				why[1024];
	struct stat st;
	mode_t		um;

	tft_mkdtemp(top, sizeof(top));
	path_of(d, sizeof(d), top, "trace");
	/* created with the mode asked for, whatever the umask */
	um = umask(0077);
	CHECK(safe_open(d, true, why, sizeof(why)) == 0 && why[0] == '\0');
	umask(um);
	CHECK(stat(d, &st) == 0 && (st.st_mode & 07777) == 0750);
	CHECK(safe_open(d, false, why, sizeof(why)) == 0);

	CHECK(chmod(d, 01777) == 0);
	CHECKF(safe_open(d, false, why, sizeof(why)) == -PGWT_TF_UNSAFE &&
		   strstr(why, d) && strstr(why, "writable by others (mode 1777)"), "%s", why);
	CHECK(chmod(d, 0777) == 0);
	CHECK(safe_open(d, false, why, sizeof(why)) == -PGWT_TF_UNSAFE);
	CHECK(chmod(d, 0770) == 0);
	CHECKF(safe_open(d, false, why, sizeof(why)) == -PGWT_TF_UNSAFE &&
		   strstr(why, "writable by its group"), "%s", why);
	CHECK(chmod(d, 0750) == 0);

	/* a link to a good directory is refused: the path is not followed */
	path_of(link, sizeof(link), top, "link");
	CHECK(symlink(d, link) == 0);
	CHECKF(safe_open(link, false, why, sizeof(why)) == -PGWT_TF_UNSAFE &&
		   strstr(why, "symbolic link"), "%s", why);
	CHECK(safe_open(link, true, why, sizeof(why)) == -PGWT_TF_UNSAFE);

	/* a directory above that anyone may rename things in */
	CHECK(chmod(top, 0777) == 0);
	CHECKF(safe_open(d, false, why, sizeof(why)) == -PGWT_TF_UNSAFE &&
		   strstr(why, top) && strstr(why, "without the sticky bit"), "%s", why);
	CHECK(chmod(top, 01777) == 0);	/* like /tmp */
	CHECK(safe_open(d, false, why, sizeof(why)) == 0);
	CHECK(chmod(top, 0700) == 0);

	/* the path APIs check the same way */
	CHECK(chmod(d, 0777) == 0);
	{
		pgwt_tf_dir_opts o = dir_opts();
		pgwt_tf_dir_writer *w = NULL;
		pgwt_tf_backend b;

		memset(&b, 0, sizeof(b));
		CHECK(pgwt_tf_dir_open(d, &o, &w) == -PGWT_TF_UNSAFE && w == NULL);
		CHECK(pgwt_tf_backend_append(d, &o.file, &b) == -PGWT_TF_UNSAFE);
	}
	CHECK(chmod(d, 0750) == 0);

	/* another user's directory (needs root to make one) */
	if (geteuid() == 0)
	{
		snprintf(sub, sizeof(sub), "%s/theirs", d);
		CHECK(mkdir(sub, 0700) == 0 && chown(sub, 65534, 65534) == 0);
		CHECKF(safe_open(sub, false, why, sizeof(why)) == -PGWT_TF_UNSAFE &&
			   strstr(why, "owned by uid 65534") && strstr(why, sub), "%s", why);
		/* a link on the path belongs to whoever may repoint it */
		snprintf(sub, sizeof(sub), "%s/via", top);
		CHECK(symlink(top, sub) == 0 && lchown(sub, 65534, 65534) == 0);
		snprintf(sub, sizeof(sub), "%s/via/trace", top);
		CHECKF(safe_open(sub, false, why, sizeof(why)) == -PGWT_TF_UNSAFE &&
			   strstr(why, "the link") && strstr(why, "owned by uid 65534"), "%s", why);
		/* root's own link on the path is fine (/var/run -> /run) */
		snprintf(sub, sizeof(sub), "%s/via", top);
		CHECK(lchown(sub, 0, 0) == 0);
		snprintf(sub, sizeof(sub), "%s/via/trace", top);
		CHECKF(safe_open(sub, false, why, sizeof(why)) == 0, "%s", why);
		/* a trailing slash does not make the last link followed */
		snprintf(sub, sizeof(sub), "%s/link/", top);
		CHECK(safe_open(sub, false, why, sizeof(why)) == -PGWT_TF_UNSAFE);
	}
	else
		printf("# not root: the other-owner case is covered by the rule test only\n");
	tft_rmdir(top);
}

/* A file outside the directory that links point at. */
typedef struct victim
{
	char		path[512];
	struct stat st;
} victim;

static const char victim_text[] = "root:x:0:0:root:/root:/bin/bash\n";

static int
victim_make(victim *v, const char *top, const char *name)
{
	int			fd;

	path_of(v->path, sizeof(v->path), top, name);
	fd = open(v->path, O_WRONLY | O_CREAT | O_TRUNC, 0604);
	if (fd < 0 || write(fd, victim_text, strlen(victim_text)) != (ssize_t) strlen(victim_text))
		return -1;
	close(fd);
	if (chmod(v->path, 0604) < 0)
		return -1;
	return stat(v->path, &v->st);
}

static bool
victim_intact(const victim *v)
{
	char		buf[256];
	struct stat st;
	int			fd = open(v->path, O_RDONLY);
	ssize_t		n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return stat(v->path, &st) == 0 && n == (ssize_t) strlen(victim_text) &&
		memcmp(buf, victim_text, (size_t) n) == 0 && st.st_mode == v->st.st_mode &&
		st.st_uid == v->st.st_uid && st.st_gid == v->st.st_gid &&
		st.st_size == v->st.st_size && st.st_mtim.tv_sec == v->st.st_mtim.tv_sec &&
		st.st_mtim.tv_nsec == v->st.st_mtim.tv_nsec;
}

/* Every name the writers use, as a link to the victim. */
static const char *const planted[] = {
	"current.trace", "current.trace.meta", "current.trace.meta.tmp",
	"current.trace.sum", "current.trace.sum.meta", "current.trace.sum.meta.tmp",
	"backends.tsv", "backends.tsv.tmp", "queries.tsv", "queries.tsv.tmp",
	"blockers.tsv", "blockers.tsv.tmp", "events.tsv", "events.tsv.tmp",
	"2023-11-14_22.trace.lz4", "2023-11-14_22.trace.lz4.sum",
	"2023-11-14_23.trace.lz4", "2023-11-14_23.trace.lz4.sum",
};

static void
write_everything(const char *d, pgwt_tf_dir_opts *o)
{
	pgwt_tf_dir_writer *w;
	pgwt_tf_backend b;
	pgwt_tf_event_name ev = {0x0A000001, "IO", "DataFileRead"};
	pgwt_tf_file_opts so;
	const char blk[] = "5000\t42\t41\n";
	int			h,
				i;

	CHECK_RC(pgwt_tf_dir_open(d, o, &w));
	so = pgwt_tf_dir_side_opts(w);
	memset(&b, 0, sizeof(b));
	b.pid = 42;
	b.type = "client backend";
	for (h = 0; h < 3; h++)
	{
		for (i = 0; i < 50; i++)
		{
			pgwt_record r = tft_sample(tft_now_mono + (uint64_t) i * 1000, 42, 0x0A000001, 7, 1000);

			CHECK_RC(pgwt_tf_dir_append(w, &r));
		}
		CHECK_RC(pgwt_tf_dir_flush(w));
		CHECK_RC(pgwt_tf_backend_append_at(pgwt_tf_dir_writer_fd(w), &so, &b));
		/* twice: the repeat makes retention rewrite the file */
		for (i = 0; i < 2; i++)
			CHECK_RC(pgwt_tf_query_append_at(pgwt_tf_dir_writer_fd(w), &so,
											 PGWT_TF_QUERY_NORMALIZED, 7, "SELECT 'x'"));
		CHECK_RC(pgwt_tf_side_append_at(pgwt_tf_dir_writer_fd(w), PGWT_TF_BLOCKERS_NAME,
										&so, blk, strlen(blk)));
		CHECK_RC(pgwt_tf_events_write_at(pgwt_tf_dir_writer_fd(w), &so, 150004, &ev, 1));
		CHECK_RC(pgwt_tf_dir_apply_retention(w));
		tft_now_rt += HOUR_NS;
		tft_now_mono += HOUR_NS;
		CHECK_RC(pgwt_tf_dir_tick(w));
	}
	CHECK_RC(pgwt_tf_dir_close(w));
}

/* No name is left a link to the victim, and each side file reads back. */
static void
check_names(const char *d, const victim *v)
{
	DIR		   *dh = opendir(d);
	struct dirent *de;

	CHECK(dh != NULL);
	while ((de = readdir(dh)) != NULL)
	{
		char		p[600];
		struct stat st;

		path_of(p, sizeof(p), d, de->d_name);
		CHECK(lstat(p, &st) == 0);
		/* links may only stay aside (.bad-) or under names no writer uses */
		if (S_ISLNK(st.st_mode) && !strstr(de->d_name, ".bad-"))
		{
			size_t		k;
			bool		ours = false;

			/* archive names and temporary names a pass did not need are
			 * left as they are: never followed, only not reused */
			for (k = 0; k < sizeof(planted) / sizeof(planted[0]); k++)
				ours |= strcmp(planted[k], de->d_name) == 0 &&
					strstr(de->d_name, ".trace.lz4") == NULL &&
					strstr(de->d_name, ".tmp") == NULL;
			if (ours)
				closedir(dh);
			CHECKF(!ours, "%s is still a link", de->d_name);
		}
	}
	closedir(dh);
	CHECK(victim_intact(v));
}

static int
count_q(uint64_t id, pgwt_tf_query_mode m, bool t, const char *text, void *arg)
{
	(void) id;
	(void) m;
	(void) t;
	(void) text;
	++*(int *) arg;
	return 0;
}

static void
test_planted_links_untouched(void)
{
	char		top[256],
				d[512];
	victim		v;
	pgwt_tf_dir_opts o = dir_opts();
	size_t		k;
	int			nq = 0;
	uint64_t	bad = 0;

	tft_mkdtemp(top, sizeof(top));
	CHECK(victim_make(&v, top, "passwd") == 0);
	path_of(d, sizeof(d), top, "trace");
	CHECK(mkdir(d, 0700) == 0);
	for (k = 0; k < sizeof(planted) / sizeof(planted[0]); k++)
	{
		char		p[600];

		path_of(p, sizeof(p), d, planted[k]);
		CHECK(symlink(v.path, p) == 0);
	}
	tft_now_rt = BASE_RT;
	tft_now_mono = 1000;
	o.retention_hours = 2;
	o.retention_bytes = 1 << 20;
	write_everything(d, &o);
	if (tft_current_failed)
		return;
	check_names(d, &v);
	CHECK(pgwt_tf_queries_read(d, count_q, &nq, &bad) == 0 && nq >= 1);
	tft_rmdir(top);
}

/* A hard link under our name is as foreign as a symbolic one. */
static void
test_hard_links_untouched(void)
{
	char		top[256],
				d[512],
				p[600];
	victim		v;
	pgwt_tf_dir_opts o = dir_opts();
	const char *names[] = {"queries.tsv", "backends.tsv", "blockers.tsv", "current.trace"};
	size_t		k;

	tft_mkdtemp(top, sizeof(top));
	CHECK(victim_make(&v, top, "shadow") == 0);
	path_of(d, sizeof(d), top, "trace");
	CHECK(mkdir(d, 0700) == 0);
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
	{
		path_of(p, sizeof(p), d, names[k]);
		CHECK(link(v.path, p) == 0);
	}
	CHECK(stat(v.path, &v.st) == 0);	/* its link count changed */
	tft_now_rt = BASE_RT;
	tft_now_mono = 1000;
	o.retention_hours = 2;
	write_everything(d, &o);
	if (tft_current_failed)
		return;
	CHECK(victim_intact(&v));
	tft_rmdir(top);
}

/* An append past the bound is refused and the file stays within it. */
static void
test_side_bound_refuses(void)
{
	char		d[256],
				p[600];
	pgwt_tf_file_opts fo;
	struct stat st;
	int			i,
				full = 0;

	tft_mkdtemp(d, sizeof(d));
	memset(&fo, 0, sizeof(fo));
	fo.group_gid = -1;
	fo.side_max_bytes = 1000;
	for (i = 0; i < 100; i++)
	{
		int			rc = pgwt_tf_query_append(d, &fo, PGWT_TF_QUERY_NORMALIZED,
											  (uint64_t) i + 1, "SELECT a, b, c FROM t WHERE x = 1");

		CHECK(rc == 0 || rc == -PGWT_TF_FULL);
		full += rc == -PGWT_TF_FULL;
	}
	path_of(p, sizeof(p), d, "queries.tsv");
	CHECK(stat(p, &st) == 0 && st.st_size <= 1000 && st.st_size > 900);
	CHECK(full > 70);
	tft_rmdir(d);
}

static uint64_t
dir_bytes(const char *d)
{
	DIR		   *dh = opendir(d);
	struct dirent *de;
	uint64_t	sum = 0;

	while ((de = readdir(dh)) != NULL)
	{
		char		p[600];
		struct stat st;

		path_of(p, sizeof(p), d, de->d_name);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
			sum += (uint64_t) st.st_size;
	}
	closedir(dh);
	return sum;
}

/*
 * The size cap counts side files: texts that fill half the cap push out
 * archives, and a side file over its bound is cut to its newest lines.
 */
static void
test_cap_counts_side_files(void)
{
	char		d[256];
	pgwt_tf_dir_opts o = dir_opts();
	pgwt_tf_dir_writer *w;
	pgwt_tf_file_opts so;
	uint64_t	rng = 99;
	char		text[200];
	int			h,
				i;

	tft_mkdtemp(d, sizeof(d));
	tft_now_rt = BASE_RT;
	tft_now_mono = 1000;
	o.retention_bytes = 800000;
	CHECK_RC(pgwt_tf_dir_open(d, &o, &w));
	so = pgwt_tf_dir_side_opts(w);
	CHECK(so.side_max_bytes == 100000);
	for (h = 0; h < 6; h++)
	{
		for (i = 0; i < 20000; i++)
		{
			pgwt_record r = tft_sample(tft_now_mono + (uint64_t) i * 100000, (uint32_t) (tft_rand(&rng) % 500),
									   (uint32_t) (tft_rand(&rng) % 7) + 0x0A000001, tft_rand(&rng) % 50 + 1, 1000);

			CHECK_RC(pgwt_tf_dir_append(w, &r));
		}
		/* far more text than the bound */
		for (i = 0; i < 2000; i++)
		{
			int			rc;

			snprintf(text, sizeof(text), "SELECT c%d, c%d FROM wide_table_%d", i, h, i);
			rc = pgwt_tf_query_append_at(pgwt_tf_dir_writer_fd(w), &so, PGWT_TF_QUERY_NORMALIZED,
										 tft_rand(&rng), text);
			CHECK(rc == 0 || rc == -PGWT_TF_FULL);
		}
		CHECK_RC(pgwt_tf_dir_flush(w));
		tft_now_rt += HOUR_NS;
		tft_now_mono += HOUR_NS;
		CHECK_RC(pgwt_tf_dir_tick(w));
		CHECK_RC(pgwt_tf_dir_apply_retention(w));
		CHECKF(dir_bytes(d) <= o.retention_bytes, "hour %d: %llu bytes", h,
			   (unsigned long long) dir_bytes(d));
	}
	CHECK(pgwt_tf_dir_writer_stats(w)->deleted > 0);
	CHECK(pgwt_tf_dir_writer_stats(w)->side_lines_trimmed > 0);
	CHECK_RC(pgwt_tf_dir_close(w));
	tft_rmdir(d);
}

int
main(void)
{
	RUN(test_verdict_rule);
	RUN(test_directory_checks);
	RUN(test_planted_links_untouched);
	RUN(test_hard_links_untouched);
	RUN(test_side_bound_refuses);
	RUN(test_cap_counts_side_files);
	return TFT_END();
}
