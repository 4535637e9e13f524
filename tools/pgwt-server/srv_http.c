/*
 * srv_http.c
 *		The HTTP side of pgwt-server on libmicrohttpd. A pool of SRV_THREADS
 *		polling threads handles the requests, so a page's reads run side by
 *		side (its chart and tables, its exact views) and one long read does
 *		not hold up the rest. Handlers share no unguarded state: a handler's
 *		static buffer is per thread (__thread), the loaded-range cache has
 *		its mutex (srv_cache.c), the summary memo its own. The main thread
 *		only waits for a signal.
 *
 * Every reply carries a Content-Security-Policy that allows only the
 * page's own scripts and styles (no inline script), nosniff and
 * no-referrer. GET and HEAD only, but for the daemon's escalate and
 * deescalate, which are POST only (srv_ctl.c: no side effect on a GET, an
 * Origin must be our own, and a token must be configured); the query parameters each endpoint knows
 * are the only ones accepted. With a token, every /api/ request must carry
 * it (Authorization: Bearer); on loopback, the Host header must name a
 * loopback host, so another site's page cannot reach the API through DNS
 * rebinding.
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "srv_api.h"
#include "srv_ctl.h"
#include "srv_http.h"
#include "srv_static.h"

#define SRV_THREADS	2			/* requests served at once */

#define SRV_CSP "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " \
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

static const char *
srv_arg(void *conn, const char *key)
{
	return MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key);
}

typedef struct srv_argcheck
{
	const char *const *known;
	bool		bad;
} srv_argcheck;

static enum MHD_Result
srv_arg_known(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	srv_argcheck *c = cls;
	bool		found = false;

	for (const char *const *k = c->known; *k; k++)
		found |= strcmp(*k, key) == 0;
	if (!found || !value || strlen(value) > 256)
		c->bad = true;
	return MHD_YES;
}

/* Constant time in the token's length. */
static bool
srv_token_ok(const srv_config *cfg, struct MHD_Connection *conn)
{
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	size_t		n = strlen(cfg->token);
	unsigned char diff = 0;

	if (!n)
		return true;
	if (!h || strncasecmp(h, "Bearer ", 7) != 0 || strlen(h + 7) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char) (h[7 + i] ^ cfg->token[i]);
	return diff == 0;
}

/* On loopback: the Host header names localhost, 127.x or [::1] (any port:
 * ssh -L may forward another one). */
static bool
srv_host_ok(const srv_config *cfg, struct MHD_Connection *conn)
{
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	size_t		len;

	if (!cfg->loopback)
		return true;
	if (!h)
		return false;
	if (strncmp(h, "[::1]", 5) == 0)
		len = 5;
	else
	{
		len = strcspn(h, ":");
		if (!((len == 9 && strncasecmp(h, "localhost", 9) == 0) || strncmp(h, "127.", 4) == 0))
			return false;
		for (size_t i = 0; i < len && strncmp(h, "127.", 4) == 0; i++)
			if (!(h[i] == '.' || (h[i] >= '0' && h[i] <= '9')))
				return false;
	}
	if (h[len] == '\0')
		return true;
	if (h[len] != ':' || !h[len + 1])
		return false;
	for (const char *p = h + len + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* A browser's Origin, when it sends one, names the host it asked (no
 * other site's page may post to us). */
static bool
srv_origin_ok(struct MHD_Connection *conn)
{
	const char *o = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);

	if (!o)
		return true;
	return h && strncmp(o, "http://", 7) == 0 && strcmp(o + 7, h) == 0;
}

/* POST /api/escalate, /api/deescalate: checks, then the daemon. */
static void
srv_route_change(const srv_config *cfg, struct MHD_Connection *conn, const char *url,
				 bool post, srv_reply *r)
{
	static const char *const esc_args[] = {"duration_s", NULL};
	static const char *const no_args[] = {NULL};
	srv_argcheck chk = {strcmp(url, "/api/escalate") == 0 ? esc_args : no_args, false};

	if (!post)
		srv_reply_error(r, 405, "escalate and deescalate are POST requests");
	else if (!srv_origin_ok(conn))
		srv_reply_error(r, 403, "a request from another origin may not escalate");
	else if (!cfg->token[0])
		srv_reply_error(r, 403, "escalation needs a token: start pgwt-server with --token-file");
	else
	{
		MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, srv_arg_known, &chk);
		if (chk.bad)
			srv_reply_error(r, 400, "unknown or overlong query parameter");
		else if (chk.known == esc_args)
			srv_api_escalate(cfg, srv_arg, conn, r);
		else
			srv_api_deescalate(cfg, r);
	}
}

