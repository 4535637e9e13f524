/*
 * names_load.c
 *		events.tsv into a pgwt_names (see names_load.h). The side-file
 *		reader (tracefmt) checks each line's shape and bounds; this decides
 *		what a line may name. No state beyond the caller's objects.
 */
#include "analysis/names_load.h"

#include <string.h>

#include "tracefmt/tracefmt.h"

typedef struct nl_arg
{
	pgwt_names *names;
	uint64_t	unused;
} nl_arg;

static int
nl_event(const pgwt_tf_event_name *e, void *arg)
{
	nl_arg	   *a = arg;
	const char *cls = pgwt_class_name(pgwt_event_class(e->id));

	/* CPU* is not a wait; a row whose class disagrees with its id lies */
	if (e->id == 0 || !cls || strcmp(cls, e->class_name) != 0 ||
		!pgwt_names_set(a->names, e->id, e->name))
		a->unused++;
	return 0;
}

int
pgwt_names_load_dir(pgwt_names *names, const char *dir, uint32_t *pg_version,
					uint64_t *ignored)
{
	nl_arg		a = {names, 0};
	uint64_t	bad = 0;
	int			rc;

	rc = pgwt_tf_events_read(dir, nl_event, &a, pg_version, &bad);
	if (ignored)
		*ignored = a.unused + bad;
	return rc;
}
