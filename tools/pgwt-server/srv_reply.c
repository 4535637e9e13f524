/*
 * srv_reply.c
 *		The error reply every layer of pgwt-server fills (parameters,
 *		handlers, the HTTP layer): below all of them, so none depends on
 *		another for it.
 */
#include <string.h>

#include "srv.h"

void
srv_reply_error(srv_reply *r, unsigned status, const char *msg)
{
	pgwt_buf_free(&r->body);
	r->status = status;
	r->ctype = "application/json";
	r->filename[0] = '\0';
	/* our own messages: no quote or backslash to escape */
	pgwt_buf_printf(&r->body, "{\"error\":\"%s\"}", msg);
}

void
srv_reply_load_error(srv_reply *r, const char *err)
{
	if (err && strcmp(err, SRV_TOO_LARGE_MSG) == 0)
		srv_reply_error(r, 413, SRV_TOO_LARGE_MSG);
	else
		srv_reply_error(r, 500, "the trace directory could not be read");
}
