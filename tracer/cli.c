/*
 * cli.c
 *		Option parsing and cross-checks. Pure: getopt_long with its own
 *		messages suppressed, every error returned as one line.
 */
#include "tracer/cli.h"

#include "analysis/timeparse.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cli_view_names[] = {
	"time_model", "system_event", "session_event", "active", "histogram", "query_event"
};
static const char *const cli_sort_names[] = {"wait_time", "db_time", "pid", "event"};
static const char *const cli_format_names[] = {"auto", "tui", "text", "json", "csv"};

static const char *const cli_mode_names[] = {"tiered", "sampled", "full", "coop", "sched"};
static const char *const cli_exact_names[] = {"auto", "watch", "sched"};
static const char *const cli_query_text_names[] = {"normalized", "none"};

/* --anomaly-* flags: name, range; order of pgwt_cli_anomaly */
static const struct
{
	const char *name;
	double		lo,
				hi;
}			cli_anomaly_flags[PGWT_CLI_AN_COUNT] = {
	{"anomaly-aas-factor", 1.0, 1e12},
	{"anomaly-aas-ticks", 1, 1000000},
	{"anomaly-aas-min", 0, 1e6},
	{"anomaly-lock-fraction", 0, 1},
	{"anomaly-lock-min-aas", 0, 1e6},
	{"anomaly-cooldown-s", 0, 1e7},
	{"anomaly-window-s", 1, 86400},
	{"anomaly-cpu-capacity", 0.01, 1e5},
	{"anomaly-cpu-min-aas", 0, 1e6},
	{"anomaly-cpu-margin", 0, 1},
	{"anomaly-cpu-cusum-k", 0, 10},
	{"anomaly-cpu-cusum-h", 0.001, 1e6},
	{"anomaly-cpu-cusum-cap", 0.01, 100},
	{"anomaly-cpu-coverage-gap-s", 0.001, 1e6},
};

const char *
pgwt_mode_name(pgwt_mode m)
{
	return cli_mode_names[m];
}

const char *
pgwt_exact_choice_name(pgwt_exact_choice c)
{
	return cli_exact_names[c];
}

const char *
pgwt_cli_sort_name(pgwt_cli_sort s)
{
	return cli_sort_names[s];
}

const char *
pgwt_view_name(pgwt_view v)
{
	return cli_view_names[v];
}

