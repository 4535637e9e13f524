/*
 * session.c
 *		Attach to a cluster: choose it, resolve addresses, connect libpq,
 *		calibrate the query id offset, create the sampler.
 *
 * libpq is optional for sampling: wait events are read without it. It is
 * retried every few seconds (the cluster may still be starting), and the
 * sampler learns the query id offset once calibration succeeds.
 *
 * The tracer's own backends are left out of capture: the session's libpq
 * connection by pid (pgwt_session_ignore_pid), the SQL listener's
 * connections through the listener's set, which both tiers read themselves.
 *
 * Processes not worth capturing are left out the same way, through a second
 * set of the same kind (non_sessions), rebuilt at each read of
 * pg_stat_activity: those pgwt_kind_is_captured (common/process_rule.h)
 * refuses (a background worker that never connected to a database, the
 * extension's own workers), or a child of
 * the postmaster with no row at all that is older than a second (a new
 * backend has no row until it has authenticated, and its first ticks must
 * not be lost, so a younger one is sampled and judged at the next read,
 * which the caller makes within a second). The same rule as the extension's
 * sampler, so both tiers capture the same processes; which of them are DB
 * time is decided by the analysis (pgwt_kind_is_session). A process that gets a
 * row as a session later leaves the set and is found again by a rescan.
 */
#include "tracer/session.h"

#include <stdlib.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/process_rule.h"
#include "tracer/esc_listen.h"
#include "tracer/sampler.h"
#include "tracer/sched_source.h"
#include "tracer/tier_stats.h"
#include "tracer/watch_source.h"

#define SESSION_PG_RETRY_NS 2000000000ull
#define SESSION_MAX_CLUSTERS 64
#define SESSION_ROWLESS_GRACE_NS 1000000000ull	/* a row-less child this old is no session */
#define SESSION_MAX_CHILDREN 16384

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

/*
 * --mode sched: the scheduler tier is the only source. It is refused, with
 * the reason, when its program cannot load or its tracepoints do not fire.
 */
static int
session_open_sched(pgwt_session *s, const pgwt_options *o, const pgwt_cluster *c,
				   pgwt_self_metrics *m, char *errbuf, size_t errlen)
{
	pgwt_watch_source_config wc;
	pgwt_watch_self_test r;

	memset(&wc, 0, sizeof(wc));
	wc.postmaster_pid = c->pid;
	wc.attach = s->attach;
	wc.skip_query_id = o->skip_query_id;
	wc.primary = true;
	wc.metrics = m;
	/* enabled by the caller once the query id offset is known */
	s->watch = pgwt_sched_source_create(&wc, s->watch_err, sizeof(s->watch_err));
	if (s->watch && pgwt_watch_source_self_test(s->watch, &r) != 0)
	{
		snprintf(s->watch_err, sizeof(s->watch_err), "%s", r.why);
		s->watch->destroy(s->watch);
		s->watch = NULL;
	}
	if (!s->watch)
	{
		snprintf(errbuf, errlen, "--mode sched refused: %s", s->watch_err);
		return -1;
	}
	pgwt_watch_source_set_exclusions(s->watch, pgwt_esc_listen_own_backends(), &s->non_sessions);
	s->exact_ok = true;
	s->src = s->watch;
	m->attaches_total++;
	return 0;
}

/* One exact source of tiered mode, created disabled and self-tested. */
static pgwt_capture_source *
session_exact_try(pgwt_session *s, const pgwt_options *o, const pgwt_cluster *c,
				  pgwt_self_metrics *m, pgwt_tf_exact_source which, bool *ok,
				  char *why, size_t whylen)
{
	pgwt_watch_source_config wc;
	pgwt_capture_source *src;
	pgwt_watch_self_test r;

	memset(&wc, 0, sizeof(wc));
	wc.postmaster_pid = c->pid;
	wc.attach = s->attach;
	wc.skip_query_id = o->skip_query_id;
	wc.metrics = m;
	*ok = false;
	/* enabled by the caller once the query id offset is known */
	src = which == PGWT_TF_XSRC_SCHED ? pgwt_sched_source_create(&wc, why, whylen) :
		pgwt_watch_source_create(&wc, why, whylen);
	if (!src)
		return NULL;
	/* a tier that cannot see must not report what it did not see */
	pgwt_watch_source_set_exclusions(src, pgwt_esc_listen_own_backends(), &s->non_sessions);
	*ok = pgwt_watch_source_self_test(src, &r) == 0;
	if (!*ok)
		snprintf(why, whylen, "%s", r.why);
	return src;
}

/*
 * Tiered: the escalation windows' source, tried in --exact-source's order
 * (tier_stats.h). A source whose self-test fails is passed over for the
 * next; when all fail the first stays, tested again before each window,
 * and watch_err says why.
 */
