/*
 * test_control.c
 *		Unit and socket tests of the control protocol: the JSON subset, the
 *		answers to each command, the Prometheus text, and the live sockets
 *		(mode 0600, a stalled client never blocks another, oversized and
 *		malformed requests answered with errors, loopback-only HTTP); who
 *		may talk (peer classes; as root also real peers of other uids and
 *		groups); the socket file never made or removed through a planted
 *		file; per-listener pools, idle, slow-request and slow-reader bounds.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracer/control/control.h"

static int	tc_failures;

#define CHECK(name, cond, ...) do { \
	if (cond) printf("PASS %s\n", name); \
	else { printf("FAIL %s: ", name); printf(__VA_ARGS__); printf("\n"); tc_failures++; } \
} while (0)
#define SKIP(name, why) printf("SKIP %s: %s\n", name, why)

static long long tc_last_escalate;

static void
tc_status(void *arg, pgwt_json_out *o)
{
	pgwt_json_str(o, "mode", "tiered");
	pgwt_json_str(o, "tier", "sampled");
	pgwt_json_int(o, "backends", 3);
}

static size_t
tc_metrics(void *arg, pgwt_metric *m, size_t max)
{
	m[0] = (pgwt_metric) {"samples_total", "Samples taken", true, 1234, NULL};
	m[1] = (pgwt_metric) {"backends_tracked", "Backends watched now", false, 3, NULL};
	return 2;
}

static void
tc_escalate(void *arg, long long d, pgwt_json_out *o)
{
	tc_last_escalate = d;
	pgwt_json_bool(o, "ok", true);
	pgwt_json_bool(o, "escalated", true);
	pgwt_json_int(o, "granted_s", d > 300 ? 300 : d);
}

static int	tc_deescalates;

static void
tc_deescalate(void *arg, pgwt_json_out *o)
{
	tc_deescalates++;
	pgwt_json_bool(o, "ok", true);
}

static size_t
tc_metrics_prom(void *arg, pgwt_metric *m, size_t max)
{
	m[0] = (pgwt_metric) {"rate_per_sec", "a rate since start", false, 2, ""};
	m[1] = (pgwt_metric) {"budget_s", "seconds left", false, 30, "budget_seconds"};
	return 2;
}

static size_t
tc_series(void *arg, pgwt_wait_series *s, size_t max)
{
	memset(s, 0, 2 * sizeof(*s));
	strcpy(s[0].wait_event_type, "Timeout");
	strcpy(s[0].wait_event, "PgSleep");
	s[0].seconds = 1.5;
	s[0].samples = 15;
	strcpy(s[1].wait_event_type, "Extension");
	strcpy(s[1].wait_event, "x\"} y");
	return 2;
}

static const pgwt_control_ops tc_ops = {tc_status, tc_metrics, NULL, tc_escalate, tc_deescalate, NULL};
static const pgwt_control_ops tc_ops_series = {tc_status, tc_metrics_prom, tc_series, tc_escalate, tc_deescalate, NULL};

static const char *
answer(const char *req)
{
	static char buf[8192];

	if (pgwt_control_answer(&tc_ops, req, strlen(req), buf, sizeof(buf)) < 0)
		return "(overflow)";
	return buf;
}

static void
test_json(void)
{
	pgwt_json_obj o;
	char		err[128];
	const pgwt_json_field *f;
	char		buf[128];
	pgwt_json_out w;

	const char *flat = "{\"cmd\":\"escalate\",\"duration_s\":30, \"x\":true,\"y\":null}";

	CHECK("json-flat", pgwt_json_parse(flat, strlen(flat), &o, err, sizeof(err)) == 0 &&
		  o.nfields == 4 && (f = pgwt_json_get(&o, "duration_s")) && f->num == 30 &&
		  pgwt_json_get(&o, "x")->boolean, "%s", err);
	CHECK("json-empty", pgwt_json_parse(" {} ", 4, &o, err, sizeof(err)) == 0 && o.nfields == 0, "%s", err);
	CHECK("json-nested-refused", pgwt_json_parse("{\"a\":{\"b\":1}}", 13, &o, err, sizeof(err)) != 0 &&
		  strstr(err, "nested"), "%s", err);
	CHECK("json-trailing-refused", pgwt_json_parse("{} x", 4, &o, err, sizeof(err)) != 0, "accepted");
	CHECK("json-duplicate-refused", pgwt_json_parse("{\"a\":1,\"a\":2}", 13, &o, err, sizeof(err)) != 0, "accepted");
	CHECK("json-unterminated", pgwt_json_parse("{\"a\":\"xx", 8, &o, err, sizeof(err)) != 0, "accepted");
	CHECK("json-bad-number", pgwt_json_parse("{\"a\":1e999}", 11, &o, err, sizeof(err)) != 0 &&
		  pgwt_json_parse("{\"a\":-}", 7, &o, err, sizeof(err)) != 0, "accepted");
	CHECK("json-escapes", pgwt_json_parse("{\"a\":\"q\\\"\\n\\u0041\"}", 19, &o, err, sizeof(err)) == 0 &&
		  strcmp(o.fields[0].str, "q\"\nA") == 0, "%s", err);
	CHECK("json-nul-escape-refused", pgwt_json_parse("{\"a\":\"\\u0000\"}", 14, &o, err, sizeof(err)) != 0, "accepted");
	CHECK("json-embedded-nul", pgwt_json_parse("{\"a\":\"x\0y\"}", 11, &o, err, sizeof(err)) != 0, "accepted");

	pgwt_json_begin(&w, buf, sizeof(buf));
	pgwt_json_str(&w, "e", "a\"b\\c\x01");
	pgwt_json_int(&w, "n", -5);
	CHECK("json-writer-escapes", pgwt_json_end(&w) > 0 &&
		  strcmp(buf, "{\"e\":\"a\\\"b\\\\c\\u0001\",\"n\":-5}\n") == 0, "%s", buf);
	pgwt_json_begin(&w, buf, 8);
	pgwt_json_str(&w, "long", "xxxxxxxxxxxxxxxx");
	CHECK("json-writer-overflow", pgwt_json_end(&w) == -1, "no overflow reported");
}

static void
test_answers(void)
{
	CHECK("ctl-status", strstr(answer("{\"cmd\":\"status\"}"), "\"ok\":true,\"mode\":\"tiered\""), "%s", answer("{\"cmd\":\"status\"}"));
	CHECK("ctl-metrics", strstr(answer("{\"cmd\":\"metrics\"}"), "\"samples_total\":1234"), "%s", answer("{\"cmd\":\"metrics\"}"));
	CHECK("ctl-escalate", strstr(answer("{\"cmd\":\"escalate\",\"duration_s\":30}"), "\"granted_s\":30") &&
		  tc_last_escalate == 30, "%s", answer("{\"cmd\":\"escalate\",\"duration_s\":30}"));
	tc_last_escalate = 0;
	CHECK("ctl-escalate-bad-duration", strstr(answer("{\"cmd\":\"escalate\",\"duration_s\":-3}"), "\"ok\":false") &&
		  strstr(answer("{\"cmd\":\"escalate\",\"duration_s\":2.5}"), "whole number") &&
		  strstr(answer("{\"cmd\":\"escalate\"}"), "duration_s") && tc_last_escalate == 0, "accepted");
	CHECK("ctl-unknown-cmd", strstr(answer("{\"cmd\":\"reboot\"}"), "unknown cmd"), "%s", answer("{\"cmd\":\"reboot\"}"));
	CHECK("ctl-missing-cmd", strstr(answer("{\"duration_s\":3}"), "missing"), "accepted");
	CHECK("ctl-malformed", strstr(answer("hello"), "malformed request"), "%s", answer("hello"));
	{
		char		buf[4096];
		long		n = pgwt_control_prometheus(&tc_ops, buf, sizeof(buf));

		CHECK("ctl-prometheus", n > 0 && strstr(buf, "# TYPE pgwt_samples_total counter\npgwt_samples_total 1234\n") &&
			  strstr(buf, "# TYPE pgwt_backends_tracked gauge"), "%s", buf);
	}
	{
		/* a hostile name from the database: escaped, never raw */
		char		buf[64];

		pgwt_control_prom_escape("a\"b\\c\nd\x01\xc3", buf, sizeof(buf));
		CHECK("ctl-prom-escape", strcmp(buf, "a\\\"b\\\\c\\nd??") == 0, "%s", buf);
		pgwt_control_prom_escape("abc\"", buf, 5);
		CHECK("ctl-prom-escape-cut", strcmp(buf, "abc") == 0, "%s", buf);
	}
	{
		char		buf[8192];
		long		n = pgwt_control_prometheus(&tc_ops_series, buf, sizeof(buf));

		CHECK("ctl-prometheus-series", n > 0 &&
			  strstr(buf, "# TYPE pgwt_wait_seconds_total counter\n"
					 "pgwt_wait_seconds_total{wait_event_type=\"Timeout\",wait_event=\"PgSleep\"} 1.5\n") &&
			  strstr(buf, "pgwt_wait_samples_total{wait_event_type=\"Timeout\",wait_event=\"PgSleep\"} 15\n") &&
			  strstr(buf, "pgwt_waits_total{wait_event_type=\"Extension\",wait_event=\"x\\\"} y\"} 0\n") &&
			  !strstr(buf, "pgwt_rate_per_sec") && strstr(buf, "pgwt_budget_seconds 30\n"), "%s", buf);
		CHECK("ctl-prometheus-too-small", pgwt_control_prometheus(&tc_ops_series, buf, 300) == -1, "fit in 300 bytes");
	}
}