static int
cli_lookup(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static int
cli_fail(char *err, size_t errlen, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Whole-string integer in [lo, hi]. */
static int
cli_long(const char *s, long lo, long hi, long *out)
{
	char	   *end;
	long		v;

	if (!s || !*s || isspace((unsigned char) *s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int
cli_double(const char *s, double lo, double hi, double *out)
{
	char	   *end;
	double		v;

	if (!s || !*s || isspace((unsigned char) *s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

enum
{
	OPT_SAMPLE_RATE = 1000, OPT_RETENTION_GB, OPT_TRACE_GROUP, OPT_REPLAY,
	OPT_FROM, OPT_TO, OPT_DAEMON, OPT_MODE, OPT_DBNAME, OPT_USER, OPT_HOST,
	OPT_LIGHTWEIGHT, OPT_SKIP_QID, OPT_CHECK_EXACT, OPT_FINE, OPT_SAMPLER_PRIORITY, OPT_BUDGET, OPT_METRICS_LISTEN, OPT_CPU_DISABLE,
	OPT_QUERY_TEXT, OPT_ACCEPT_DAMAGED, OPT_SEED_FORMAT, OPT_EXACT_SOURCE,
	OPT_ANOMALY_FIRST			/* + pgwt_cli_anomaly */
};

static const struct option cli_long_opts[] = {
	{"pid", required_argument, NULL, 'p'},
	{"pgdata", required_argument, NULL, 'D'},
	{"view", required_argument, NULL, 'V'},
	{"sort", required_argument, NULL, 'S'},
	{"format", required_argument, NULL, 'f'},
	{"interval", required_argument, NULL, 'i'},
	{"duration", required_argument, NULL, 'd'},
	{"count", required_argument, NULL, 'n'},
	{"window", required_argument, NULL, 'w'},
	{"event", required_argument, NULL, 'e'},
	{"pid-filter", required_argument, NULL, 'P'},
	{"query-id", required_argument, NULL, 'Q'},
	{"trace-dir", required_argument, NULL, 'T'},
	{"trace-retention", required_argument, NULL, 'R'},
	{"retention-gb", required_argument, NULL, OPT_RETENTION_GB},
	{"trace-group", required_argument, NULL, OPT_TRACE_GROUP},
	{"query-text", required_argument, NULL, OPT_QUERY_TEXT},
	{"seed-format", no_argument, NULL, OPT_SEED_FORMAT},
	{"replay", no_argument, NULL, OPT_REPLAY},
	{"accept-damaged", no_argument, NULL, OPT_ACCEPT_DAMAGED},
	{"check-exact", no_argument, NULL, OPT_CHECK_EXACT},
	{"exact-source", required_argument, NULL, OPT_EXACT_SOURCE},
	{"fine", no_argument, NULL, OPT_FINE},
	{"from", required_argument, NULL, OPT_FROM},
	{"to", required_argument, NULL, OPT_TO},
	{"daemon", no_argument, NULL, OPT_DAEMON},
	{"mode", required_argument, NULL, OPT_MODE},
	{"sample-rate", required_argument, NULL, OPT_SAMPLE_RATE},
	{"dbname", required_argument, NULL, OPT_DBNAME},
	{"user", required_argument, NULL, OPT_USER},
	{"host", required_argument, NULL, OPT_HOST},
	{"lightweight", no_argument, NULL, OPT_LIGHTWEIGHT},
	{"skip-query-id", no_argument, NULL, OPT_SKIP_QID},
	{"sampler-priority", required_argument, NULL, OPT_SAMPLER_PRIORITY},
	{"escalation-budget", required_argument, NULL, OPT_BUDGET},
	{"metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN},
	{"anomaly-cpu-cusum-disable", no_argument, NULL, OPT_CPU_DISABLE},
	{"anomaly-aas-factor", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_AAS_FACTOR},
	{"anomaly-aas-ticks", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_AAS_TICKS},
	{"anomaly-aas-min", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_AAS_MIN},
	{"anomaly-lock-fraction", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_LOCK_FRACTION},
	{"anomaly-lock-min-aas", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_LOCK_MIN_AAS},
	{"anomaly-cooldown-s", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_COOLDOWN_S},
	{"anomaly-window-s", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_WINDOW_S},
	{"anomaly-cpu-capacity", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_CPU_CAPACITY},
	{"anomaly-cpu-min-aas", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_CPU_MIN_AAS},
	{"anomaly-cpu-margin", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_CPU_MARGIN},
	{"anomaly-cpu-cusum-k", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_CPU_K},
	{"anomaly-cpu-cusum-h", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_CPU_H},
	{"anomaly-cpu-cusum-cap", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_CPU_CAP},
	{"anomaly-cpu-coverage-gap-s", required_argument, NULL, OPT_ANOMALY_FIRST + PGWT_CLI_AN_CPU_GAP_S},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0}
};

static int
cli_parse_windows(const char *spec, pgwt_options *o, char *err, size_t errlen)
{
	char		why[200];
	int			n = pgwt_parse_duration_list(spec, o->windows_ns, PGWT_CLI_MAX_WINDOWS,
										 why, sizeof(why));

	if (n < 0)
		return cli_fail(err, errlen, "--window: %s", why);
	if (n == 0)
		return cli_fail(err, errlen, "--window: empty list");
	o->nwindows = n;
	return 0;
}

/* What the parser remembers between options until the cross-checks. */
typedef struct cli_state
{
	const char *windows;
	const char *mode;
	const char *exact_source;
	bool		interval_set;
	bool		query_text_set;
} cli_state;

static void
cli_defaults(pgwt_options *o)
{
	memset(o, 0, sizeof(*o));
	o->sample_rate = 10;
	o->interval_s = 5;
	o->retention_hours = 24;
	o->view = PGWT_VIEW_TIME_MODEL;
	o->mode = PGWT_MODE_TIERED;
	o->escalation_budget = 300;
	o->sampler_priority = -1;
}

/*
 * The one-letter options: the target, the view and its shape. Returns 0,
 * -1 with err set, or 1 when c is not one of them.
 */
static int
cli_opt_short(int c, const char *arg, pgwt_options *o, cli_state *st,
			  char *err, size_t errlen)
{
	int			k;
	long		v;

	switch (c)
	{
		case 'p':
			if (cli_long(arg, 1, INT_MAX, &v))
				return cli_fail(err, errlen, "--pid: not a process id: '%s'", arg);
			o->pid = (int) v;
			break;
		case 'D':
			o->pgdata = arg;
			break;
		case 'V':
			if ((k = cli_lookup(arg, cli_view_names, 6)) < 0)
				return cli_fail(err, errlen, "--view: unknown view '%s' (time_model, system_event, session_event, active, histogram, query_event)", arg);
			o->view = (pgwt_view) k;
			break;
		case 'S':
			if ((k = cli_lookup(arg, cli_sort_names, 4)) < 0)
				return cli_fail(err, errlen, "--sort: unknown sort '%s' (wait_time, db_time, pid, event)", arg);
			o->sort = (pgwt_cli_sort) k;
			o->sort_name = arg;
			break;
		case 'f':
			if ((k = cli_lookup(arg, cli_format_names, 5)) < 0)
				return cli_fail(err, errlen, "--format: unknown format '%s' (tui, text, json, csv)", arg);
			o->format = (pgwt_format) k;
			break;
		case 'i':
			if (cli_long(arg, 1, 86400, &v))
				return cli_fail(err, errlen, "--interval: seconds from 1 to 86400, got '%s'", arg);
			o->interval_s = (unsigned) v;
			st->interval_set = 1;
			break;
		case 'd':
			if (cli_long(arg, 1, LONG_MAX / 2, &v))
				return cli_fail(err, errlen, "--duration: a positive number of seconds, got '%s'", arg);
			o->duration_s = v;
			break;
		case 'n':
			if (cli_long(arg, 1, LONG_MAX / 2, &v))
				return cli_fail(err, errlen, "--count: a positive integer, got '%s'", arg);
			o->count = v;
			break;
		case 'w':
			st->windows = arg;
			break;
		case 'e':
			o->event = arg;
			break;
		case 'P':
			if (cli_long(arg, 1, INT_MAX, &v))
				return cli_fail(err, errlen, "--pid-filter: not a process id: '%s'", arg);
			o->pid_filter = (int) v;
			break;
		case 'Q':
			{
				char	   *end;

				errno = 0;
				/* pg_stat_statements shows query ids as signed bigint */
				if (arg[0] == '-')
					o->query_id = (uint64_t) strtoll(arg, &end, 10);
				else
					o->query_id = strtoull(arg, &end, 10);
				if (errno || end == arg || *end || o->query_id == 0)
					return cli_fail(err, errlen, "--query-id: not a query id: '%s'", arg);
				o->have_query_id = 1;
			}
			break;
		case 'T':
			o->trace_dir = arg;
			break;
		case 'R':
			if (cli_long(arg, 1, 24 * 366, &v))
				return cli_fail(err, errlen, "--trace-retention: whole hours from 1 to 8784, got '%s'", arg);
			o->retention_hours = (unsigned) v;
			break;
		default:
			return 1;
	}
	return 0;
}

/* The long-only options: recording, connection, escalation. As above. */
static int
cli_opt_long(int c, const char *arg, pgwt_options *o, cli_state *st,
			 char *err, size_t errlen)
{
	int			k;
	long		v;

	switch (c)
	{
		case OPT_RETENTION_GB:
			if (cli_double(arg, 0.001, 1e6, &o->retention_gb))
				return cli_fail(err, errlen, "--retention-gb: a positive size in GiB, got '%s'", arg);
			break;
		case OPT_TRACE_GROUP:
			o->trace_group = arg;
			break;
		case OPT_QUERY_TEXT:
			if ((k = cli_lookup(arg, cli_query_text_names, 2)) < 0)
				return cli_fail(err, errlen, "--query-text: 'normalized' or 'none', got '%s'", arg);
			o->query_text = (pgwt_query_text) k;
			st->query_text_set = 1;
			break;
		case OPT_SEED_FORMAT:
			o->seed_format = 1;
			break;
		case OPT_ACCEPT_DAMAGED:
			o->accept_damaged = 1;
			break;
		case OPT_REPLAY:
			o->replay = 1;
			break;
		case OPT_FINE:
			o->fine = 1;
			break;
		case OPT_CHECK_EXACT:
			o->check_exact = 1;
			break;
		case OPT_FROM:
			o->from = arg;
			break;
		case OPT_TO:
			o->to = arg;
			break;
		case OPT_DAEMON:
			o->daemon = 1;
			break;
		case OPT_MODE:
			st->mode = arg;
			break;
		case OPT_EXACT_SOURCE:
			st->exact_source = arg;
			break;
		case OPT_SAMPLE_RATE:
			if (cli_long(arg, 1, 1000, &v))
				return cli_fail(err, errlen, "--sample-rate: Hz from 1 to 1000, got '%s'", arg);
			o->sample_rate = (unsigned) v;
			break;
		case OPT_DBNAME:
			o->dbname = arg;
			break;
		case OPT_USER:
			o->user = arg;
			break;
		case OPT_HOST:
			o->host = arg;
			break;
		case OPT_LIGHTWEIGHT:
			o->lightweight = 1;
			break;
		case OPT_SAMPLER_PRIORITY:
			if (strcmp(arg, "off") == 0)
				o->sampler_priority = 0;
			else if (cli_long(arg, 0, 99, &v))
				return cli_fail(err, errlen, "--sampler-priority: a SCHED_FIFO priority from 1 to 99, or 0/off, got '%s'", arg);
			else
				o->sampler_priority = (int) v;
			break;
		case OPT_SKIP_QID:
			o->skip_query_id = 1;
			break;
		case OPT_BUDGET:
			if (strcmp(arg, "unlimited") == 0)
				o->escalation_budget = PGWT_CLI_BUDGET_UNLIMITED;
			else if (cli_long(arg, 0, 3600, &v))
				return cli_fail(err, errlen, "--escalation-budget: seconds per hour from 0 to 3600, or 'unlimited', got '%s'", arg);
			else
				o->escalation_budget = v;
			break;
		case OPT_METRICS_LISTEN:
			o->metrics_listen = arg;
			break;
		case OPT_CPU_DISABLE:
			o->anomaly_cpu_disable = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		default:
			return 1;
	}
	return 0;
}

/* One --anomaly-* threshold (k indexes cli_anomaly_flags). */
static int
cli_opt_anomaly(int k, const char *arg, pgwt_options *o, char *err, size_t errlen)
{
	if (cli_double(arg, cli_anomaly_flags[k].lo, cli_anomaly_flags[k].hi, &o->anomaly[k]))
		return cli_fail(err, errlen, "--%s: a number from %g to %g, got '%s'",
						cli_anomaly_flags[k].name, cli_anomaly_flags[k].lo,
						cli_anomaly_flags[k].hi, arg);
	if (k == PGWT_CLI_AN_AAS_TICKS && o->anomaly[k] != (double) (long) o->anomaly[k])
		return cli_fail(err, errlen, "--anomaly-aas-ticks: a whole number of ticks, got '%s'", arg);
	o->anomaly_set |= 1u << k;
	return 0;
}

/* The combinations that make no sense, after every option is read. */
static int
cli_cross_check(pgwt_options *o, const cli_state *st, char *err, size_t errlen)
{
	int			k;

	if (st->mode)
	{
		if ((k = cli_lookup(st->mode, cli_mode_names, 5)) < 0)
			return cli_fail(err, errlen, "--mode: unknown mode '%s' (tiered, sampled, full, sched, coop)", st->mode);
		o->mode = (pgwt_mode) k;
	}
	if (st->exact_source)
	{
		if ((k = cli_lookup(st->exact_source, cli_exact_names, 3)) < 0)
			return cli_fail(err, errlen, "--exact-source: unknown source '%s' (auto, watch, sched)", st->exact_source);
		if (o->mode != PGWT_MODE_TIERED)
			return cli_fail(err, errlen, "--exact-source chooses the escalation windows' source: it applies to --mode tiered (--mode %s has %s)",
							cli_mode_names[o->mode], o->mode == PGWT_MODE_SAMPLED ? "no exact windows" : "one source");
		o->exact_source = (pgwt_exact_choice) k;
	}
	if (o->mode == PGWT_MODE_COOP)
		return cli_fail(err, errlen, "--mode coop: the cooperative tier runs inside PostgreSQL: it needs the pg_wait_tracer extension on a server with the wait-event hooks, not this external tracer");
	if (o->lightweight && o->mode == PGWT_MODE_SCHED)
		return cli_fail(err, errlen, "--lightweight applies to --mode full (the scheduler tier writes transitions)");
	if ((o->lightweight || o->skip_query_id) && o->mode != PGWT_MODE_FULL && o->mode != PGWT_MODE_TIERED &&
		o->mode != PGWT_MODE_SCHED)
		return cli_fail(err, errlen, "--lightweight/--skip-query-id apply to the full tier (--mode full or tiered; --skip-query-id also to --mode sched)");
	if (o->lightweight && o->mode == PGWT_MODE_TIERED)
		return cli_fail(err, errlen, "--lightweight applies to --mode full (escalation windows write transitions)");
	if (o->lightweight && o->trace_dir)
		return cli_fail(err, errlen, "--lightweight keeps aggregates in the kernel only: it cannot record a trace (-T)");
	if ((o->anomaly_set || o->anomaly_cpu_disable) && o->mode != PGWT_MODE_TIERED)
		return cli_fail(err, errlen, "--anomaly-* apply to --mode tiered");
	if (o->metrics_listen && !o->trace_dir)
		return cli_fail(err, errlen, "--metrics-listen needs -T DIR (the daemon's control side)");
	if (o->pid && o->pgdata)
		return cli_fail(err, errlen, "--pid and --pgdata are mutually exclusive");
	if (o->daemon && (o->count || o->duration_s))
		return cli_fail(err, errlen, "--daemon cannot be combined with --count or --duration");
	if (o->check_exact && (o->daemon || o->replay || o->pid || o->pgdata || o->trace_dir))
		return cli_fail(err, errlen, "--check-exact tests this machine and exits: it takes no cluster, -T, --daemon or --replay");
	if (o->daemon && o->replay)
		return cli_fail(err, errlen, "--daemon and --replay are mutually exclusive");
	if (o->accept_damaged && !o->replay)
		return cli_fail(err, errlen, "--accept-damaged applies to --replay");
	if (o->replay && !o->trace_dir)
		return cli_fail(err, errlen, "--replay needs -T DIR");
	if (o->replay && o->view == PGWT_VIEW_ACTIVE)
		return cli_fail(err, errlen, "--view active is live only, not available in replay");
	if (!o->replay && (o->from || o->to))
		return cli_fail(err, errlen, "--from/--to need --replay");
	if (o->replay && (o->pid || o->pgdata))
		return cli_fail(err, errlen, "--replay reads trace files: --pid/--pgdata do not apply");
	if (o->view == PGWT_VIEW_HISTOGRAM && !o->event)
		return cli_fail(err, errlen, "--view histogram needs --event NAME");
	if (o->fine && o->view != PGWT_VIEW_HISTOGRAM)
		return cli_fail(err, errlen, "--fine applies to --view histogram");
	if (o->pid_filter && o->view != PGWT_VIEW_SESSION_EVENT)
		return cli_fail(err, errlen, "--pid-filter applies to --view session_event");
	if (o->have_query_id && o->view != PGWT_VIEW_QUERY_EVENT)
		return cli_fail(err, errlen, "--query-id applies to --view query_event");
	if ((o->retention_gb > 0 || o->trace_group) && !o->trace_dir)
		return cli_fail(err, errlen, "--retention-gb/--trace-group need -T DIR");
	if (st->query_text_set && (!o->trace_dir || o->replay))
		return cli_fail(err, errlen, "--query-text applies to recording (-T DIR without --replay)");
	if (o->seed_format && (!o->trace_dir || o->replay))
		return cli_fail(err, errlen, "--seed-format applies to recording (-T DIR without --replay)");
	if (st->windows)
	{
		if (cli_parse_windows(st->windows, o, err, errlen) != 0)
			return -1;
		if (o->view == PGWT_VIEW_ACTIVE)
			return cli_fail(err, errlen, "--window does not apply to --view active");
		if (!st->interval_set)
		{
			if (o->windows_ns[0] % 1000000000ull)
				return cli_fail(err, errlen, "--window: first window must be whole seconds");
			o->interval_s = (unsigned) (o->windows_ns[0] / 1000000000ull);
		}
		else if (o->windows_ns[0] != (uint64_t) o->interval_s * 1000000000ull)
			return cli_fail(err, errlen, "--window: the first window must equal --interval (%us)", o->interval_s);
	}
	return 0;
}

int
pgwt_options_parse(int argc, char **argv, pgwt_options *o, char *err, size_t errlen)
{
	cli_state	st = {0};
	int			c;

	cli_defaults(o);
	optind = 0;					/* full reset, so tests can parse repeatedly */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:D:V:S:f:i:d:n:w:e:P:Q:T:R:vh",
							cli_long_opts, NULL)) != -1)
	{
		int			rc;

		if (c == 'h')
		{
			o->help = 1;
			return 0;
		}
		if (c == ':')
			return cli_fail(err, errlen, "option %s needs a value", argv[optind - 1]);
		if (c >= OPT_ANOMALY_FIRST && c < OPT_ANOMALY_FIRST + PGWT_CLI_AN_COUNT)
			rc = cli_opt_anomaly(c - OPT_ANOMALY_FIRST, optarg, o, err, errlen);
		else if ((rc = cli_opt_short(c, optarg, o, &st, err, errlen)) == 1)
			rc = cli_opt_long(c, optarg, o, &st, err, errlen);
		if (rc == 1)
			return cli_fail(err, errlen, "unknown option %s", argv[optind - 1]);
		if (rc < 0)
			return -1;
	}
	if (optind < argc)
		return cli_fail(err, errlen, "unexpected argument '%s'", argv[optind]);
	return cli_cross_check(o, &st, err, errlen);
}

void
pgwt_usage(FILE *out)
{
	fputs("Usage: pg_wait_tracer [options]\n"
		  "Wait-event tracer for PostgreSQL: samples backends with process_vm_readv and\n"
		  "traces every transition with hardware watchpoints (full tier).\n\n"
		  "Target:\n"
		  "  -p, --pid PID            postmaster pid (default: the one running cluster)\n"
		  "  -D, --pgdata DIR         data directory (reads postmaster.pid)\n"
		  "      --dbname/--user/--host  libpq connection for metadata (default: postgres\n"
		  "                           over the cluster's Unix socket)\n"
		  "Capture:\n"
		  "      --mode MODE          tiered (default: sampled, escalating to exact\n"
		  "                           windows), sampled, full (exact watchpoints),\n"
		  "                           sched (exact blocking waits from the\n"
		  "                           scheduler's tracepoints: no debug registers),\n"
		  "                           coop (the extension's tier: refused here)\n"
		  "      --sample-rate HZ     1-1000, default 10\n"
		  "      --sampler-priority P  SCHED_FIFO priority (1-99) while the sampler\n"
		  "                           waits for its tick and reads: it then samples\n"
		  "                           on time even when every CPU is busy (at normal\n"
		  "                           priority it runs when a backend blocks, which\n"
		  "                           undercounts CPU). Default 1 as root; 0 or off:\n"
		  "                           normal scheduling\n"
		  "      --lightweight        full: per-event aggregates in the kernel only\n"
		  "      --skip-query-id      full tier: do not read query ids\n"
		  "      --exact-source SRC   tiered: the escalation windows' exact source:\n"
		  "                           auto (default: watchpoints where their self-test\n"
		  "                           passes, else the scheduler's tracepoints),\n"
		  "                           watch or sched\n"
		  "      --escalation-budget S  tiered: exact seconds per rolling hour\n"
		  "                           (default 300; 0 = off; unlimited)\n"
		  "      --anomaly-aas-factor K, --anomaly-aas-ticks N, --anomaly-aas-min A,\n"
		  "      --anomaly-lock-fraction F, --anomaly-lock-min-aas A,\n"
		  "      --anomaly-cooldown-s S, --anomaly-window-s S, --anomaly-cpu-capacity C,\n"
		  "      --anomaly-cpu-min-aas A, --anomaly-cpu-margin M, --anomaly-cpu-cusum-k K,\n"
		  "      --anomaly-cpu-cusum-h H, --anomaly-cpu-cusum-cap U,\n"
		  "      --anomaly-cpu-coverage-gap-s S, --anomaly-cpu-cusum-disable\n"
		  "                           tiered: automatic escalation rules\n"
		  "      --metrics-listen 127.0.0.1:PORT  with -T: Prometheus endpoint\n"
		  "Output:\n"
		  "  -V, --view VIEW          time_model (default), system_event, session_event,\n"
		  "                           active, histogram, query_event\n"
		  "  -S, --sort MODE          active view: wait_time, db_time, pid, event\n"
		  "  -f, --format FMT         tui, text, json or csv (default: tui on a terminal)\n"
		  "  -i, --interval SEC       refresh interval (default 5)\n"
		  "  -d, --duration SEC       stop after SEC seconds\n"
		  "  -n, --count N            stop after N intervals\n"
		  "  -w, --window LIST        e.g. 5s,1m,5m (first equals the interval)\n"
		  "Filters:\n"
		  "  -e, --event NAME         Class:Event (histogram needs it)\n"
		  "      --fine               accepted, no effect: every histogram has the\n"
		  "                           32 log2 ns buckets SQL shows (< 1 us to >= 2^40 ns)\n"
		  "  -P, --pid-filter PID     session_event detail for one backend\n"
		  "  -Q, --query-id ID        query_event for one query\n"
		  "Recording:\n"
		  "  -T, --trace-dir DIR      write trace files to DIR\n"
		  "  -R, --trace-retention H  keep H hours (default 24)\n"
		  "      --retention-gb G     also cap the directory at G GiB\n"
		  "      --trace-group GROUP  group owning the files (default dba, if it exists)\n"
		  "      --query-text MODE    normalized (default: texts with every literal\n"
		  "                           replaced by ?) or none (query ids only, no text)\n"
		  "      --seed-format        write what the seed tool reads (v3 in its layout,\n"
		  "                           its JSON side files beside ours)\n"
		  "Modes:\n"
		  "      --daemon             run until stopped; re-attach after restarts\n"
		  "      --replay -T DIR [--from T] [--to T]  views from trace files\n"
		  "      --accept-damaged     replay: exit 0 although blocks, files or side-\n"
		  "                           file lines could not be read (counted on\n"
		  "                           stderr either way)\n"
		  "      --check-exact        can the exact tier see here? Runs the hardware\n"
		  "                           watchpoint self-test; exit 0 yes, 1 no (why)\n"
		  "  -v, --verbose            diagnostics on stderr\n"
		  "  -h, --help\n", out);
}
