/*
 * backends_load.c
 *		backends.tsv into engine metadata (see backends_load.h). The only
 *		I/O is tracefmt's side-file reader.
 */
#include "analysis/backends_load.h"

#include <stdio.h>
#include <string.h>

void
pgwt_backend_info_from_tf(const pgwt_tf_backend *b, pgwt_backend_info *out)
{
	memset(out, 0, sizeof(*out));
	out->pid = b->pid;
	out->leader_pid = b->leader_pid;
	out->start_realtime_ns = b->start_realtime_ns;
	snprintf(out->type, sizeof(out->type), "%s", b->type ? b->type : "");
	snprintf(out->user, sizeof(out->user), "%s", b->user ? b->user : "");
	snprintf(out->database, sizeof(out->database), "%s", b->database ? b->database : "");
	snprintf(out->application, sizeof(out->application), "%s",
			 b->application_name ? b->application_name : "");
	snprintf(out->client_addr, sizeof(out->client_addr), "%s", b->client_addr ? b->client_addr : "");
}

static int
backends_load_cb(const pgwt_tf_backend *b, void *arg)
{
	pgwt_backend_info bi;

	pgwt_backend_info_from_tf(b, &bi);
	pgwt_engine_set_backend((pgwt_engine *) arg, &bi);
	return 0;
}

int
pgwt_backends_load(pgwt_engine *eng, const char *dir, uint64_t *bad)
{
	int			rc = pgwt_tf_backends_read(dir, backends_load_cb, eng, bad);

	return rc == -PGWT_TF_NOT_FOUND ? 0 : rc;
}
