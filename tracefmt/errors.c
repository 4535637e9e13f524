/*
 * errors.c
 *		The error table of the trace format library (X-macro in tracefmt.h).
 */
#include "tracefmt/tracefmt.h"

static const char *const tf_error_text[] = {
#define PGWT_TF_X_TEXT(name, text) text,
	PGWT_TF_ERRORS(PGWT_TF_X_TEXT)
#undef PGWT_TF_X_TEXT
};

const char *
pgwt_tf_strerror(int err)
{
	unsigned	i = (unsigned) (err < 0 ? -err : err);

	if (i >= PGWT_TF_ERR_COUNT)
		return "unknown trace format error";
	return tf_error_text[i];
}