static volatile int tc_stop;

static void *
tc_server(void *arg)
{
	while (!tc_stop)
		pgwt_control_service(arg, 20);
	return NULL;
}

static int
tc_connect(const char *path)
{
	struct sockaddr_un sa;
	int			fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct timeval tv = {2, 0};

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) != 0)
	{
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int
tc_roundtrip(int fd, const char *req, char *out, size_t cap)
{
	size_t		n = 0;

	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0)
		return -1;
	while (n + 1 < cap)
	{
		ssize_t		r = recv(fd, out + n, cap - 1 - n, 0);

		if (r <= 0)
			break;
		n += (size_t) r;
		if (out[n - 1] == '\n')
			break;
	}
	out[n] = '\0';
	return (int) n;
}

static void
test_sockets(void)
{
	char		dir[] = "/tmp/pgwt-ctl-XXXXXX";
	char		path[256];
	char		err[256];
	char		buf[8192];
	pgwt_control *c;
	pthread_t	th;
	struct stat st;
	int			stalled,
				good,
				big;
	char	   *huge;
	int			port = 20000 + (int) (getpid() % 20000);
	char		listen_spec[64];

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/pgwt.sock", dir);
	CHECK("ctl-refuses-public-listen", pgwt_control_open(&c, path, "0.0.0.0:9187", &tc_ops, err, sizeof(err)) != 0 &&
		  strstr(err, "loopback"), "%s", err);
	CHECK("ctl-refuses-private-listen", pgwt_control_open(&c, path, "10.1.2.3:9187", &tc_ops, err, sizeof(err)) != 0,
		  "accepted");
	snprintf(listen_spec, sizeof(listen_spec), "127.0.0.1:%d", port);
	if (pgwt_control_open(&c, path, listen_spec, &tc_ops, err, sizeof(err)) != 0)
	{
		printf("FAIL ctl-open: %s\n", err);
		tc_failures++;
		return;
	}
	CHECK("ctl-socket-mode-0600", stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
	pthread_create(&th, NULL, tc_server, c);

	/* A client that sends half a line and never finishes must not block. */
	stalled = tc_connect(path);
	CHECK("ctl-stalled-client-connects", stalled >= 0 && send(stalled, "{\"cmd\":\"sta", 11, 0) == 11, "no");
	good = tc_connect(path);
	CHECK("ctl-other-client-served", good >= 0 && tc_roundtrip(good, "{\"cmd\":\"status\"}\n", buf, sizeof(buf)) > 0 &&
		  strstr(buf, "\"ok\":true"), "got '%s'", buf);
	CHECK("ctl-two-requests-one-connection", tc_roundtrip(good, "{\"cmd\":\"metrics\"}\n", buf, sizeof(buf)) > 0 &&
		  strstr(buf, "samples_total"), "got '%s'", buf);
	CHECK("ctl-malformed-live", tc_roundtrip(good, "{oops\n", buf, sizeof(buf)) > 0 && strstr(buf, "\"ok\":false"),
		  "got '%s'", buf);

	big = tc_connect(path);
	huge = malloc(10000);
	memset(huge, 'x', 9999);
	huge[9999] = '\0';
	CHECK("ctl-oversized-refused", big >= 0 && tc_roundtrip(big, huge, buf, sizeof(buf)) > 0 &&
		  strstr(buf, "longer than"), "got '%s'", buf);
	/* Closed with our bytes unread: an orderly EOF or a reset. */
	CHECK("ctl-oversized-closed", recv(big, buf, sizeof(buf), 0) <= 0, "still open");
	free(huge);
	CHECK("ctl-still-serving", tc_roundtrip(good, "{\"cmd\":\"status\"}\n", buf, sizeof(buf)) > 0 &&
		  strstr(buf, "\"ok\":true"), "got '%s'", buf);

	{
		int			h = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in sa;
		struct timeval tv = {2, 0};

		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_port = htons((uint16_t) port);
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		setsockopt(h, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		CHECK("ctl-http-metrics", connect(h, (struct sockaddr *) &sa, sizeof(sa)) == 0 &&
			  tc_roundtrip(h, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0 &&
			  strstr(buf, "200 OK") && strstr(buf, "version=0.0.4"), "got '%s'", buf);
		{
			size_t		n = strlen(buf);
			ssize_t		r;

			while ((r = recv(h, buf + n, sizeof(buf) - 1 - n, 0)) > 0)
				n += (size_t) r;
			buf[n] = '\0';
		}
		CHECK("ctl-http-body", strstr(buf, "pgwt_samples_total 1234"), "got '%s'", buf);
		close(h);
	}

	tc_stop = 1;
	pthread_join(th, NULL);
	close(stalled);
	close(good);
	close(big);
	pgwt_control_close(c);
	CHECK("ctl-socket-removed", stat(path, &st) != 0, "socket file left behind");
	rmdir(dir);
}

/* ---- who may talk: the pure rule and the answers by class ---------------- */

static void
test_peer_rules(void)
{
	gid_t		member[] = {1000, 4243};
	gid_t		primary[] = {4243};
	gid_t		other[] = {1000};
	gid_t		rootgrp[] = {0};
	char		buf[1024];
	const char *esc = "{\"cmd\":\"escalate\",\"duration_s\":30}";
	const char *de = "{\"cmd\":\"deescalate\"}";

	CHECK("peer-root-admin", pgwt_control_peer_class(0, other, 1, 0, 4243) == PGWT_PEER_ADMIN, "no");
	CHECK("peer-daemon-user-admin", pgwt_control_peer_class(77, other, 1, 77, (gid_t) -1) == PGWT_PEER_ADMIN, "no");
	CHECK("peer-group-member-reader", pgwt_control_peer_class(1000, member, 2, 0, 4243) == PGWT_PEER_READER, "no");
	CHECK("peer-primary-group-reader", pgwt_control_peer_class(1000, primary, 1, 0, 4243) == PGWT_PEER_READER, "no");
	CHECK("peer-stranger-refused", pgwt_control_peer_class(1000, other, 1, 0, 4243) == PGWT_PEER_REFUSED, "no");
	CHECK("peer-no-readers-group", pgwt_control_peer_class(1000, member, 2, 0, (gid_t) -1) == PGWT_PEER_REFUSED, "no");
	CHECK("peer-root-group-is-no-readers-group",
		  pgwt_control_peer_class(1000, rootgrp, 1, 0, 0) == PGWT_PEER_REFUSED, "no");

	tc_last_escalate = 0;
	tc_deescalates = 0;
	CHECK("reader-may-not-escalate",
		  pgwt_control_answer_as(&tc_ops, PGWT_PEER_READER, esc, strlen(esc), buf, sizeof(buf)) > 0 &&
		  strstr(buf, "\"ok\":false") && strstr(buf, "only root") && tc_last_escalate == 0, "%s", buf);
	CHECK("reader-may-not-deescalate",
		  pgwt_control_answer_as(&tc_ops, PGWT_PEER_READER, de, strlen(de), buf, sizeof(buf)) > 0 &&
		  strstr(buf, "\"ok\":false") && tc_deescalates == 0, "%s", buf);
	CHECK("reader-reads-status",
		  pgwt_control_answer_as(&tc_ops, PGWT_PEER_READER, "{\"cmd\":\"status\"}", 16, buf, sizeof(buf)) > 0 &&
		  strstr(buf, "\"ok\":true,\"mode\":\"tiered\""), "%s", buf);
	CHECK("reader-reads-metrics",
		  pgwt_control_answer_as(&tc_ops, PGWT_PEER_READER, "{\"cmd\":\"metrics\"}", 17, buf, sizeof(buf)) > 0 &&
		  strstr(buf, "\"samples_total\":1234"), "%s", buf);
	CHECK("refused-peer-gets-nothing",
		  pgwt_control_answer_as(&tc_ops, PGWT_PEER_REFUSED, "{\"cmd\":\"status\"}", 16, buf, sizeof(buf)) > 0 &&
		  strstr(buf, "\"ok\":false") && !strstr(buf, "tiered"), "%s", buf);
	CHECK("admin-escalates", pgwt_control_answer_as(&tc_ops, PGWT_PEER_ADMIN, esc, strlen(esc), buf, sizeof(buf)) > 0 &&
		  tc_last_escalate == 30, "%s", buf);
}

/* ---- the socket file: never made or removed through a planted file ------- */

static int
tc_write_file(const char *path, const char *text, mode_t mode)
{
	int			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode);
	ssize_t		w;

	if (fd < 0)
		return -1;
	w = write(fd, text, strlen(text));
	close(fd);
	return w == (ssize_t) strlen(text) ? 0 : -1;
}

/* The file holds text, with this mode and inode. */
static bool
tc_file_is(const char *path, const char *text, mode_t mode, ino_t ino)
{
	char		buf[256];
	int			fd = open(path, O_RDONLY | O_NOFOLLOW);
	ssize_t		n;
	struct stat st;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	fstat(fd, &st);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, text) == 0 && (st.st_mode & 07777) == mode && st.st_ino == ino;
}

static int
tc_bind_unix(const char *path, bool do_listen)
{
	struct sockaddr_un sa;
	int			fd = socket(AF_UNIX, SOCK_STREAM, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) != 0 || (do_listen && listen(fd, 4) != 0))
	{
		close(fd);
		return -1;
	}
	return fd;
}

