/*
 * test_control.c
 *		Unit and socket tests of the control protocol: the JSON subset, the
 *		answers to each command, the Prometheus text, and the live sockets
 *		(mode 0600, a stalled client never blocks another, oversized and
 *		malformed requests answered with errors, loopback-only HTTP).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tracer/control/control.h"

static int	tc_failures;

#define CHECK(name, cond, ...) do { \
	if (cond) printf("PASS %s\n", name); \
	else { printf("FAIL %s: ", name); printf(__VA_ARGS__); printf("\n"); tc_failures++; } \
} while (0)

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
	m[0] = (pgwt_metric) {"samples_total", "Samples taken", true, 1234};
	m[1] = (pgwt_metric) {"backends_tracked", "Backends watched now", false, 3};
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

static void
tc_deescalate(void *arg, pgwt_json_out *o)
{
	pgwt_json_bool(o, "ok", true);
}

static const pgwt_control_ops tc_ops = {tc_status, tc_metrics, tc_escalate, tc_deescalate, NULL};

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

int
main(void)
{
	test_json();
	test_answers();
	test_sockets();
	return tc_failures ? 1 : 0;
}
