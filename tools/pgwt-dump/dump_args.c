/*
 * dump_args.c
 *		pgwt-dump's command line: the usage text and the parser, with one
 *		clear error per bad argument (exit status 2).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefmt/record.h"
#include "dump_args.h"
#include "common/parse_u64.h"

static const char *const dump_view_names[] = {
	"summary", "time_model", "system_event", "session_event", "histogram", "query_event",
	"transitions", "concurrency", "interference", "lock_chains", "cross_validate"
};

static void
dump_usage(FILE *f)
{
	fprintf(f,
			"usage: pgwt-dump DIR|FILE [options]\n"
			"  --view V         summary (default), time_model, system_event, session_event,\n"
			"                   histogram (needs --event), query_event; exact data only:\n"
			"                   transitions (+ query fingerprints), concurrency, interference,\n"
			"                   lock_chains; cross_validate (sampled vs exact tier)\n"
			"  --format F       text (default), json (one object per line), csv\n"
			"  --from T, --to T 2026-02-25T14:30:00, '2026-02-25 14:30:00', 1h, 2h30m, now\n"
			"  --window LIST    compare windows ending at --to (or the trace end): 5s,1m,5m\n"
			"  --sort S         wait_time, total, waits, avg, max, db_time, pid, event, query\n"
			"  --event E        IO:DataFileRead (histogram; narrows query_event)\n"
			"  --pid-filter P   session_event: the events of one backend\n"
			"  --query-id Q     query_event: the profile of one query\n"
			"  --limit N        rows per table (summary default 10)\n"
			"  --fine           accepted, no effect: the histogram always has the 32 log2\n"
			"                   ns buckets of every view (< 1 us to >= 2^40 ns)\n"
			"  --pg-version N   name events as server major N (default: from the trace)\n"
			"  --only K         exact or sampled: use only that tier's records\n"
			"  --summaries      aggregate views of one window from the per-second\n"
			"                   summaries beside the trace: the same answer as from\n"
			"                   records (waits cut to the range), faster; records\n"
			"                   where summaries are missing, partial or inexact\n"
			"  --accept-damaged exit 0 although blocks, files or side-file lines\n"
			"                   could not be read (counted in the output either way)\n");
}

/* --view: one of dump_view_names. */
static int
dump_parse_view(dump_args *a)
{
	size_t		i;

	for (i = 0; i < sizeof(dump_view_names) / sizeof(dump_view_names[0]); i++)
		if (strcmp(optarg, dump_view_names[i]) == 0)
			break;
	if (i == sizeof(dump_view_names) / sizeof(dump_view_names[0]))
	{
		fprintf(stderr, "pgwt-dump: unknown view '%s' (summary, time_model, system_event, "
				"session_event, histogram, query_event, transitions, concurrency, "
				"interference, lock_chains, cross_validate)\n", optarg);
		return 2;
	}
	a->view = (dump_view) i;
	return 0;
}

/* --query-id: signed or unsigned, as SQL or the files show it. */
static int
dump_parse_query_id(dump_args *a)
{
	/* query ids are signed in SQL; accept both spellings */
	uint64_t	v;
	char	   *end;
	long long	sv;

	errno = 0;
	sv = strtoll(optarg, &end, 10);
	if (!*optarg || *end || errno)
	{
		if (!pgwt_parse_u64(optarg, 10, UINT64_MAX, &v))
		{
			fprintf(stderr, "pgwt-dump: bad --query-id '%s': expected an integer\n", optarg);
			return 2;
		}
	}
	else
		v = (uint64_t) sv;
	a->has_query = true;
	a->query_id = v;
	return 0;
}

/*
 * The options whose value is checked: sets it in *a, or prints one clear
 * error and returns 2. optarg is the option's value.
 */
