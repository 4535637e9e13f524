/*
 * session.c
 *		Attach to a cluster: choose it, resolve addresses, connect libpq,
 *		calibrate the query id offset, create the sampler.
 *
 * libpq is optional for sampling: wait events are read without it. It is
 * retried every few seconds (the cluster may still be starting), and the
 * sampler learns the query id offset once calibration succeeds.
 */
#include "tracer/session.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracer/sampler.h"
#include "tracer/watch_source.h"

#define SESSION_PG_RETRY_NS 2000000000ull
#define SESSION_MAX_CLUSTERS 64

int
pgwt_target_select(const pgwt_options *o, pgwt_cluster *c, FILE *listing,
				   char *errbuf, size_t errlen)
{
	pgwt_cluster found[SESSION_MAX_CLUSTERS];
	int			n;

	if (o->pid)
		return pgwt_cluster_from_pid(o->pid, c, errbuf, errlen);
	if (o->pgdata)
		return pgwt_cluster_from_pgdata(o->pgdata, c, errbuf, errlen);
	n = pgwt_cluster_discover(found, SESSION_MAX_CLUSTERS);
	if (n == 1)
	{
		*c = found[0];
		return 0;
	}
	if (n == 0)
	{
		snprintf(errbuf, errlen, "no running PostgreSQL cluster found (use --pid or --pgdata)");
		return -1;
	}
	if (listing)
	{
		fprintf(listing, "%-8s %-7s %-6s %s\n", "PID", "VERSION", "PORT", "PGDATA");
		for (int i = 0; i < n; i++)
			fprintf(listing, "%-8d %-7d %-6d %s\n", found[i].pid, found[i].pg_major,
					found[i].port, found[i].pgdata);
	}
	snprintf(errbuf, errlen, "%d PostgreSQL clusters are running: choose one with --pid or --pgdata", n);
	return -1;
}

int
pgwt_session_open(pgwt_session *s, const pgwt_options *o, const pgwt_cluster *c,
				  pgwt_self_metrics *m, char *errbuf, size_t errlen)
{
	pgwt_sampler_config cfg;

	memset(s, 0, sizeof(*s));
	s->cluster = *c;
	s->server_version = c->pg_major * 10000;
	if (pgwt_attach_resolve(c, &s->attach, errbuf, errlen) != 0)
		return -1;
	if (o->mode != PGWT_MODE_FULL)
	{
		memset(&cfg, 0, sizeof(cfg));
		cfg.rate_hz = o->sample_rate;
		cfg.postmaster_pid = c->pid;
		cfg.attach = s->attach;
		cfg.metrics = m;
		cfg.rt_priority = o->sampler_priority >= 0 ? o->sampler_priority : geteuid() == 0 ? 1 : 0;
		s->sampler = pgwt_sampler_create(&cfg);
		if (!s->sampler)
		{
			snprintf(errbuf, errlen, "cannot start the sampler (out of memory or no /proc)");
			return -1;
		}
		s->src = s->sampler;
	}
	if (o->mode == PGWT_MODE_FULL || o->mode == PGWT_MODE_TIERED)
	{
		pgwt_watch_source_config wc;

		memset(&wc, 0, sizeof(wc));
		wc.postmaster_pid = c->pid;
		wc.attach = s->attach;
		wc.lightweight = o->lightweight;
		wc.skip_query_id = o->skip_query_id;
		wc.primary = o->mode == PGWT_MODE_FULL;
		wc.metrics = m;
		/* enabled by the caller once the query id offset is known */
		s->watch = pgwt_watch_source_create(&wc, s->watch_err, sizeof(s->watch_err));
		if (!s->watch && o->mode == PGWT_MODE_FULL)
		{
			snprintf(errbuf, errlen, "--mode full: %s", s->watch_err);
			return -1;
		}
		if (!s->watch)
			fprintf(stderr, "pg_wait_tracer: the exact tier is not available, escalation is off: %s\n",
					s->watch_err);
		if (o->mode == PGWT_MODE_FULL)
			s->src = s->watch;
	}
	m->attaches_total++;
	return 0;
}

void
pgwt_session_connect(pgwt_session *s, const pgwt_options *o, uint64_t now_ns, int verbose)
{
	char		err[512];

	if (s->pg && s->qid_status != 0)
		return;
	if (!s->pg)
	{
		if (s->last_pg_try_ns && now_ns - s->last_pg_try_ns < SESSION_PG_RETRY_NS)
			return;
		s->last_pg_try_ns = now_ns;
		s->pg = pgwt_pg_connect(&s->cluster, o->host, o->user, o->dbname, err, sizeof(err));
		if (!s->pg)
		{
			if (verbose)
				fprintf(stderr, "pg_wait_tracer: %s (will retry)\n", err);
			return;
		}
		s->server_version = pgwt_pg_server_version(s->pg);
		pgwt_session_ignore_pid(s, (uint32_t) pgwt_pg_backend_pid(s->pg));
	}
	if (pgwt_pg_calibrate_query_id(s->pg, &s->attach, err, sizeof(err)) == 0)
	{
		s->qid_status = 1;
		if (s->sampler)
			pgwt_sampler_set_qid_offset(s->sampler, s->attach.qid_offset);
		if (s->watch)
			pgwt_watch_source_set_qid_offset(s->watch, s->attach.qid_offset);
		if (verbose)
			fprintf(stderr, "pg_wait_tracer: st_query_id at offset %d of PgBackendStatus\n",
					s->attach.qid_offset);
	}
	else
	{
		s->qid_status = -1;
		snprintf(s->qid_reason, sizeof(s->qid_reason), "%s", err);
		fprintf(stderr, "pg_wait_tracer: %s\n", err);
	}
}

void
pgwt_session_ignore_pid(pgwt_session *s, uint32_t pid)
{
	if (s->sampler)
		pgwt_sampler_ignore_pid(s->sampler, pid);
	if (s->watch)
		pgwt_watch_source_ignore_pid(s->watch, pid);
}

void
pgwt_session_close(pgwt_session *s)
{
	if (s->sampler)
		s->sampler->destroy(s->sampler);
	if (s->watch)
		s->watch->destroy(s->watch);
	pgwt_pg_close(s->pg);
	memset(s, 0, sizeof(*s));
}
