/*
 * ctl_server.c
 *		The control socket's and the metrics endpoint's connections: one
 *		bounded pool per listener, who may connect, idle and write bounds
 *		(see control.h for the rules).
 *
 * Single-threaded: the daemon calls pgwt_control_handle (or _service)
 * from its loop; nothing here blocks. A connection holds one bounded
 * request buffer and one answer: while an answer is not fully sent, its
 * socket is polled for output only and no further request is read, so a
 * client that pipelines requests without reading gets no more than one
 * answer queued here, and is closed when that answer waits longer than the
 * write bound. Time is CLOCK_MONOTONIC.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "control.h"
#include "ctl_sockfile.h"

#define CTL_HEAD_CAP	512
#define CTL_OUT_CAP		(PGWT_CONTROL_PROM_CAP + CTL_HEAD_CAP)	/* the largest answer: HTTP head + body */
#define CTL_ACCEPT_BURST 64		/* accepts per listener per call: the loop goes on */
#define CTL_MAX_GROUPS	256		/* a peer's groups looked at */

typedef struct ctl_conn
{
	int			fd;				/* -1 = free */
	pgwt_peer_class cls;
	bool		closing;		/* close once the answer is sent */
	uint64_t	since_ns;		/* connect or last answer sent: the idle bound */
	uint64_t	out_ns;			/* when the pending answer was queued */
	size_t		inlen;
	size_t		outoff;
	size_t		outlen;
	char		in[PGWT_CONTROL_MAX_LINE + 1];
	char		out[CTL_OUT_CAP];
} ctl_conn;

typedef struct ctl_pool
{
	bool		http;
	int			cap;
	ctl_conn	conns[PGWT_CONTROL_MAX_CLIENTS];
} ctl_pool;

struct pgwt_control
{
	int			unix_fd;
	int			http_fd;
	uid_t		self_uid;
	char		reader_group[64];	/* its name, looked up once at open */
	ctl_sockfile sock;
	pgwt_control_ops ops;
	pgwt_control_limits lim;
	pgwt_control_counters cnt;
	ctl_pool	unixp;
	ctl_pool	httpp;
};

static void
ctl_drop(ctl_conn *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	k->inlen = 0;
	k->outlen = 0;
	k->outoff = 0;
	k->closing = false;
}

