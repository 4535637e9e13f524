/*
 * render_compare.c
 *		JSON and CSV of compare rows (compare.h): keys named as the views
 *		name them (class labels, Class:Name events, signed query ids);
 *		strings through render.c's one JSON and CSV writers.
 */
#include <inttypes.h>
#include <stdio.h>

#include "analysis/compare.h"
#include "analysis/render_internal.h"
#include "analysis/wait_event.h"

static const char *const rc_kind_names[] = {"class", "event", "query_event"};

/* The row's class or event label into out. */
static void
rc_label(const pgwt_render_opts *o, pgwt_cmp_kind kind, const pgwt_cmp_row *r, char *out, size_t len)
{
	if (kind == PGWT_CMP_CLASS)
	{
		const char *n = r->k1 < PGWT_NCLASSES ? pgwt_class_name((unsigned) r->k1) : NULL;

		snprintf(out, len, "%s", n ? n : "(unknown class)");
	}
	else
		pgwt_event_format(o->names, (uint32_t) (kind == PGWT_CMP_EVENT ? r->k1 : r->k2), out, len);
}

void
pgwt_render_compare(pgwt_buf *b, const pgwt_render_opts *o, pgwt_cmp_kind kind,
					uint64_t a_db, uint64_t b_db, const pgwt_cmp_row *rows, size_t n)
{
	bool		csv = o->format == PGWT_OUT_CSV;
	char		label[256];

	if (csv)
		pgwt_buf_printf(b, "%s%s,a_ns,a_pct_db,b_ns,b_pct_db,delta_ns,delta_pct_db\n",
						kind == PGWT_CMP_QUERY_EVENT ? "query_id," : "",
						kind == PGWT_CMP_CLASS ? "class" : "event");
	else
		pgwt_buf_printf(b, "{\"compare\":\"%s\",\"a_db_ns\":%" PRIu64 ",\"b_db_ns\":%" PRIu64 ",\"rows\":[",
						rc_kind_names[kind], a_db, b_db);
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_cmp_row *r = &rows[i];

		rc_label(o, kind, r, label, sizeof(label));
		if (csv)
		{
			if (kind == PGWT_CMP_QUERY_EVENT)
				pgwt_buf_printf(b, "%" PRId64 ",", (int64_t) r->k1);
			pgwt_rd_csv_str(b, label);
			pgwt_buf_printf(b, ",%" PRIu64 ",%.4f,%" PRIu64 ",%.4f,%" PRId64 ",%.4f\n",
							r->a_ns, r->a_pct, r->b_ns, r->b_pct, r->delta_ns, r->delta_pct);
			continue;
		}
		pgwt_buf_printf(b, "%s{", i ? "," : "");
		if (kind == PGWT_CMP_QUERY_EVENT)
			pgwt_buf_printf(b, "\"query_id\":%" PRId64 ",", (int64_t) r->k1);
		pgwt_buf_printf(b, "\"%s\":", kind == PGWT_CMP_CLASS ? "class" : "event");
		pgwt_rd_json_str(b, label);
		pgwt_buf_printf(b, ",\"a_ns\":%" PRIu64 ",\"a_pct_db\":%.4f,\"b_ns\":%" PRIu64
						",\"b_pct_db\":%.4f,\"delta_ns\":%" PRId64 ",\"delta_pct_db\":%.4f}",
						r->a_ns, r->a_pct, r->b_ns, r->b_pct, r->delta_ns, r->delta_pct);
	}
	if (!csv)
		pgwt_buf_printf(b, "]}");
}
