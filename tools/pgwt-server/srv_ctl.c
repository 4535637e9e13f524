/*
 * srv_ctl.c
 *		pgwt-server and the daemon's control socket (srv_ctl.h). Each
 *		request opens one connection, sends one line and reads one answer
 *		line, all within SRV_CTL_TIMEOUT_MS and SRV_CTL_MAX_ANSWER bytes, so
 *		a stuck daemon costs one request a bounded wait. The server runs its
 *		requests on a pool of threads (srv_http.c), one request wholly on
 *		one thread: the static buffers are per thread.
 *
 * Who may escalate: the HTTP side checks the token before any handler
 * here runs; escalation further needs a token to be configured at all
 * (srv_http.c), since on loopback without one any local user's browser
 * could spend the budget. The daemon decides again by our credentials
 * (SO_PEERCRED: root or its own user may escalate, its trace group only
 * read status), and its refusal is passed on with its reason.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "analysis/esc_windows.h"
#include "analysis/range_load.h"
#include "srv_api.h"
#include "srv_ctl.h"

/* one answer per handler thread (srv_http.c runs a pool of them) */
static __thread char srv_ctl_buf[SRV_CTL_MAX_ANSWER + 1];

static long long
srv_ctl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool
srv_ctl_answer_sane(const char *s, size_t len)
{
	if (len < 2 || s[0] != '{' || s[len - 1] != '}')
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

bool
srv_ctl_answer_refused(const char *s, size_t len)
{
	/* the daemon writes its answers without spaces (common/json_min.h) */
	static const char key[] = "\"ok\":false";

	return memmem(s, len, key, sizeof(key) - 1) != NULL;
}

/*
 * Sends line to the socket and reads one answer line into srv_ctl_buf.
 * Returns its length, -1 when no daemon answers there (no socket, refused,
 * timed out), -2 when the answer is too long or not one object.
 */
static long
srv_ctl_call(const char *path, const char *line)
{
	struct sockaddr_un sa;
	long long	deadline = srv_ctl_now_ms() + SRV_CTL_TIMEOUT_MS;
	size_t		len = strlen(line),
				sent = 0,
				got = 0;
	int			fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* a Unix socket connects at once or not at all (EAGAIN: backlog full) */
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) != 0)
	{
		close(fd);
		return -1;
	}
	for (;;)
	{
		struct pollfd p = {fd, sent < len ? POLLOUT : POLLIN, 0};
		long long	left = deadline - srv_ctl_now_ms();
		ssize_t		n;

		if (left <= 0 || poll(&p, 1, (int) left) <= 0)
			break;
		if (sent < len)
		{
			n = send(fd, line + sent, len - sent, MSG_NOSIGNAL);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				break;
			sent += n > 0 ? (size_t) n : 0;
			continue;
		}
		n = recv(fd, srv_ctl_buf + got, SRV_CTL_MAX_ANSWER - got, 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			break;
		got += (size_t) n;
		if (memchr(srv_ctl_buf + got - n, '\n', (size_t) n))
		{
			close(fd);
			srv_ctl_buf[got] = '\0';
			got = strcspn(srv_ctl_buf, "\n");
			srv_ctl_buf[got] = '\0';
			return srv_ctl_answer_sane(srv_ctl_buf, got) ? (long) got : -2;
		}
		if (got == SRV_CTL_MAX_ANSWER)
		{
			close(fd);
			return -2;
		}
	}
	close(fd);
	return -1;
}

/* Calls the daemon; on failure fills r with the error and returns -1. */
static long
srv_ctl_ask(const srv_config *cfg, const char *line, srv_reply *r)
{
	long		n;

	if (!cfg->control)
	{
		srv_reply_error(r, 503, "no daemon: pgwt-server was started without --control SOCKET");
		return -1;
	}
	n = srv_ctl_call(cfg->control, line);
	if (n == -1)
		srv_reply_error(r, 503, "the daemon does not answer on its control socket");
	else if (n < 0)
		srv_reply_error(r, 502, "the daemon's answer was not one bounded JSON object");
	return n;
}

