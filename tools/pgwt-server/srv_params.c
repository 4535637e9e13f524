/*
 * srv_params.c
 *		Checks of the API's query parameters: decimal integers only (no
 *		sign, no spaces, no overflow), ranges ordered. Pure.
 */
#include <string.h>

#include "srv_api.h"
#include "common/parse_u64.h"

bool
srv_param_u64(const char *s, uint64_t *out)
{
	return pgwt_parse_u64(s, 10, UINT64_MAX, out);
}

bool
srv_param_format(const char *s, pgwt_out_format *out)
{
	if (!s)
	{
		*out = PGWT_OUT_JSON;
		return true;
	}
	return strcmp(s, "text") != 0 && pgwt_out_format_parse(s, out);
}

bool
srv_param_limit(const char *s, size_t *out)
{
	uint64_t	u;

	if (!s)
	{
		*out = 500;
		return true;
	}
	if (!srv_param_u64(s, &u) || u == 0 || u > SRV_MAX_LIMIT)
		return false;
	*out = (size_t) u;
	return true;
}

bool
srv_param_query_id(const char *s, uint64_t *out)
{
	/* query ids print signed (as PostgreSQL shows them) */
	bool		neg = s && s[0] == '-';
	uint64_t	u;

	if (!s || !srv_param_u64(s + neg, &u) || (neg && u > (uint64_t) INT64_MAX + 1))
		return false;
	*out = neg ? (uint64_t) 0 - u : u;
	return true;
}

bool
srv_param_range_named(srv_arg_fn arg, void *conn, const char *fname, const char *tname,
					  uint64_t *from, uint64_t *to, srv_reply *r)
{
	const char *f = arg(conn, fname),
			   *t = arg(conn, tname);

	*from = 0;
	*to = UINT64_MAX;
	if (f && !srv_param_u64(f, from))
	{
		srv_reply_error(r, 400, "from: expected nanoseconds since the epoch (decimal)");
		return false;
	}
	if (t && !srv_param_u64(t, to))
	{
		srv_reply_error(r, 400, "to: expected nanoseconds since the epoch (decimal)");
		return false;
	}
	if (*from >= *to)
	{
		srv_reply_error(r, 400, "from must be before to");
		return false;
	}
	return true;
}

bool
srv_param_range(srv_arg_fn arg, void *conn, uint64_t *from, uint64_t *to, srv_reply *r)
{
	return srv_param_range_named(arg, conn, "from", "to", from, to, r);
}
