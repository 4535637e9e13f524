/*
 * control.c
 *		Control socket and Prometheus endpoint (see control.h).
 *
 * Single-threaded: the daemon calls pgwt_control_service from its loop.
 * Each connection has a fixed input buffer; a line longer than
 * PGWT_CONTROL_MAX_LINE is answered with an error and the connection is
 * closed. Responses are written non-blocking; a client that does not read
 * them is dropped rather than waited for.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"

#define CTL_MAX_METRICS 64
#define CTL_OUT_CAP		16384

typedef struct ctl_conn
{
	int			fd;				/* -1 = free */
	bool		http;
	size_t		inlen;
	char		in[PGWT_CONTROL_MAX_LINE + 1];
} ctl_conn;

struct pgwt_control
{
	int			unix_fd;
	int			http_fd;
	char		path[108];
	pgwt_control_ops ops;
	ctl_conn	conns[PGWT_CONTROL_MAX_CLIENTS];
};

static void
ctl_error(pgwt_json_out *o, char *buf, size_t cap, const char *msg)
{
	pgwt_json_begin(o, buf, cap);
	pgwt_json_bool(o, "ok", false);
	pgwt_json_str(o, "error", msg);
}

long
pgwt_control_answer(const pgwt_control_ops *ops, const char *line, size_t len,
					char *buf, size_t cap)
{
	pgwt_json_obj req;
	pgwt_json_out o;
	const pgwt_json_field *cmd;
	char		err[160];
	char		msg[256];

	if (pgwt_json_parse(line, len, &req, err, sizeof(err)) != 0)
	{
		snprintf(msg, sizeof(msg), "malformed request: %s", err);
		ctl_error(&o, buf, cap, msg);
		return pgwt_json_end(&o);
	}
	cmd = pgwt_json_get(&req, "cmd");
	if (!cmd || cmd->type != PGWT_JSON_STRING)
	{
		ctl_error(&o, buf, cap, "missing \"cmd\" (status, metrics, escalate, deescalate)");
		return pgwt_json_end(&o);
	}
	if (strcmp(cmd->str, "status") == 0)
	{
		pgwt_json_begin(&o, buf, cap);
		pgwt_json_bool(&o, "ok", true);
		ops->status(ops->arg, &o);
	}
	else if (strcmp(cmd->str, "metrics") == 0)
	{
		pgwt_metric m[CTL_MAX_METRICS];
		size_t		n = ops->metrics(ops->arg, m, CTL_MAX_METRICS);

		pgwt_json_begin(&o, buf, cap);
		pgwt_json_bool(&o, "ok", true);
		for (size_t i = 0; i < n; i++)
			pgwt_json_num(&o, m[i].name, m[i].value);
	}
	else if (strcmp(cmd->str, "escalate") == 0)
	{
		const pgwt_json_field *d = pgwt_json_get(&req, "duration_s");

		if (!d || d->type != PGWT_JSON_NUMBER || d->num < 1 || d->num > 86400 ||
			d->num != (double) (long long) d->num)
		{
			ctl_error(&o, buf, cap, "escalate needs \"duration_s\": a whole number of seconds from 1 to 86400");
			return pgwt_json_end(&o);
		}
		pgwt_json_begin(&o, buf, cap);
		ops->escalate(ops->arg, (long long) d->num, &o);
	}
	else if (strcmp(cmd->str, "deescalate") == 0)
	{
		pgwt_json_begin(&o, buf, cap);
		ops->deescalate(ops->arg, &o);
	}
	else
	{
		snprintf(msg, sizeof(msg), "unknown cmd \"%.64s\" (status, metrics, escalate, deescalate)",
				 cmd->str);
		ctl_error(&o, buf, cap, msg);
	}
	return pgwt_json_end(&o);
}

long
pgwt_control_prometheus(const pgwt_control_ops *ops, char *buf, size_t cap)
{
	pgwt_metric m[CTL_MAX_METRICS];
	size_t		n = ops->metrics(ops->arg, m, CTL_MAX_METRICS);
	size_t		len = 0;

	for (size_t i = 0; i < n; i++)
	{
		int			w = snprintf(buf + len, cap - len,
								 "# HELP pgwt_%s %s\n# TYPE pgwt_%s %s\npgwt_%s %.17g\n",
								 m[i].name, m[i].help, m[i].name,
								 m[i].counter ? "counter" : "gauge", m[i].name, m[i].value);

		if (w < 0 || (size_t) w >= cap - len)
			return -1;
		len += (size_t) w;
	}
	return (long) len;
}