static void
srv_route(const srv_config *cfg, struct MHD_Connection *conn, const char *url, bool post,
		  srv_reply *r)
{
	static const char *const view_args[] = {"view", "from", "to", "class", "event", "pid", "query",
	"sort", "limit", "format", NULL};
	static const char *const aas_args[] = {"from", "to", "points", NULL};
	static const char *const win_args[] = {"from", "to", NULL};
	static const char *const cmp_args[] = {"a_from", "a_to", "b_from", "b_to", "view", "format", NULL};
	static const char *const hist_args[] = {"event", "pid", "query", "from", "to", "format", NULL};
	static const char *const exact_args[] = {"view", "from", "to", "format", "limit", NULL};
	static const char *const no_args[] = {NULL};
	srv_argcheck chk = {no_args, false};

	if (!srv_host_ok(cfg, conn))
	{
		srv_reply_error(r, 421, "this server answers only requests addressed to localhost");
		return;
	}
	if (strncmp(url, "/api/", 5) != 0)
	{
		if (!srv_static_serve(cfg, url, r))
			srv_reply_error(r, 404, "not found");
		return;
	}
	if (!srv_token_ok(cfg, conn))
	{
		srv_reply_error(r, 401, "a valid token is required (Authorization: Bearer)");
		return;
	}
	if (strcmp(url, "/api/escalate") == 0 || strcmp(url, "/api/deescalate") == 0)
	{
		srv_route_change(cfg, conn, url, post, r);
		return;
	}
	if (post)
	{
		srv_reply_error(r, 405, "only GET is served here");
		return;
	}
	if (strcmp(url, "/api/view") == 0)
		chk.known = view_args;
	else if (strcmp(url, "/api/aas") == 0)
		chk.known = aas_args;
	else if (strcmp(url, "/api/compare") == 0)
		chk.known = cmp_args;
	else if (strcmp(url, "/api/histogram") == 0)
		chk.known = hist_args;
	else if (strcmp(url, "/api/windows") == 0)
		chk.known = win_args;
	else if (strcmp(url, "/api/exact") == 0)
		chk.known = exact_args;
	else if (strcmp(url, "/api/range") != 0 && strcmp(url, "/api/status") != 0)
	{
		srv_reply_error(r, 404, "not found");
		return;
	}
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, srv_arg_known, &chk);
	if (chk.bad)
	{
		srv_reply_error(r, 400, "unknown or overlong query parameter");
		return;
	}
	if (strcmp(url, "/api/view") == 0)
		srv_api_view(cfg, srv_arg, conn, r);
	else if (strcmp(url, "/api/aas") == 0)
		srv_api_aas(cfg, srv_arg, conn, r);
	else if (strcmp(url, "/api/compare") == 0)
		srv_api_compare(cfg, srv_arg, conn, r);
	else if (strcmp(url, "/api/histogram") == 0)
		srv_api_histogram(cfg, srv_arg, conn, r);
	else if (strcmp(url, "/api/windows") == 0)
		srv_api_windows(cfg, srv_arg, conn, r);
	else if (strcmp(url, "/api/exact") == 0)
		srv_api_exact(cfg, srv_arg, conn, r);
	else if (strcmp(url, "/api/status") == 0)
		srv_api_status(cfg, r);
	else
		srv_api_range(cfg, r);
}

static enum MHD_Result
srv_handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
		   const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	const srv_config *cfg = cls;
	srv_reply	r = {200, "application/json", {0}, ""};
	struct MHD_Response *resp;
	enum MHD_Result ret;
	bool		post = strcmp(method, "POST") == 0;

	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0 && !post)
		srv_reply_error(&r, 405, "only GET is served (POST for escalate and deescalate)");
	else if (*upload_size)
		srv_reply_error(&r, 400, "no request body is accepted");
	else
		srv_route(cfg, conn, url, post, &r);
	if (r.body.oom)
		srv_reply_error(&r, 500, "out of memory");
	resp = MHD_create_response_from_buffer(r.body.len, r.body.data, MHD_RESPMEM_MUST_COPY);
	pgwt_buf_free(&r.body);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r.ctype);
	MHD_add_response_header(resp, "Content-Security-Policy", SRV_CSP);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (r.filename[0])
	{
		char		cd[128];

		snprintf(cd, sizeof(cd), "attachment; filename=\"%s\"", r.filename);
		MHD_add_response_header(resp, "Content-Disposition", cd);
	}
	ret = MHD_queue_response(conn, r.status, resp);
	MHD_destroy_response(resp);
	if (!cfg->quiet)
		fprintf(stderr, "pgwt-server: %s %s -> %u\n", method, url, r.status);
	return ret;
}

static volatile sig_atomic_t srv_stop;

static void
srv_on_signal(int sig)
{
	srv_stop = sig;
}

int
srv_http_run(const srv_config *cfg)
{
	struct MHD_Daemon *d;
	struct sigaction sa;
	sigset_t	mask,
				old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = srv_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* blocked before MHD's thread starts, which inherits the mask: a
	 * signal delivered to that thread would set srv_stop without waking
	 * the main thread's sigsuspend, and the server would not stop */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &old);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
						 (cfg->addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
						 0, NULL, NULL, srv_handle, (void *) cfg,
						 MHD_OPTION_THREAD_POOL_SIZE, (unsigned) SRV_THREADS,
						 MHD_OPTION_SOCK_ADDR, (const struct sockaddr *) &cfg->addr,
						 MHD_OPTION_CONNECTION_LIMIT, (unsigned) 64,
						 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) 30,
						 MHD_OPTION_END);
	if (!d)
	{
		fprintf(stderr, "pgwt-server: cannot listen on %s\n", cfg->listen_text);
		return 1;
	}
	fprintf(stderr, "pgwt-server: serving %s on http://%s/\n", cfg->trace_dir, cfg->listen_text);
	while (!srv_stop)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	MHD_stop_daemon(d);
	return 0;
}