static void
test_socket_file_plants(const char *dir, const char *path)
{
	char		victim[300],
				elsewhere[300],
				err[256];
	pgwt_control *c = NULL;
	struct stat st,
				vst;
	int			fd;

	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere.sock", dir);
	tc_write_file(victim, "keep me\n", 0644);
	stat(victim, &vst);

	/* a symlink planted at the socket's name, to a file of root's */
	symlink(victim, path);
	CHECK("sockfile-symlink-refused", pgwt_control_open(&c, path, NULL, &tc_ops, err, sizeof(err)) != 0 &&
		  strstr(err, "not a socket"), "opened (%s)", err);
	CHECK("sockfile-symlink-target-untouched", tc_file_is(victim, "keep me\n", 0644, vst.st_ino) &&
		  lstat(path, &st) == 0 && S_ISLNK(st.st_mode), "target or link changed");
	unlink(path);

	/* a dangling symlink: bind must not create the socket at its target */
	symlink(elsewhere, path);
	CHECK("sockfile-dangling-symlink-refused", pgwt_control_open(&c, path, NULL, &tc_ops, err, sizeof(err)) != 0 &&
		  lstat(elsewhere, &st) != 0, "a file appeared at the link's target (%s)", err);
	unlink(path);

	/* a regular file */
	tc_write_file(path, "data\n", 0600);
	stat(path, &st);
	CHECK("sockfile-regular-file-refused", pgwt_control_open(&c, path, NULL, &tc_ops, err, sizeof(err)) != 0 &&
		  tc_file_is(path, "data\n", 0600, st.st_ino), "replaced (%s)", err);
	unlink(path);

	/* a socket no one listens on (a daemon killed -9): replaced */
	fd = tc_bind_unix(path, false);
	close(fd);
	CHECK("sockfile-stale-socket-replaced", fd >= 0 && pgwt_control_open(&c, path, NULL, &tc_ops, err, sizeof(err)) == 0,
		  "%s", err);
	if (c)
		pgwt_control_close(c);
	c = NULL;
	CHECK("sockfile-removed-at-close", lstat(path, &st) != 0, "left behind");

	/* a socket someone serves (another daemon): left alone */
	fd = tc_bind_unix(path, true);
	lstat(path, &vst);
	CHECK("sockfile-live-socket-refused", fd >= 0 && pgwt_control_open(&c, path, NULL, &tc_ops, err, sizeof(err)) != 0 &&
		  strstr(err, "another process") && lstat(path, &st) == 0 && st.st_ino == vst.st_ino, "%s", err);
	close(fd);
	unlink(path);

	/* at close, a file that replaced our socket is not removed */
	if (pgwt_control_open(&c, path, NULL, &tc_ops, err, sizeof(err)) == 0)
	{
		unlink(path);
		tc_write_file(path, "theirs\n", 0600);
		stat(path, &st);
		pgwt_control_close(c);
		CHECK("sockfile-close-leaves-foreign-file", tc_file_is(path, "theirs\n", 0600, st.st_ino), "removed");
		unlink(path);
	}
	else
		CHECK("sockfile-close-leaves-foreign-file", false, "%s", err);
	unlink(victim);
}