static int
ctl_nonblock(int fd)
{
	int			fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int
ctl_listen_http(const char *spec, char *err, size_t errlen)
{
	char		host[64];
	const char *colon = strrchr(spec, ':');
	long		port;
	char	   *end;
	int			fd,
				one = 1;
	struct sockaddr_storage ss;
	socklen_t	sl;

	if (!colon || (size_t) (colon - spec) >= sizeof(host))
	{
		snprintf(err, errlen, "--metrics-listen wants HOST:PORT, e.g. 127.0.0.1:9187");
		return -1;
	}
	memcpy(host, spec, (size_t) (colon - spec));
	host[colon - spec] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || port < 1 || port > 65535)
	{
		snprintf(err, errlen, "--metrics-listen: bad port \"%s\"", colon + 1);
		return -1;
	}
	memset(&ss, 0, sizeof(ss));
	if (host[0] == '[' && host[strlen(host) - 1] == ']')
	{
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *) &ss;

		host[strlen(host) - 1] = '\0';
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t) port);
		if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1 ||
			!IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr))
		{
			snprintf(err, errlen, "--metrics-listen: %s is not a loopback address", host + 1);
			return -1;
		}
		sl = sizeof(*s6);
	}
	else
	{
		struct sockaddr_in *s4 = (struct sockaddr_in *) &ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t) port);
		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1 ||
			(ntohl(s4->sin_addr.s_addr) >> 24) != 127)
		{
			snprintf(err, errlen, "--metrics-listen: %s is not a loopback address (127.0.0.0/8 or [::1])",
					 host);
			return -1;
		}
		sl = sizeof(*s4);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
	{
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *) &ss, sl) != 0 || listen(fd, 8) != 0 || ctl_nonblock(fd) != 0)
	{
		snprintf(err, errlen, "cannot listen on %s: %s", spec, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int
pgwt_control_open(pgwt_control **out, const char *path, const char *metrics_listen,
				  const pgwt_control_ops *ops, char *err, size_t errlen)
{
	pgwt_control *c;
	struct sockaddr_un sa;
	struct stat st;
	mode_t		old_umask;

	*out = NULL;
	if (strlen(path) >= sizeof(sa.sun_path))
	{
		snprintf(err, errlen, "control socket path too long: %s", path);
		return -1;
	}
	if (lstat(path, &st) == 0)
	{
		if (!S_ISSOCK(st.st_mode))
		{
			snprintf(err, errlen, "%s exists and is not a socket; refusing to replace it", path);
			return -1;
		}
		unlink(path);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
	{
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->ops = *ops;
	c->http_fd = -1;
	for (int i = 0; i < PGWT_CONTROL_MAX_CLIENTS; i++)
		c->conns[i].fd = -1;
	snprintf(c->path, sizeof(c->path), "%s", path);

	c->unix_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path));
	/* Created 0600 from the start: no window where others could connect. */
	old_umask = umask(0177);
	if (c->unix_fd < 0 || bind(c->unix_fd, (struct sockaddr *) &sa, sizeof(sa)) != 0)
	{
		umask(old_umask);
		snprintf(err, errlen, "cannot create control socket %s: %s", path, strerror(errno));
		pgwt_control_close(c);
		return -1;
	}
	umask(old_umask);
	chmod(path, 0600);
	if (listen(c->unix_fd, 8) != 0 || ctl_nonblock(c->unix_fd) != 0)
	{
		snprintf(err, errlen, "cannot listen on %s: %s", path, strerror(errno));
		pgwt_control_close(c);
		return -1;
	}
	if (metrics_listen)
	{
		c->http_fd = ctl_listen_http(metrics_listen, err, errlen);
		if (c->http_fd < 0)
		{
			pgwt_control_close(c);
			return -1;
		}
	}
	*out = c;
	return 0;
}

static void
ctl_drop(ctl_conn *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	k->inlen = 0;
}

/* Non-blocking write of a whole reply; a client that is not reading loses it. */
static bool
ctl_send(ctl_conn *k, const char *buf, size_t len)
{
	while (len > 0)
	{
		ssize_t		w = send(k->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w <= 0)
			return false;
		buf += w;
		len -= (size_t) w;
	}
	return true;
}

static void
ctl_accept(pgwt_control *c, int lfd, bool http)
{
	for (;;)
	{
		int			fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		int			slot = -1;

		if (fd < 0)
			return;
		for (int i = 0; i < PGWT_CONTROL_MAX_CLIENTS; i++)
			if (c->conns[i].fd < 0)
			{
				slot = i;
				break;
			}
		if (slot < 0)
		{
			static const char busy[] = "{\"ok\":false,\"error\":\"too many control clients\"}\n";

			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			{
				/* nothing more to do for a client we are refusing anyway */
			}
			close(fd);
			continue;
		}
		c->conns[slot].fd = fd;
		c->conns[slot].http = http;
		c->conns[slot].inlen = 0;
	}
}

static void
ctl_serve_http(pgwt_control *c, ctl_conn *k)
{
	char		body[CTL_OUT_CAP];
	char		head[256];
	long		n;
	int			hl;

	/* Wait for the end of the request head; then one answer and close. */
	k->in[k->inlen] = '\0';
	if (!strstr(k->in, "\r\n\r\n") && !strstr(k->in, "\n\n"))
		return;
	if (strncmp(k->in, "GET /metrics ", 13) == 0 || strncmp(k->in, "GET /metrics\r", 13) == 0)
	{
		n = pgwt_control_prometheus(&c->ops, body, sizeof(body));
		if (n < 0)
			n = 0;
		hl = snprintf(head, sizeof(head),
					  "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
					  "Content-Length: %ld\r\nConnection: close\r\n\r\n", n);
	}
	else
	{
		static const char nf[] = "only GET /metrics is served here\n";

		n = (long) sizeof(nf) - 1;
		memcpy(body, nf, (size_t) n);
		hl = snprintf(head, sizeof(head),
					  "HTTP/1.0 404 Not Found\r\nContent-Type: text/plain\r\n"
					  "Content-Length: %ld\r\nConnection: close\r\n\r\n", n);
	}
	if (ctl_send(k, head, (size_t) hl))
		ctl_send(k, body, (size_t) n);
	ctl_drop(k);
}

static void
ctl_serve_lines(pgwt_control *c, ctl_conn *k)
{
	char		out[CTL_OUT_CAP];
	char	   *nl;

	while ((nl = memchr(k->in, '\n', k->inlen)) != NULL)
	{
		size_t		linelen = (size_t) (nl - k->in);
		long		n = pgwt_control_answer(&c->ops, k->in, linelen, out, sizeof(out));

		if (n < 0 || !ctl_send(k, out, (size_t) n))
		{
			ctl_drop(k);
			return;
		}
		memmove(k->in, nl + 1, k->inlen - linelen - 1);
		k->inlen -= linelen + 1;
	}
	if (k->inlen >= PGWT_CONTROL_MAX_LINE)
	{
		static const char big[] =
			"{\"ok\":false,\"error\":\"request line longer than 4096 bytes; closing\"}\n";

		ctl_send(k, big, sizeof(big) - 1);
		ctl_drop(k);
	}
}

static void
ctl_read(pgwt_control *c, ctl_conn *k)
{
	ssize_t		r = recv(k->fd, k->in + k->inlen, PGWT_CONTROL_MAX_LINE - k->inlen, MSG_DONTWAIT);

	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
	{
		ctl_drop(k);
		return;
	}
	if (r < 0)
		return;
	k->inlen += (size_t) r;
	if (k->http)
	{
		if (k->inlen >= PGWT_CONTROL_MAX_LINE)
			ctl_drop(k);
		else
			ctl_serve_http(c, k);
	}
	else
		ctl_serve_lines(c, k);
}

int
pgwt_control_pollfds(const pgwt_control *c, struct pollfd *pfd, int max)
{
	int			n = 0;

	if (n < max)
		pfd[n++] = (struct pollfd) {.fd = c->unix_fd, .events = POLLIN};
	if (c->http_fd >= 0 && n < max)
		pfd[n++] = (struct pollfd) {.fd = c->http_fd, .events = POLLIN};
	for (int i = 0; i < PGWT_CONTROL_MAX_CLIENTS && n < max; i++)
		if (c->conns[i].fd >= 0)
			pfd[n++] = (struct pollfd) {.fd = c->conns[i].fd, .events = POLLIN};
	return n;
}

void
pgwt_control_handle(pgwt_control *c, const struct pollfd *pfd, int n)
{
	for (int j = 0; j < n; j++)
	{
		if (!(pfd[j].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (pfd[j].fd == c->unix_fd)
			ctl_accept(c, c->unix_fd, false);
		else if (c->http_fd >= 0 && pfd[j].fd == c->http_fd)
			ctl_accept(c, c->http_fd, true);
		else
			for (int i = 0; i < PGWT_CONTROL_MAX_CLIENTS; i++)
				if (c->conns[i].fd >= 0 && c->conns[i].fd == pfd[j].fd)
				{
					ctl_read(c, &c->conns[i]);
					break;
				}
	}
}

int
pgwt_control_service(pgwt_control *c, int timeout_ms)
{
	struct pollfd pfd[PGWT_CONTROL_MAX_POLLFDS];
	int			n = pgwt_control_pollfds(c, pfd, PGWT_CONTROL_MAX_POLLFDS);
	int			ready = poll(pfd, (nfds_t) n, timeout_ms);

	if (ready > 0)
		pgwt_control_handle(c, pfd, n);
	return ready;
}

void
pgwt_control_close(pgwt_control *c)
{
	if (!c)
		return;
	for (int i = 0; i < PGWT_CONTROL_MAX_CLIENTS; i++)
		ctl_drop(&c->conns[i]);
	if (c->unix_fd >= 0)
	{
		close(c->unix_fd);
		unlink(c->path);
	}
	if (c->http_fd >= 0)
		close(c->http_fd);
	free(c);
}