/* A last line to a client being closed, if its socket takes it at once. */
static void
ctl_goodbye(ctl_conn *k, const char *line)
{
	if (k->fd >= 0 && k->outlen == 0 && !k->closing)
	{
		if (send(k->fd, line, strlen(line), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		{
			/* the client goes anyway */
		}
	}
	ctl_drop(k);
}

/* Sends what the socket takes of the pending answer; false when the peer is gone. */
static bool
ctl_flush(ctl_conn *k, uint64_t now)
{
	while (k->outoff < k->outlen)
	{
		ssize_t		w = send(k->fd, k->out + k->outoff, k->outlen - k->outoff,
							 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return true;
		if (w <= 0)
			return false;
		k->outoff += (size_t) w;
	}
	k->outlen = k->outoff = 0;
	k->since_ns = now;			/* answered: the idle bound starts again */
	return true;
}

/* Queue an answer (len bytes already in k->out) and send what fits. */
static bool
ctl_queue(ctl_conn *k, size_t len, uint64_t now)
{
	k->outoff = 0;
	k->outlen = len;
	k->out_ns = now;
	return ctl_flush(k, now);
}

static void
ctl_http_answer(pgwt_control *c, ctl_conn *k, uint64_t now)
{
	/* the body is rendered after room for the head, then moved up to it */
	char	   *body = k->out + CTL_HEAD_CAP;
	long		n;
	int			hl;
	bool		metrics = strncmp(k->in, "GET /metrics ", 13) == 0 ||
		strncmp(k->in, "GET /metrics\r", 13) == 0;

	if (metrics)
	{
		n = pgwt_control_prometheus(&c->ops, body, sizeof(k->out) - CTL_HEAD_CAP);
		if (n < 0)
			n = 0;
	}
	else
	{
		static const char nf[] = "only GET /metrics is served here\n";

		n = (long) sizeof(nf) - 1;
		memcpy(body, nf, (size_t) n);
	}
	hl = snprintf(k->out, CTL_HEAD_CAP,
				  "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %ld\r\nConnection: close\r\n\r\n",
				  metrics ? "200 OK" : "404 Not Found",
				  metrics ? "text/plain; version=0.0.4" : "text/plain", n);
	memmove(k->out + hl, body, (size_t) n);
	k->closing = true;
	k->inlen = 0;
	if (!ctl_queue(k, (size_t) hl + (size_t) n, now))
		ctl_drop(k);
}

/* One answer per request line, while nothing is pending. */
static void
ctl_serve_lines(pgwt_control *c, ctl_conn *k, uint64_t now)
{
	char	   *nl;

	while (k->fd >= 0 && k->outlen == 0 && !k->closing &&
		   (nl = memchr(k->in, '\n', k->inlen)) != NULL)
	{
		size_t		linelen = (size_t) (nl - k->in);
		long		n = pgwt_control_answer_as(&c->ops, k->cls, k->in, linelen,
											   k->out, sizeof(k->out));

		memmove(k->in, nl + 1, k->inlen - linelen - 1);
		k->inlen -= linelen + 1;
		if (n < 0 || !ctl_queue(k, (size_t) n, now))
			ctl_drop(k);
	}
	if (k->fd >= 0 && !k->closing && k->outlen == 0 && k->inlen >= PGWT_CONTROL_MAX_LINE)
	{
		int			n = snprintf(k->out, sizeof(k->out),
								 "{\"ok\":false,\"error\":\"request line longer than %d bytes; closing\"}\n",
								 PGWT_CONTROL_MAX_LINE);

		c->cnt.oversized++;
		k->closing = true;
		k->inlen = 0;
		if (!ctl_queue(k, (size_t) n, now))
			ctl_drop(k);
	}
	if (k->fd >= 0 && k->closing && k->outlen == 0)
		ctl_drop(k);
}

static void
ctl_serve_http(pgwt_control *c, ctl_conn *k, uint64_t now)
{
	k->in[k->inlen] = '\0';
	if (strstr(k->in, "\r\n\r\n") || strstr(k->in, "\n\n"))
		ctl_http_answer(c, k, now);
	else if (k->inlen >= PGWT_CONTROL_MAX_LINE)
	{
		static const char big[] = "HTTP/1.0 431 Request Header Fields Too Large\r\n"
			"Content-Length: 0\r\nConnection: close\r\n\r\n";

		c->cnt.oversized++;
		memcpy(k->out, big, sizeof(big) - 1);
		k->closing = true;
		k->inlen = 0;
		if (!ctl_queue(k, sizeof(big) - 1, now))
			ctl_drop(k);
	}
	if (k->fd >= 0 && k->closing && k->outlen == 0)
		ctl_drop(k);
}

static void
ctl_read(pgwt_control *c, ctl_pool *p, ctl_conn *k, uint64_t now)
{
	ssize_t		r;

	if (k->closing || k->inlen >= PGWT_CONTROL_MAX_LINE)
		return;
	r = recv(k->fd, k->in + k->inlen, PGWT_CONTROL_MAX_LINE - k->inlen, MSG_DONTWAIT);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
	{
		ctl_drop(k);
		return;
	}
	if (r < 0)
		return;
	k->inlen += (size_t) r;
	if (p->http)
		ctl_serve_http(c, k, now);
	else
		ctl_serve_lines(c, k, now);
}

/* Output first: a pending answer blocks reading until it is sent. */
static void
ctl_ready(pgwt_control *c, ctl_pool *p, ctl_conn *k, uint64_t now)
{
	if (k->outlen > 0)
	{
		if (!ctl_flush(k, now))
		{
			ctl_drop(k);
			return;
		}
		if (k->outlen > 0)
			return;
		if (k->closing)
		{
			ctl_drop(k);
			return;
		}
		/* requests that came while the answer was pending */
		if (!p->http)
			ctl_serve_lines(c, k, now);
		return;
	}
	ctl_read(c, p, k, now);
}

/*
 * A free slot, or one made free: the least recently active connection a
 * newcomer of class cls may displace (on the control socket a reader never
 * displaces root, and root displaces a reader first), preferring one with
 * no answer in flight. -1: none.
 */
static int
ctl_slot(pgwt_control *c, ctl_pool *p, pgwt_peer_class cls)
{
	int			best = -1;

	for (int i = 0; i < p->cap; i++)
		if (p->conns[i].fd < 0)
			return i;
	for (int i = 0; i < p->cap; i++)
	{
		const ctl_conn *k = &p->conns[i];
		const ctl_conn *b = best >= 0 ? &p->conns[best] : NULL;

		if (!p->http && k->cls > cls)
			continue;
		/* a reader before root; idle before busy; then the oldest */
		if (!b || k->cls < b->cls ||
			(k->cls == b->cls && (k->outlen == 0) > (b->outlen == 0)) ||
			(k->cls == b->cls && (k->outlen == 0) == (b->outlen == 0) && k->since_ns < b->since_ns))
			best = i;
	}
	if (best >= 0)
	{
		c->cnt.evicted++;
		if (p->http)
			ctl_drop(&p->conns[best]);
		else
			ctl_goodbye(&p->conns[best],
						"{\"ok\":false,\"error\":\"closed to make room: every control connection was taken and this one was idle longest\"}\n");
	}
	return best;
}

/* The class of a control-socket peer, from the kernel's credentials. */
static pgwt_peer_class
ctl_peer(pgwt_control *c, int fd, uid_t *uid)
{
	struct ucred cr;
	socklen_t	len = sizeof(cr);
	gid_t		groups[CTL_MAX_GROUPS];
	int			ng = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof(cr))
	{
		*uid = (uid_t) -1;
		return PGWT_PEER_REFUSED;
	}
	*uid = cr.uid;
	groups[ng++] = cr.gid;
#ifdef SO_PEERGROUPS
	{
		socklen_t	glen = (socklen_t) (sizeof(groups) - sizeof(groups[0]));

		/* more groups than we look at: only the primary one counts */
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups + 1, &glen) == 0)
			ng += (int) (glen / sizeof(gid_t));
	}
#endif
	return pgwt_control_peer_class(cr.uid, groups, ng, c->self_uid, c->sock.reader_gid);
}

