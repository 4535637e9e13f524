/*
 * srv_args.c
 *		pgwt-server's command line. Safe by default: the server listens on
 *		loopback (reach it with ssh -L); another address needs both
 *		--allow-remote and a token (--token-file, or PGWT_SERVER_TOKEN),
 *		which every API request must then carry.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/parse_u64.h"
#include "srv_args.h"

static void
srv_usage(FILE *f)
{
	fprintf(f,
			"usage: pgwt-server [--listen ADDR:PORT] [--allow-remote --token-file FILE]\n"
			"                   [--web-root DIR] [--control SOCKET] [--quiet] TRACE_DIR\n"
			"       pgwt-server --dump DIR|FILE [pgwt-dump options]\n"
			"  --listen ADDR:PORT  default 127.0.0.1:8384; loopback only unless --allow-remote\n"
			"  --allow-remote      listen on another address (needs a token)\n"
			"  --token-file FILE   the token API requests must carry (or PGWT_SERVER_TOKEN)\n"
			"  --web-root DIR      the page's files (default: the build's build/web)\n"
			"  --control SOCKET    the daemon's control socket: status, escalate (needs a token)\n"
			"  --max-records N     records one request reads at most (default 400000000);\n"
			"                      a range over it is answered 413: narrow it\n");
}

static bool
srv_parse_port(const char *p, in_port_t *port)
{
	char	   *end;
	long		v;

	if (*p < '0' || *p > '9')
		return false;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return false;
	*port = htons((in_port_t) v);
	return true;
}

bool
srv_parse_listen(const char *text, struct sockaddr_storage *ss, socklen_t *len, bool *loopback)
{
	char		host[64];
	const char *colon;
	size_t		hl;

	memset(ss, 0, sizeof(*ss));
	if (text[0] == '[')
	{
		const char *close = strchr(text, ']');
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *) ss;

		if (!close || close[1] != ':' || (hl = (size_t) (close - text - 1)) >= sizeof(host))
			return false;
		memcpy(host, text + 1, hl);
		host[hl] = '\0';
		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1 || !srv_parse_port(close + 2, &s6->sin6_port))
			return false;
		s6->sin6_family = AF_INET6;
		*len = sizeof(*s6);
		*loopback = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
		return true;
	}
	colon = strrchr(text, ':');
	if (!colon || (hl = (size_t) (colon - text)) >= sizeof(host))
		return false;
	memcpy(host, text, hl);
	host[hl] = '\0';
	{
		struct sockaddr_in *s4 = (struct sockaddr_in *) ss;

		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1 || !srv_parse_port(colon + 1, &s4->sin_port))
			return false;
		s4->sin_family = AF_INET;
		*len = sizeof(*s4);
		*loopback = (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	}
	return true;
}

/* The token: first line of a file only root or its owner can read. */
static int
srv_read_token(const char *path, srv_config *cfg)
{
	int			fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	ssize_t		n;

	if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
	{
		fprintf(stderr, "pgwt-server: cannot read the token file '%s'%s\n", path,
				fd < 0 ? "" : ": not a regular file");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (sb.st_mode & 0077)
	{
		fprintf(stderr, "pgwt-server: the token file '%s' is readable by others (chmod 600)\n", path);
		close(fd);
		return 2;
	}
	n = read(fd, cfg->token, SRV_TOKEN_MAX);
	close(fd);
	if (n < 0)
		n = 0;
	cfg->token[n] = '\0';
	cfg->token[strcspn(cfg->token, "\r\n")] = '\0';
	return 0;
}

/* The default web root: build/web beside the program's bin/. */
static void
srv_default_web_root(srv_config *cfg)
{
	char		exe[PATH_MAX];
	ssize_t		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
	{
		snprintf(cfg->web_root, sizeof(cfg->web_root), "web");
		return;
	}
	exe[n] = '\0';
	snprintf(cfg->web_root, sizeof(cfg->web_root), "%s/../build/web", dirname(exe));
}

static int
srv_check_token(srv_config *cfg)
{
	const char *env = getenv("PGWT_SERVER_TOKEN");
	size_t		len;

	if (!cfg->token[0] && env)
		snprintf(cfg->token, sizeof(cfg->token), "%s", env);
	len = strlen(cfg->token);
	if (len && len < SRV_TOKEN_MIN)
	{
		fprintf(stderr, "pgwt-server: the token must be at least %d characters\n", SRV_TOKEN_MIN);
		return 2;
	}
	for (size_t i = 0; i < len; i++)
		if (cfg->token[i] <= ' ' || cfg->token[i] > '~')
		{
			fprintf(stderr, "pgwt-server: the token must be printable ASCII without spaces\n");
			return 2;
		}
	if (!cfg->loopback && !cfg->allow_remote)
	{
		fprintf(stderr, "pgwt-server: refusing to listen on %s: not a loopback address "
				"(use ssh -L, or --allow-remote with a token)\n", cfg->listen_text);
		return 2;
	}
	if (!cfg->loopback && !len)
	{
		fprintf(stderr, "pgwt-server: --allow-remote needs a token (--token-file or PGWT_SERVER_TOKEN)\n");
		return 2;
	}
	return 0;
}

int
srv_parse_args(int argc, char **argv, srv_config *cfg)
{
	static const struct option opts[] = {
		{"listen", required_argument, NULL, 'l'},
		{"allow-remote", no_argument, NULL, 'r'},
		{"token-file", required_argument, NULL, 't'},
		{"web-root", required_argument, NULL, 'w'},
		{"quiet", no_argument, NULL, 'q'},
		{"control", required_argument, NULL, 'c'},
		{"max-records", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	const char *listen = "127.0.0.1:8384";
	struct stat sb;
	int			c,
				rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->max_records = SRV_MAX_RECORDS_DEFAULT;
	srv_default_web_root(cfg);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
	{
		switch (c)
		{
			case 'l':
				listen = optarg;
				break;
			case 'r':
				cfg->allow_remote = true;
				break;
			case 't':
				if ((rc = srv_read_token(optarg, cfg)) != 0)
					return rc;
				break;
			case 'w':
				snprintf(cfg->web_root, sizeof(cfg->web_root), "%s", optarg);
				break;
			case 'c':
				cfg->control = optarg;
				break;
			case 'q':
				cfg->quiet = true;
				break;
			case 'm':
				if (!pgwt_parse_u64(optarg, 10, UINT64_MAX, &cfg->max_records) ||
					cfg->max_records == 0)
				{
					fprintf(stderr, "pgwt-server: --max-records: expected a positive integer\n");
					return 2;
				}
				break;
			case 'h':
				srv_usage(stdout);
				exit(0);
			default:
				srv_usage(stderr);
				return 2;
		}
	}
	if (optind != argc - 1)
	{
		srv_usage(stderr);
		return 2;
	}
	cfg->trace_dir = argv[optind];
	snprintf(cfg->listen_text, sizeof(cfg->listen_text), "%s", listen);
	if (!srv_parse_listen(listen, &cfg->addr, &cfg->addrlen, &cfg->loopback))
	{
		fprintf(stderr, "pgwt-server: --listen: expected ADDR:PORT (e.g. 127.0.0.1:8384 or [::1]:8384)\n");
		return 2;
	}
	if ((rc = srv_check_token(cfg)) != 0)
		return rc;
	if (stat(cfg->trace_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
	{
		fprintf(stderr, "pgwt-server: '%s' is not a readable trace directory\n", cfg->trace_dir);
		return 1;
	}
	return 0;
}