static void
test_socket_file(void)
{
	char		dir[] = "/tmp/pgwt-ctlf-XXXXXX";
	char		path[300],
				deep[400],
				err[256];
	pgwt_control *c = NULL;
	struct stat st;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/pgwt.sock", dir);
	test_socket_file_plants(dir, path);

	/* longer than sun_path: bound through the opened directory */
	snprintf(deep, sizeof(deep), "%s/%0120d", dir, 7);
	mkdir(deep, 0700);
	strcat(deep, "/pgwt.sock");
	CHECK("sockfile-long-path", pgwt_control_open(&c, deep, NULL, &tc_ops, err, sizeof(err)) == 0 &&
		  lstat(deep, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600, "%s", err);
	if (c)
		pgwt_control_close(c);
	c = NULL;
	*strrchr(deep, '/') = '\0';
	rmdir(deep);

	/* open_at: in the directory the caller opened, whatever its path names now */
	{
		char		sub[320],
					moved[320],
					sp[340],
					mp[340];
		int			dfd;

		snprintf(sub, sizeof(sub), "%s/sub", dir);
		snprintf(moved, sizeof(moved), "%s/moved", dir);
		snprintf(sp, sizeof(sp), "%s/pgwt.sock", sub);
		snprintf(mp, sizeof(mp), "%s/pgwt.sock", moved);
		mkdir(sub, 0700);
		dfd = open(sub, O_RDONLY | O_DIRECTORY);
		rename(sub, moved);
		mkdir(sub, 0700);
		CHECK("sockfile-open-at-checked-dir", pgwt_control_open_at(&c, dfd, "pgwt.sock", sp, NULL, &tc_ops,
																	 err, sizeof(err)) == 0 &&
			  lstat(mp, &st) == 0 && S_ISSOCK(st.st_mode) && lstat(sp, &st) != 0, "%s", err);
		if (c)
			pgwt_control_close(c);
		c = NULL;
		CHECK("sockfile-open-at-removed", lstat(mp, &st) != 0, "left behind");
		CHECK("sockfile-open-at-bad-name", pgwt_control_open_at(&c, dfd, "../x", sp, NULL, &tc_ops,
																  err, sizeof(err)) != 0, "accepted");
		close(dfd);
		rmdir(sub);
		rmdir(moved);
	}

	if (geteuid() != 0)
		SKIP("sockfile-group-0660", "needs root (chgrp of the directory)");
	else
	{
		/* a group that may enter the directory gets the socket, 0660 */
		chown(dir, (uid_t) -1, 4243);
		chmod(dir, 0750);
		CHECK("sockfile-group-0660", pgwt_control_open(&c, path, NULL, &tc_ops, err, sizeof(err)) == 0 &&
			  lstat(path, &st) == 0 && (st.st_mode & 0777) == 0660 && st.st_gid == 4243,
			  "%s mode %o gid %u", err, st.st_mode & 0777, (unsigned) st.st_gid);
		if (c)
			pgwt_control_close(c);
		c = NULL;
		/* a group that cannot enter it gets nothing */
		chmod(dir, 0700);
		CHECK("sockfile-no-group-0600", pgwt_control_open(&c, path, NULL, &tc_ops, err, sizeof(err)) == 0 &&
			  lstat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "%s mode %o", err, st.st_mode & 0777);
		if (c)
			pgwt_control_close(c);
		c = NULL;
		chown(dir, (uid_t) -1, 0);
	}
	rmdir(dir);
}

/* ---- pools and bounds ----------------------------------------------------- */

static int
tc_free_port(void)
{
	int			fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa;
	socklen_t	sl = sizeof(sa);
	int			port = -1;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0 &&
		getsockname(fd, (struct sockaddr *) &sa, &sl) == 0)
		port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

static int
tc_tcp(int port)
{
	int			h = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa;
	struct timeval tv = {2, 0};

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t) port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(h, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(h, (struct sockaddr *) &sa, sizeof(sa)) != 0)
	{
		close(h);
		return -1;
	}
	return h;
}