static int
dump_parse_value(int c, dump_args *a)
{
	uint64_t	v;

	switch (c)
	{
		case 'V':
			return dump_parse_view(a);
		case 'F':
			if (!pgwt_out_format_parse(optarg, &a->format))
			{
				fprintf(stderr, "pgwt-dump: unknown format '%s' (text, json, csv)\n", optarg);
				return 2;
			}
			break;
		case 'S':
			if (!pgwt_sort_parse(optarg, &a->sort))
			{
				fprintf(stderr, "pgwt-dump: unknown sort '%s' (wait_time, total, waits, avg, max, "
						"db_time, pid, event, query)\n", optarg);
				return 2;
			}
			break;
		case 'P':
			if (!pgwt_parse_u64(optarg, 10, UINT64_MAX, &v) || v == 0 || v > UINT32_MAX)
			{
				fprintf(stderr, "pgwt-dump: bad --pid-filter '%s': expected a process id\n", optarg);
				return 2;
			}
			a->has_pid = true;
			a->pid = (uint32_t) v;
			break;
		case 'Q':
			return dump_parse_query_id(a);
		case 'n':
			if (!pgwt_parse_u64(optarg, 10, UINT64_MAX, &v) || v == 0)
			{
				fprintf(stderr, "pgwt-dump: bad --limit '%s': expected a positive number\n", optarg);
				return 2;
			}
			a->limit = (size_t) v;
			break;
		case 'g':
			if (!pgwt_parse_u64(optarg, 10, UINT64_MAX, &v) || v < 10 || v > 99)
			{
				fprintf(stderr, "pgwt-dump: bad --pg-version '%s': expected a major version like 15\n", optarg);
				return 2;
			}
			a->pg_major = (int) v;
			break;
		case 'o':
			if (strcmp(optarg, "exact") == 0)
				a->only_kind = PGWT_REC_TRANSITION;
			else if (strcmp(optarg, "sampled") == 0)
				a->only_kind = PGWT_REC_SAMPLE;
			else
			{
				fprintf(stderr, "pgwt-dump: bad --only '%s' (exact, sampled)\n", optarg);
				return 2;
			}
			break;
	}
	return 0;
}

/* Returns 0, or 2 after printing one line on a bad argument. */
int
dump_parse_args(int argc, char **argv, dump_args *a)
{
	static const struct option longopts[] = {
		{"from", required_argument, NULL, 'f'},
		{"to", required_argument, NULL, 't'},
		{"view", required_argument, NULL, 'V'},
		{"format", required_argument, NULL, 'F'},
		{"sort", required_argument, NULL, 'S'},
		{"event", required_argument, NULL, 'e'},
		{"pid-filter", required_argument, NULL, 'P'},
		{"query-id", required_argument, NULL, 'Q'},
		{"window", required_argument, NULL, 'w'},
		{"limit", required_argument, NULL, 'n'},
		{"fine", no_argument, NULL, 'x'},
		{"pg-version", required_argument, NULL, 'g'},
		{"only", required_argument, NULL, 'o'},
		{"summaries", no_argument, NULL, 's'},
		{"accept-damaged", no_argument, NULL, 'D'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	int			c;
	bool		limit_set = false;

	memset(a, 0, sizeof(*a));
	a->only_kind = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hV:F:S:e:P:Q:w:n:", longopts, NULL)) != -1)
	{
		switch (c)
		{
			case 'f':
				a->from = optarg;
				break;
			case 't':
				a->to = optarg;
				break;
			case 'e':
				a->event = optarg;
				break;
			case 'V':
			case 'F':
			case 'S':
			case 'P':
			case 'Q':
			case 'g':
			case 'o':
				if (dump_parse_value(c, a) != 0)
					return 2;
				break;
			case 'w':
				a->windows = optarg;
				break;
			case 'n':
				if (dump_parse_value(c, a) != 0)
					return 2;
				limit_set = true;
				break;
			case 'x':
				a->fine = true;
				break;
			case 'D':
				a->accept_damaged = true;
				break;
			case 's':
				a->summaries = true;
				break;
			case 'h':
				dump_usage(stdout);
				exit(0);
			default:
				if (optopt)
					fprintf(stderr, "pgwt-dump: option '-%c' needs a value or is unknown (see --help)\n", optopt);
				else
					fprintf(stderr, "pgwt-dump: unknown option '%s' (see --help)\n", argv[optind - 1]);
				return 2;
		}
	}
	if (optind != argc - 1)
	{
		fprintf(stderr, optind >= argc ? "pgwt-dump: missing trace DIR or FILE (see --help)\n"
				: "pgwt-dump: one trace DIR or FILE expected, got more arguments\n");
		return 2;
	}
	a->path = argv[optind];
	if (a->view == DV_HISTOGRAM && !a->event)
	{
		fprintf(stderr, "pgwt-dump: --view histogram needs --event (e.g. --event IO:DataFileRead)\n");
		return 2;
	}
	if (a->view == DV_SUMMARY && !limit_set)
		a->limit = 10;
	return 0;
}