static void
session_open_tiered_exact(pgwt_session *s, const pgwt_options *o, const pgwt_cluster *c,
						  pgwt_self_metrics *m)
{
	pgwt_tf_exact_source order[2];
	int			n = pgwt_exact_order(o->exact_source, order);
	char		why[256];

	s->watch = NULL;
	s->exact_ok = false;
	s->watch_err[0] = '\0';
	for (int i = 0; i < n && !s->exact_ok; i++)
	{
		bool		ok;
		pgwt_capture_source *src = session_exact_try(s, o, c, m, order[i], &ok, why, sizeof(why));

		if (ok || !s->watch)
		{
			if (s->watch)
				s->watch->destroy(s->watch);
			s->watch = src;
			s->exact_ok = ok;
		}
		else if (src)
			src->destroy(src);
		if (!ok)
			snprintf(s->watch_err + strlen(s->watch_err), sizeof(s->watch_err) - strlen(s->watch_err),
					 "%s%s%s%s", s->watch_err[0] ? "; " : "",
					 n > 1 ? pgwt_tf_exact_source_name(order[i]) : "", n > 1 ? ": " : "", why);
	}
	if (s->exact_ok && s->watch_err[0] && (o->daemon || o->verbose))
		fprintf(stderr, "pg_wait_tracer: escalation windows use the scheduler's tracepoints (%s)\n",
				s->watch_err);
	if (s->exact_ok)
		s->watch_err[0] = '\0';
	else if (o->daemon || o->verbose)
		fprintf(stderr, "pg_wait_tracer: sampled only, escalation to exact windows refused: %s\n",
				s->watch_err);
}

/*
 * Tiered, --exact-source auto, between windows: choose the windows' source
 * again in the order of tier_stats.h (the one in use is destroyed first:
 * it is not enabled, so nothing of it is lost), then give the new one
 * what the session learnt since the attach (query id offsets, our own
 * connection).
 */
void
pgwt_session_reselect_exact(pgwt_session *s, const pgwt_options *o, pgwt_self_metrics *m)
{
	if (s->watch)
		s->watch->destroy(s->watch);
	s->watch = NULL;
	session_open_tiered_exact(s, o, &s->cluster, m);
	if (!s->watch)
		return;
	pgwt_watch_source_set_qid_offset(s->watch, s->attach.qid_offset, s->attach.xact_offset);
	if (s->pg)
		pgwt_watch_source_ignore_pid(s->watch, (uint32_t) pgwt_pg_backend_pid(s->pg));
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
	if (o->mode != PGWT_MODE_FULL && o->mode != PGWT_MODE_SCHED)
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
		pgwt_sampler_set_exclusions(s->sampler, pgwt_esc_listen_own_backends(), &s->non_sessions);
		s->src = s->sampler;
	}
	if (o->mode == PGWT_MODE_SCHED)
		return session_open_sched(s, o, c, m, errbuf, errlen);
	if (o->mode == PGWT_MODE_TIERED)
		session_open_tiered_exact(s, o, c, m);
	else if (o->mode == PGWT_MODE_FULL)
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
		s->exact_ok = false;
		if (s->watch)
		{
			pgwt_watch_self_test r;

			/* a tier that cannot see must not report what it did not see */
			pgwt_watch_source_set_exclusions(s->watch, pgwt_esc_listen_own_backends(),
											 &s->non_sessions);
			s->exact_ok = pgwt_watch_source_self_test(s->watch, &r) == 0;
			if (!s->exact_ok)
				snprintf(s->watch_err, sizeof(s->watch_err), "%s", r.why);
			if (!s->exact_ok && o->mode == PGWT_MODE_FULL)
			{
				s->watch->destroy(s->watch);
				s->watch = NULL;
			}
		}
		if (!s->exact_ok && o->mode == PGWT_MODE_FULL)
		{
			snprintf(errbuf, errlen, "--mode full refused: %s", s->watch_err);
			return -1;
		}
		/* the daemon's log says so; a one-off run shows it in its status */
		if (!s->exact_ok && (o->daemon || o->verbose))
			fprintf(stderr, "pg_wait_tracer: sampled only, escalation to exact windows refused: %s\n",
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
			pgwt_sampler_set_qid_offset(s->sampler, s->attach.qid_offset, s->attach.xact_offset);
		if (s->watch)
			pgwt_watch_source_set_qid_offset(s->watch, s->attach.qid_offset, s->attach.xact_offset);
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

static int
session_cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return x < y ? -1 : x > y;
}

static bool
session_in_sorted(const uint32_t *v, int n, uint32_t pid)
{
	return n > 0 && bsearch(&pid, v, (size_t) n, sizeof(uint32_t), session_cmp_u32) != NULL;
}

