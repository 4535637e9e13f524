/*
 * srv_static.c
 *		Serves the page's files from the web root. The request's path only
 *		selects an entry of a fixed table; the file opened is the entry's
 *		own name, relative to the web root, without following a symlink.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "srv_static.h"

#define SRV_STATIC_MAX (8u << 20)	/* bytes of one file */

typedef struct srv_file
{
	const char *url;
	const char *name;
	const char *ctype;
} srv_file;

static const srv_file srv_files[] = {
	{"/", "index.html", "text/html; charset=utf-8"},
	{"/index.html", "index.html", "text/html; charset=utf-8"},
	{"/style.css", "style.css", "text/css; charset=utf-8"},
	{"/app.js", "app.js", "text/javascript; charset=utf-8"},
	{"/api.js", "api.js", "text/javascript; charset=utf-8"},
	{"/state.js", "state.js", "text/javascript; charset=utf-8"},
	{"/chart.js", "chart.js", "text/javascript; charset=utf-8"},
	{"/tables.js", "tables.js", "text/javascript; charset=utf-8"},
	{"/hist.js", "hist.js", "text/javascript; charset=utf-8"},
	{"/exact.js", "exact.js", "text/javascript; charset=utf-8"},
	{"/daemon.js", "daemon.js", "text/javascript; charset=utf-8"},
	{"/echarts.min.js", "echarts.min.js", "text/javascript; charset=utf-8"},
};

static bool
srv_static_read(const srv_config *cfg, const char *name, pgwt_buf *b)
{
	int			dfd = open(cfg->web_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int			fd = dfd < 0 ? -1 : openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	bool		ok = false;

	if (dfd >= 0)
		close(dfd);
	if (fd < 0)
		return false;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
		(size_t) sb.st_size <= SRV_STATIC_MAX)
	{
		size_t		len = (size_t) sb.st_size,
					got = 0;

		b->data = malloc(len + 1);
		while (b->data && got < len)
		{
			ssize_t		n = read(fd, b->data + got, len - got);

			if (n <= 0)
				break;
			got += (size_t) n;
		}
		if (b->data && got == len)
		{
			b->data[len] = '\0';
			b->len = len;
			b->cap = len + 1;
			ok = true;
		}
	}
	close(fd);
	if (!ok)
		pgwt_buf_free(b);
	return ok;
}

bool
srv_static_serve(const srv_config *cfg, const char *url, srv_reply *r)
{
	for (size_t i = 0; i < sizeof(srv_files) / sizeof(srv_files[0]); i++)
		if (strcmp(url, srv_files[i].url) == 0)
		{
			if (!srv_static_read(cfg, srv_files[i].name, &r->body))
				srv_reply_error(r, 500, "the page's files are missing (run make)");
			else
				r->ctype = srv_files[i].ctype;
			return true;
		}
	return false;
}
