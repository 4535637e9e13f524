/*
 * json_min.h
 *		The project's one JSON parser and writer, for the small objects
 *		its protocols exchange: the tracer's control socket requests and
 *		responses, and both directions of the escalation channel between
 *		the extension and the tracer (common/esc_protocol.h). Parses one
 *		flat object (string, number, true/false/null values); builds
 *		objects with correct escaping. Bounded: at most
 *		PGWT_JSON_MAX_FIELDS fields, strings under PGWT_JSON_MAX_STR bytes,
 *		nesting (only where a caller allows it) at most PGWT_JSON_MAX_DEPTH
 *		deep. Pure, no I/O, no allocation; the extension links it too.
 */
#ifndef PGWT_COMMON_JSON_MIN_H
#define PGWT_COMMON_JSON_MIN_H

#include <stdbool.h>
#include <stddef.h>

#define PGWT_JSON_MAX_FIELDS	16
#define PGWT_JSON_MAX_STR		256
#define PGWT_JSON_MAX_DEPTH		8

typedef enum pgwt_json_type
{
	PGWT_JSON_STRING,
	PGWT_JSON_NUMBER,
	PGWT_JSON_BOOL,
	PGWT_JSON_NULL,
	PGWT_JSON_NESTED			/* an array or object, checked and skipped */
} pgwt_json_type;

typedef struct pgwt_json_field
{
	char		key[64];
	pgwt_json_type type;
	char		str[PGWT_JSON_MAX_STR];
	double		num;
	bool		boolean;
} pgwt_json_field;

typedef struct pgwt_json_obj
{
	pgwt_json_field fields[PGWT_JSON_MAX_FIELDS];
	int			nfields;
} pgwt_json_obj;

/*
 * Parses text[0..len) as one flat object. Returns 0, or -1 with a short
 * reason in err ("expected '{'", "nested values are not accepted", ...).
 */
int			pgwt_json_parse(const char *text, size_t len, pgwt_json_obj *obj,
							char *err, size_t errlen);

/*
 * The same, but a value may be an array or object (well-formed, bounded):
 * its field has type PGWT_JSON_NESTED and no content. For messages whose
 * newer versions may add structured keys (the escalation payload).
 */
int			pgwt_json_parse_nested(const char *text, size_t len, pgwt_json_obj *obj,
								   char *err, size_t errlen);

/*
 * Walks one object whose values may be arrays (a names table: {"IO":
 * ["DataFileRead", ...], "pg_version": 18}): cb gets each string element
 * of each top-level array with its key and index; other elements and
 * values are checked and skipped. Returns 0, 1 when cb stopped it (cb
 * returned non-zero), or -1 with a reason in err.
 */
typedef int (*pgwt_json_string_cb) (const char *key, int index, const char *value,
									void *arg);
int			pgwt_json_each_string(const char *text, size_t len, pgwt_json_string_cb cb,
								  void *arg, char *err, size_t errlen);

/* An integer field (a number with no fraction, |v| <= 2^53): true if so.
 * A number field's str holds its text as written, for wider integers. */
bool		pgwt_json_get_int(const pgwt_json_obj *obj, const char *key, long long *out);

const pgwt_json_field *pgwt_json_get(const pgwt_json_obj *obj, const char *key);

/* A response being built into a caller's buffer; overflow is sticky. */
typedef struct pgwt_json_out
{
	char	   *buf;
	size_t		cap;
	size_t		len;
	bool		overflow;
	int			nfields;
} pgwt_json_out;

void		pgwt_json_begin(pgwt_json_out *o, char *buf, size_t cap);
void		pgwt_json_str(pgwt_json_out *o, const char *key, const char *val);
void		pgwt_json_num(pgwt_json_out *o, const char *key, double val);
void		pgwt_json_int(pgwt_json_out *o, const char *key, long long val);
void		pgwt_json_bool(pgwt_json_out *o, const char *key, bool val);
void		pgwt_json_null(pgwt_json_out *o, const char *key);
/* A key whose value is an array of n strings. */
void		pgwt_json_str_array(pgwt_json_out *o, const char *key, const char *const *vals, int n);
/* Closes the object and appends '\n'; returns its length or -1 on overflow. */
long		pgwt_json_end(pgwt_json_out *o);

#endif							/* PGWT_COMMON_JSON_MIN_H */