/* Read a small /proc file into buf (NUL-terminated); -1 when unreadable. */
static int
session_read_proc(const char *path, char *buf, size_t cap)
{
	int			fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t		len = 0;
	ssize_t		r;

	if (fd < 0)
		return -1;
	while (len + 1 < cap && (r = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t) r;
	close(fd);
	buf[len] = '\0';
	return 0;
}

/*
 * How long ago the process started (CLOCK_BOOTTIME, the clock of
 * /proc/PID/stat's starttime); UINT64_MAX when it is gone.
 */
static uint64_t
session_proc_age_ns(uint32_t pid)
{
	char		path[64],
				buf[1024];
	const char *p;
	unsigned long long start_ticks;
	long		hz = sysconf(_SC_CLK_TCK);
	struct timespec ts;
	uint64_t	start_ns,
				now_ns;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (session_read_proc(path, buf, sizeof(buf)) != 0 || !(p = strrchr(buf, ')')))
		return UINT64_MAX;
	/* after "comm)": state is field 3, starttime field 22 */
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start_ticks) != 1 || hz <= 0)
		return UINT64_MAX;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	now_ns = (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
	start_ns = (uint64_t) (start_ticks / (unsigned long long) hz) * 1000000000ull +
		(uint64_t) (start_ticks % (unsigned long long) hz) * (1000000000ull / (uint64_t) hz);
	return now_ns > start_ns ? now_ns - start_ns : 0;
}

bool
pgwt_session_classify(pgwt_session *s, const pgwt_pg_backend *rows, int n, uint64_t now_ns)
{
	static uint32_t rowpids[4096];
	static uint32_t want[PGWT_OWN_SLOTS];
	static char children[SESSION_MAX_CHILDREN * 8];
	pgwt_own_backends *o = &s->non_sessions;
	char		path[96];
	int			nrow = 0,
				nwant = 0;
	bool		young = false,
				rescan = false;
	uint64_t	capped = 0;

	for (int i = 0; i < n && nrow < 4096; i++)
	{
		rowpids[nrow++] = rows[i].pid;
		if (pgwt_kind_is_captured(pgwt_proc_kind_of_type(rows[i].type), !rows[i].no_database))
			continue;
		if (nwant < PGWT_OWN_SLOTS)
			want[nwant++] = rows[i].pid;
		else
			capped++;
	}
	qsort(rowpids, (size_t) nrow, sizeof(uint32_t), session_cmp_u32);

	/* children without a row: the postmaster is single-threaded */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", s->cluster.pid, s->cluster.pid);
	if (session_read_proc(path, children, sizeof(children)) == 0)
	{
		char	   *p = children;

		while (*p)
		{
			char	   *end;
			uint32_t	pid = (uint32_t) strtoul(p, &end, 10);
			uint64_t	age;

			if (end == p)
				break;
			p = end;
			while (*p == ' ' || *p == '\n')
				p++;
			if (pid == 0 || session_in_sorted(rowpids, nrow, pid))
				continue;
			age = session_proc_age_ns(pid);
			if (age == UINT64_MAX)
				continue;		/* exited meanwhile */
			if (age < SESSION_ROWLESS_GRACE_NS)
			{
				young = true;
				continue;
			}
			if (nwant < PGWT_OWN_SLOTS)
				want[nwant++] = pid;
			else
				capped++;
		}
	}
	qsort(want, (size_t) nwant, sizeof(uint32_t), session_cmp_u32);

	/* the set's slots: close the pids that left, fill free slots with new ones */
	for (int k = 0; k < PGWT_OWN_SLOTS; k++)
	{
		uint32_t	pid = o->slot_pid[k];

		if (o->slot_since_ns[k] == 0 || session_in_sorted(want, nwant, pid))
			continue;
		/* still there with a row: it became a session, find it again */
		if (session_in_sorted(rowpids, nrow, pid))
			rescan = true;
		pgwt_own_closed(o, k);
	}
	for (int i = 0, k = 0; i < nwant; i++)
	{
		if (pgwt_own_has(o, want[i]))
			continue;
		while (k < PGWT_OWN_SLOTS && o->slot_since_ns[k] != 0)
			k++;
		if (k == PGWT_OWN_SLOTS)
		{
			capped++;
			continue;
		}
		pgwt_own_connecting(o, k, now_ns);
		pgwt_own_connected(o, k, want[i]);
	}
	s->non_sessions_capped = capped;
	if (rescan)
	{
		if (s->sampler)
			pgwt_sampler_rescan_soon(s->sampler);
		if (s->watch)
			pgwt_watch_source_rescan_soon(s->watch);
	}
	return young;
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