static double
tc_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
tc_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* The server closed fd: readable at once, and EOF or an error after any data. */
static bool
tc_closed(int fd)
{
	char		buf[4096];
	struct pollfd p = {.fd = fd, .events = POLLIN};

	for (;;)
	{
		ssize_t		r;

		if (poll(&p, 1, 0) <= 0)
			return false;
		r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			return true;
		if (r < 0)
			return false;
	}
}

/* Reads until EOF, an error or the receive timeout; the text read, EOF seen. */
static bool
tc_read_to_eof(int fd, char *out, size_t cap)
{
	size_t		n = 0;

	for (;;)
	{
		char		tmp[4096];
		ssize_t		r = recv(fd, tmp, sizeof(tmp), 0);

		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			break;
		if (r < 0)
			return false;		/* timed out: still open */
		if (n + 1 < cap)
		{
			size_t		k = (size_t) r < cap - 1 - n ? (size_t) r : cap - 1 - n;

			memcpy(out + n, tmp, k);
			n += k;
		}
	}
	out[n] = '\0';
	return true;
}

static void
test_pools_idle_http(const char *path, int port)
{
	int			idle[40];
	int			good,
				h,
				closed = 0;
	char		buf[8192];
	double		t0,
				dt;

	for (int i = 0; i < 40; i++)
		idle[i] = tc_tcp(port);
	tc_sleep_ms(100);
	t0 = tc_ms();
	good = tc_connect(path);
	dt = tc_ms() - t0;
	CHECK("pool-unix-status-with-40-idle-http", good >= 0 &&
		  tc_roundtrip(good, "{\"cmd\":\"status\"}\n", buf, sizeof(buf)) > 0 &&
		  strstr(buf, "\"ok\":true") && (dt = tc_ms() - t0) < 1000, "got '%s' after %.0f ms", buf, dt);
	close(good);
	h = tc_tcp(port);
	CHECK("pool-fresh-scrape-with-40-idle-http", h >= 0 &&
		  tc_roundtrip(h, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0 && strstr(buf, "200 OK"),
		  "got '%s'", buf);
	close(h);
	/* past the request bound (500 ms here): every idle one is gone */
	tc_sleep_ms(1200);
	for (int i = 0; i < 40; i++)
	{
		closed += idle[i] >= 0 && tc_closed(idle[i]);
		close(idle[i]);
	}
	CHECK("pool-idle-http-closed", closed == 40, "%d of 40 closed", closed);
}

static void
test_pools_unix(const char *path)
{
	int			u[5],
				s;
	char		buf[8192];
	double		t0,
				dt;
	bool		open_ok = true;

	/* a client that says nothing is told why, and closed */
	s = tc_connect(path);
	t0 = tc_ms();
	CHECK("pool-silent-unix-closed", s >= 0 && tc_read_to_eof(s, buf, sizeof(buf)) &&
		  strstr(buf, "no complete request in time") && (dt = tc_ms() - t0) > 300 && dt < 1500,
		  "got '%s' after %.0f ms", buf, tc_ms() - t0);
	close(s);

	/* one byte every 100 ms does not extend the bound */
	s = tc_connect(path);
	t0 = tc_ms();
	for (int i = 0; i < 30 && open_ok; i++)
	{
		struct pollfd p = {.fd = s, .events = POLLIN};

		open_ok = send(s, "{", 1, MSG_NOSIGNAL) == 1 && poll(&p, 1, 100) == 0;
	}
	dt = tc_ms() - t0;
	CHECK("pool-slow-request-closed", !open_ok && dt < 1500, "still open after %.0f ms", dt);
	close(s);

	/* a full pool: the newcomer is served, the longest idle is told why it goes */
	for (int i = 0; i < 4; i++)
	{
		u[i] = tc_connect(path);
		tc_sleep_ms(20);
	}
	u[4] = tc_connect(path);
	CHECK("pool-unix-full-serves-newcomer", u[4] >= 0 &&
		  tc_roundtrip(u[4], "{\"cmd\":\"status\"}\n", buf, sizeof(buf)) > 0 && strstr(buf, "\"ok\":true"),
		  "got '%s'", buf);
	CHECK("pool-unix-full-evicts-longest-idle", tc_read_to_eof(u[0], buf, sizeof(buf)) &&
		  strstr(buf, "closed to make room"), "got '%s'", buf);
	for (int i = 0; i < 5; i++)
		close(u[i]);
}

static void
test_pools_slow_reader(const char *path)
{
	char		chunk[4096];
	char		buf[8192];
	int			s = tc_connect(path),
				good,
				sent = 0;
	const char *req = "{\"cmd\":\"status\"}\n";
	size_t		rl = strlen(req);
	bool		eof;

	for (size_t i = 0; i + rl <= sizeof(chunk); i += rl)
		memcpy(chunk + i, req, rl);
	/* pipeline requests and read nothing, until our own socket is full */
	for (int i = 0; i < 4000; i++)
	{
		ssize_t		w = send(s, chunk, sizeof(chunk) / rl * rl, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w <= 0)
			break;
		sent++;
	}
	good = tc_connect(path);
	CHECK("pool-served-beside-slow-reader", good >= 0 &&
		  tc_roundtrip(good, "{\"cmd\":\"status\"}\n", buf, sizeof(buf)) > 0 && strstr(buf, "\"ok\":true"),
		  "got '%s'", buf);
	close(good);
	/* past the write bound (500 ms): closed; what it was sent, then EOF */
	tc_sleep_ms(900);
	eof = tc_read_to_eof(s, buf, sizeof(buf));
	CHECK("pool-slow-reader-closed", sent > 0 && eof, "sent %d chunks; %s", sent, eof ? "" : "still open");
	close(s);
}

static void
test_pools(void)
{
	char		dir[] = "/tmp/pgwt-ctlp-XXXXXX";
	char		path[300],
				err[256],
				spec[64];
	pgwt_control *c;
	pthread_t	th;
	int			port = tc_free_port();
	pgwt_control_limits lim = {4, 4, 500, 500, 500};
	pgwt_control_counters k;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/pgwt.sock", dir);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
	if (pgwt_control_open(&c, path, spec, &tc_ops, err, sizeof(err)) != 0)
	{
		CHECK("pool-open", false, "%s", err);
		rmdir(dir);
		return;
	}
	pgwt_control_set_limits(c, &lim);
	tc_stop = 0;
	pthread_create(&th, NULL, tc_server, c);
	test_pools_idle_http(path, port);
	test_pools_unix(path);
	test_pools_slow_reader(path);
	tc_stop = 1;
	pthread_join(th, NULL);
	pgwt_control_get_counters(c, &k);
	CHECK("pool-counters", k.evicted >= 36 && k.idle_timeouts >= 4 && k.write_timeouts >= 1,
		  "evicted %llu idle %llu write %llu", (unsigned long long) k.evicted,
		  (unsigned long long) k.idle_timeouts, (unsigned long long) k.write_timeouts);
	pgwt_control_close(c);
	rmdir(dir);
}

/* ---- real peers of other users (root only) -------------------------------- */

/*
 * In a child as uid/gid with the given supplementary group (or none): 0 when
 * what happens matches want ("reader": status answered, escalate refused;
 * "eacces": connect refused by the file's mode; "refused": one line naming
 * the uid, then EOF; "full": the pool has no room for it).
 */
static int
tc_child(const char *path, uid_t uid, gid_t gid, gid_t supp, const char *want)
{
	pid_t		pid = fork();
	int			status;

	if (pid == 0)
	{
		char		buf[2048];
		int			s;

		if (setgroups(supp ? 1 : 0, &supp) != 0 || setgid(gid) != 0 || setuid(uid) != 0)
			_exit(10);
		s = tc_connect(path);
		if (strcmp(want, "eacces") == 0)
			_exit(s < 0 && errno == EACCES ? 0 : 11);
		if (s < 0)
			_exit(12);
		if (strcmp(want, "full") == 0)
			_exit(tc_read_to_eof(s, buf, sizeof(buf)) && strstr(buf, "too many control clients") ? 0 : 16);
		if (strcmp(want, "refused") == 0)
			_exit(tc_read_to_eof(s, buf, sizeof(buf)) && strstr(buf, "may not use this control socket") &&
				  strstr(buf, "uid 4244") ? 0 : 13);
		if (tc_roundtrip(s, "{\"cmd\":\"status\"}\n", buf, sizeof(buf)) <= 0 || !strstr(buf, "\"ok\":true"))
			_exit(14);
		if (tc_roundtrip(s, "{\"cmd\":\"escalate\",\"duration_s\":5}\n", buf, sizeof(buf)) <= 0 ||
			!strstr(buf, "only root"))
			_exit(15);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * A pool of two. Root's connection (the oldest) and a reader's: root
 * arriving displaces the reader, not the older root. Two of root's: a
 * reader arriving is refused, it displaces neither.
 */
static void
test_reader_never_displaces_root(const char *path)
{
	char		buf[2048];
	int			r1 = tc_connect(path),
				r2;
	pid_t		a = fork();
	int			sa = -1,
				rc;

	if (a == 0)
	{
		gid_t		g = 4243;
		int			s;

		if (setgroups(1, &g) != 0 || setgid(4242) != 0 || setuid(4242) != 0 || (s = tc_connect(path)) < 0)
			_exit(10);
		_exit(tc_read_to_eof(s, buf, sizeof(buf)) && strstr(buf, "closed to make room") ? 0 : 11);
	}
	tc_sleep_ms(300);
	r2 = tc_connect(path);
	CHECK("peer-live-root-displaces-reader-first", r2 >= 0 &&
		  tc_roundtrip(r2, "{\"cmd\":\"status\"}\n", buf, sizeof(buf)) > 0 && strstr(buf, "\"ok\":true") &&
		  a > 0 && waitpid(a, &sa, 0) == a && WIFEXITED(sa) && WEXITSTATUS(sa) == 0 &&
		  tc_roundtrip(r1, "{\"cmd\":\"status\"}\n", buf, sizeof(buf)) > 0 && strstr(buf, "\"ok\":true"),
		  "reader's exit %d, root's older connection got '%s'", sa, buf);
	rc = tc_child(path, 4242, 4242, 4243, "full");
	CHECK("peer-live-reader-never-displaces-root", rc == 0 &&
		  tc_roundtrip(r1, "{\"cmd\":\"status\"}\n", buf, sizeof(buf)) > 0 && strstr(buf, "\"ok\":true") &&
		  tc_roundtrip(r2, "{\"cmd\":\"status\"}\n", buf, sizeof(buf)) > 0 && strstr(buf, "\"ok\":true"),
		  "reader's child status %d; root got '%s'", rc, buf);
	close(r1);
	close(r2);
}

static void
test_peers_live(void)
{
	char		dir[] = "/tmp/pgwt-ctlu-XXXXXX";
	char		path[300],
				err[256];
	pgwt_control *c;
	pthread_t	th;
	int			rc;
	pgwt_control_counters k;

	if (geteuid() != 0)
	{
		SKIP("peer-live", "needs root (connecting as other users)");
		return;
	}
	if (!mkdtemp(dir))
		return;
	chown(dir, (uid_t) -1, 4243);
	chmod(dir, 0750);
	snprintf(path, sizeof(path), "%s/pgwt.sock", dir);
	if (pgwt_control_open(&c, path, NULL, &tc_ops, err, sizeof(err)) != 0)
	{
		CHECK("peer-live-open", false, "%s", err);
		return;
	}
	pgwt_control_set_limits(c, &(pgwt_control_limits) {.unix_clients = 2});
	tc_stop = 0;
	tc_last_escalate = 0;
	pthread_create(&th, NULL, tc_server, c);
	rc = tc_child(path, 4242, 4242, 4243, "reader");
	CHECK("peer-live-group-member-reads-not-escalates", rc == 0 && tc_last_escalate == 0,
		  "child status %d, escalated %lld", rc, tc_last_escalate);
	rc = tc_child(path, 4244, 4244, 0, "eacces");
	CHECK("peer-live-stranger-kept-out-by-mode", rc == 0, "child status %d", rc);
	test_reader_never_displaces_root(path);
	/* a mode loosened by hand: the credentials still keep them out */
	chmod(dir, 0751);
	chmod(path, 0666);
	rc = tc_child(path, 4244, 4244, 0, "refused");
	CHECK("peer-live-stranger-refused-by-credentials", rc == 0, "child status %d", rc);
	tc_stop = 1;
	pthread_join(th, NULL);
	pgwt_control_get_counters(c, &k);
	CHECK("peer-live-refusal-counted", k.refused_peer == 1, "%llu", (unsigned long long) k.refused_peer);
	pgwt_control_close(c);
	chown(dir, (uid_t) -1, 0);
	rmdir(dir);
}

int
main(void)
{
	test_json();
	test_answers();
	test_sockets();
	test_peer_rules();
	test_socket_file();
	test_pools();
	test_peers_live();
	return tc_failures ? 1 : 0;
}