static void
ctl_refuse_peer(pgwt_control *c, int fd, uid_t uid)
{
	char		line[512];
	char		grp[128] = "";
	int			n;

	if (c->sock.reader_gid != (gid_t) -1)
		snprintf(grp, sizeof(grp), " and, for status and metrics, members of group %s",
				 c->reader_group);
	n = snprintf(line, sizeof(line),
				 "{\"ok\":false,\"error\":\"uid %ld may not use this control socket: only root, the daemon's user (uid %ld)%s may\"}\n",
				 uid == (uid_t) -1 ? -1L : (long) uid, (long) c->self_uid, grp);
	if (n > 0 && send(fd, line, (size_t) n < sizeof(line) ? (size_t) n : sizeof(line) - 1,
					  MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
	{
		/* refused anyway */
	}
	c->cnt.refused_peer++;
	close(fd);
}

static void
ctl_accept(pgwt_control *c, ctl_pool *p, int lfd, uint64_t now)
{
	for (int burst = 0; burst < CTL_ACCEPT_BURST; burst++)
	{
		int			fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		pgwt_peer_class cls = PGWT_PEER_READER;
		int			slot;
		ctl_conn   *k;

		if (fd < 0)
			return;
		if (!p->http)
		{
			uid_t		uid;

			cls = ctl_peer(c, fd, &uid);
			if (cls == PGWT_PEER_REFUSED)
			{
				ctl_refuse_peer(c, fd, uid);
				continue;
			}
		}
		slot = ctl_slot(c, p, cls);
		if (slot < 0)
		{
			static const char busy[] = "{\"ok\":false,\"error\":\"too many control clients\"}\n";

			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			{
				/* nothing more to do for a client we are refusing anyway */
			}
			c->cnt.refused_full++;
			close(fd);
			continue;
		}
		k = &p->conns[slot];
		ctl_drop(k);
		k->fd = fd;
		k->cls = cls;
		k->since_ns = now;
		c->cnt.accepted++;
	}
}

/* Close what outlived its bounds. */
static void
ctl_sweep(pgwt_control *c, ctl_pool *p, uint64_t now)
{
	uint64_t	idle = (uint64_t) (p->http ? c->lim.http_ms : c->lim.idle_ms) * 1000000ull;
	uint64_t	wr = (uint64_t) c->lim.write_ms * 1000000ull;

	for (int i = 0; i < PGWT_CONTROL_MAX_CLIENTS; i++)
	{
		ctl_conn   *k = &p->conns[i];

		if (k->fd < 0)
			continue;
		if (k->outlen > 0)
		{
			if (now - k->out_ns > wr)
			{
				c->cnt.write_timeouts++;
				ctl_drop(k);
			}
		}
		else if (now - k->since_ns > idle)
		{
			c->cnt.idle_timeouts++;
			if (p->http)
				ctl_drop(k);
			else
				ctl_goodbye(k, "{\"ok\":false,\"error\":\"closed: no complete request in time\"}\n");
		}
	}
}

/* Everything but the socket file: the pools, the metrics listener. */
static pgwt_control *
ctl_new(const pgwt_control_ops *ops, char *err, size_t errlen)
{
	pgwt_control *c = calloc(1, sizeof(*c));

	if (!c)
	{
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->ops = *ops;
	c->unix_fd = c->http_fd = -1;
	c->sock.dfd = -1;
	c->self_uid = geteuid();
	c->lim = (pgwt_control_limits) {PGWT_CONTROL_MAX_CLIENTS, PGWT_CONTROL_MAX_CLIENTS,
	PGWT_CONTROL_IDLE_MS, PGWT_CONTROL_HTTP_MS, PGWT_CONTROL_WRITE_MS};
	c->unixp.cap = c->httpp.cap = PGWT_CONTROL_MAX_CLIENTS;
	c->httpp.http = true;
	for (int i = 0; i < PGWT_CONTROL_MAX_CLIENTS; i++)
		c->unixp.conns[i].fd = c->httpp.conns[i].fd = -1;
	return c;
}

/* After the socket file: the readers' group name, the metrics listener. */
static int
ctl_finish(pgwt_control *c, const char *metrics_listen, char *err, size_t errlen)
{
	if (c->unix_fd < 0)
		return -1;
	if (c->sock.reader_gid != (gid_t) -1)
	{
		struct group *g = getgrgid(c->sock.reader_gid);

		/* a name made of JSON-safe characters only, else the number */
		if (g && strlen(g->gr_name) < sizeof(c->reader_group) &&
			strspn(g->gr_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
			strlen(g->gr_name))
			snprintf(c->reader_group, sizeof(c->reader_group), "%s", g->gr_name);
		else
			snprintf(c->reader_group, sizeof(c->reader_group), "%u", (unsigned) c->sock.reader_gid);
	}
	if (metrics_listen)
	{
		c->http_fd = ctl_listen_http(metrics_listen, err, errlen);
		if (c->http_fd < 0)
			return -1;
	}
	return 0;
}

int
pgwt_control_open(pgwt_control **out, const char *path, const char *metrics_listen,
				  const pgwt_control_ops *ops, char *err, size_t errlen)
{
	pgwt_control *c = ctl_new(ops, err, errlen);

	*out = NULL;
	if (!c)
		return -1;
	c->unix_fd = ctl_sockfile_listen(&c->sock, path, err, errlen);
	if (ctl_finish(c, metrics_listen, err, errlen) != 0)
	{
		pgwt_control_close(c);
		return -1;
	}
	*out = c;
	return 0;
}

int
pgwt_control_open_at(pgwt_control **out, int dirfd, const char *name, const char *path,
					 const char *metrics_listen, const pgwt_control_ops *ops,
					 char *err, size_t errlen)
{
	pgwt_control *c = ctl_new(ops, err, errlen);

	*out = NULL;
	if (!c)
		return -1;
	c->unix_fd = ctl_sockfile_listen_at(&c->sock, dirfd, name, path, err, errlen);
	if (ctl_finish(c, metrics_listen, err, errlen) != 0)
	{
		pgwt_control_close(c);
		return -1;
	}
	*out = c;
	return 0;
}

void
pgwt_control_set_limits(pgwt_control *c, const pgwt_control_limits *l)
{
	if (l->unix_clients > 0 && l->unix_clients <= PGWT_CONTROL_MAX_CLIENTS)
		c->lim.unix_clients = c->unixp.cap = l->unix_clients;
	if (l->http_clients > 0 && l->http_clients <= PGWT_CONTROL_MAX_CLIENTS)
		c->lim.http_clients = c->httpp.cap = l->http_clients;
	if (l->idle_ms > 0)
		c->lim.idle_ms = l->idle_ms;
	if (l->http_ms > 0)
		c->lim.http_ms = l->http_ms;
	if (l->write_ms > 0)
		c->lim.write_ms = l->write_ms;
	/* a smaller pool: the connections past it go */
	for (int i = c->unixp.cap; i < PGWT_CONTROL_MAX_CLIENTS; i++)
		ctl_drop(&c->unixp.conns[i]);
	for (int i = c->httpp.cap; i < PGWT_CONTROL_MAX_CLIENTS; i++)
		ctl_drop(&c->httpp.conns[i]);
}

void
pgwt_control_get_counters(const pgwt_control *c, pgwt_control_counters *out)
{
	*out = c->cnt;
}

static int
ctl_pool_pollfds(const ctl_pool *p, struct pollfd *pfd, int n, int max)
{
	for (int i = 0; i < PGWT_CONTROL_MAX_CLIENTS && n < max; i++)
		if (p->conns[i].fd >= 0)
			pfd[n++] = (struct pollfd) {.fd = p->conns[i].fd,
			.events = p->conns[i].outlen > 0 ? POLLOUT : POLLIN};
	return n;
}

int
pgwt_control_pollfds(const pgwt_control *c, struct pollfd *pfd, int max)
{
	int			n = 0;

	if (n < max)
		pfd[n++] = (struct pollfd) {.fd = c->unix_fd, .events = POLLIN};
	if (c->http_fd >= 0 && n < max)
		pfd[n++] = (struct pollfd) {.fd = c->http_fd, .events = POLLIN};
	n = ctl_pool_pollfds(&c->unixp, pfd, n, max);
	return ctl_pool_pollfds(&c->httpp, pfd, n, max);
}

static bool
ctl_pool_ready(pgwt_control *c, ctl_pool *p, int fd, uint64_t now)
{
	for (int i = 0; i < PGWT_CONTROL_MAX_CLIENTS; i++)
		if (p->conns[i].fd >= 0 && p->conns[i].fd == fd)
		{
			ctl_ready(c, p, &p->conns[i], now);
			return true;
		}
	return false;
}

void
pgwt_control_handle(pgwt_control *c, const struct pollfd *pfd, int n)
{
	uint64_t	now = pgwt_mono_ns();
	bool		unix_ready = false,
				http_ready = false;

	/*
	 * Connections first, listeners last: an accept may reuse the number of
	 * a descriptor closed here, and must not inherit its poll result. A
	 * result that still meets a reused number (closed by an earlier call)
	 * only makes a non-blocking read find nothing.
	 */
	for (int j = 0; j < n; j++)
	{
		if (!pfd[j].revents)
			continue;
		if (pfd[j].fd == c->unix_fd)
			unix_ready = true;
		else if (c->http_fd >= 0 && pfd[j].fd == c->http_fd)
			http_ready = true;
		else if (!ctl_pool_ready(c, &c->unixp, pfd[j].fd, now))
			ctl_pool_ready(c, &c->httpp, pfd[j].fd, now);
	}
	ctl_sweep(c, &c->unixp, now);
	ctl_sweep(c, &c->httpp, now);
	if (unix_ready)
		ctl_accept(c, &c->unixp, c->unix_fd, now);
	if (http_ready)
		ctl_accept(c, &c->httpp, c->http_fd, now);
}

int
pgwt_control_service(pgwt_control *c, int timeout_ms)
{
	struct pollfd pfd[PGWT_CONTROL_MAX_POLLFDS];
	int			n = pgwt_control_pollfds(c, pfd, PGWT_CONTROL_MAX_POLLFDS);
	int			ready = poll(pfd, (nfds_t) n, timeout_ms);

	if (ready < 0)
		return ready;
	pgwt_control_handle(c, pfd, n);
	return ready;
}

void
pgwt_control_close(pgwt_control *c)
{
	if (!c)
		return;
	for (int i = 0; i < PGWT_CONTROL_MAX_CLIENTS; i++)
	{
		ctl_drop(&c->unixp.conns[i]);
		ctl_drop(&c->httpp.conns[i]);
	}
	if (c->unix_fd >= 0)
		close(c->unix_fd);
	ctl_sockfile_remove(&c->sock);
	if (c->http_fd >= 0)
		close(c->http_fd);
	free(c);
}