void
srv_api_status(const srv_config *cfg, srv_reply *r)
{
	long		n = srv_ctl_ask(cfg, "{\"cmd\":\"status\"}\n", r);

	if (n < 0)
		return;
	pgwt_buf_printf(&r->body, "{\"token_configured\":%s,\"daemon\":%.*s,\"metrics\":",
					cfg->token[0] ? "true" : "false", (int) n, srv_ctl_buf);
	/* the self-metrics too; a daemon gone in between leaves them null */
	n = srv_ctl_call(cfg->control, "{\"cmd\":\"metrics\"}\n");
	if (n >= 0)
		pgwt_buf_printf(&r->body, "%.*s}", (int) n, srv_ctl_buf);
	else
		pgwt_buf_printf(&r->body, "null}");
}

/* The daemon's answer to a change, with 409 when it refused it. */
static void
srv_ctl_change(const srv_config *cfg, const char *line, srv_reply *r)
{
	long		n = srv_ctl_ask(cfg, line, r);

	if (n < 0)
		return;
	if (srv_ctl_answer_refused(srv_ctl_buf, (size_t) n))
		r->status = 409;
	pgwt_buf_printf(&r->body, "%.*s", (int) n, srv_ctl_buf);
}

void
srv_api_escalate(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r)
{
	const char *d = arg(conn, "duration_s");
	uint64_t	secs = 60;
	char		line[96];

	/* the daemon bounds it again (a day at most, clamped to the budget) */
	if (d && (!srv_param_u64(d, &secs) || secs < 1 || secs > 86400))
	{
		srv_reply_error(r, 400, "duration_s: a whole number of seconds, 1 to 86400");
		return;
	}
	snprintf(line, sizeof(line), "{\"cmd\":\"escalate\",\"duration_s\":%llu}\n",
			 (unsigned long long) secs);
	srv_ctl_change(cfg, line, r);
}

void
srv_api_deescalate(const srv_config *cfg, srv_reply *r)
{
	srv_ctl_change(cfg, "{\"cmd\":\"deescalate\"}\n", r);
}

void
srv_api_windows(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r)
{
	static __thread pgwt_esc_window arr[SRV_MAX_WINDOWS];	/* per handler thread */
	pgwt_esc_windows s;
	pgwt_range_loader *l;
	pgwt_range_batch b;
	uint64_t	from,
				to;
	int			rc;
	bool		first = true;

	if (!srv_param_range(arg, conn, &from, &to, r))
		return;
	/* markers only: the blocks of samples are not read */
	if (pgwt_range_open_transitions(cfg->trace_dir, from, to, &l) < 0)
	{
		srv_reply_error(r, 500, "the trace directory could not be read");
		return;
	}
	pgwt_esc_windows_init(&s, arr, SRV_MAX_WINDOWS);
	while ((rc = pgwt_range_next(l, &b)) > 0)
		for (uint32_t i = 0; i < b.n; i++)
			pgwt_esc_windows_add(&s, &b.recs[i]);
	pgwt_range_close(l);
	if (rc < 0)
	{
		srv_reply_error(r, 500, "the trace directory could not be read");
		return;
	}
	pgwt_esc_windows_finish(&s);
	pgwt_buf_printf(&r->body, "{\"dropped\":%llu,\"windows\":[", (unsigned long long) s.dropped);
	for (size_t i = 0; i < s.n; i++)
	{
		const pgwt_esc_window *w = &arr[i];

		/* the loader reads past "to": only the windows that overlap the range */
		if (w->start_ns >= to || (w->end_ns && w->end_ns < from))
			continue;
		pgwt_buf_printf(&r->body, "%s{\"start_ns\":%llu,\"end_ns\":", first ? "" : ",",
						(unsigned long long) w->start_ns);
		if (w->end_ns)
			pgwt_buf_printf(&r->body, "%llu", (unsigned long long) w->end_ns);
		else
			pgwt_buf_printf(&r->body, "null");
		pgwt_buf_printf(&r->body, ",\"planned_end_ns\":%llu,\"reason\":\"%s\",\"extensions\":%u}",
						(unsigned long long) w->planned_end_ns, pgwt_esc_code_name(w->reason),
						w->extensions);
		first = false;
	}
	pgwt_buf_printf(&r->body, "]}");
}
