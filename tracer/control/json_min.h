/*
 * json_min.h
 *		The small JSON the control protocol needs: parse one flat request
 *		object (string, number, true/false/null values; no nesting), and
 *		build response objects with correct escaping. Pure, no I/O.
 */
#ifndef PGWT_CONTROL_JSON_MIN_H
#define PGWT_CONTROL_JSON_MIN_H

#include <stdbool.h>
#include <stddef.h>

#define PGWT_JSON_MAX_FIELDS	16
#define PGWT_JSON_MAX_STR		256

typedef enum pgwt_json_type
{
	PGWT_JSON_STRING,
	PGWT_JSON_NUMBER,
	PGWT_JSON_BOOL,
	PGWT_JSON_NULL
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
/* Closes the object and appends '\n'; returns its length or -1 on overflow. */
long		pgwt_json_end(pgwt_json_out *o);

#endif							/* PGWT_CONTROL_JSON_MIN_H */
