/*
 * main.c
 *		pgwt-synth: a synthetic trace generator. Reads a scenario (see
 *		scenario.c and docs/TRACE_FORMAT.md "Synthetic traces"), writes the
 *		records through the production writer, and prints the exact truth
 *		as one JSON object, so analysis tests and benchmarks know what the
 *		trace must say.
 *
 *	 pgwt-synth [-o DIR | -f FILE] [-V VERSION] [--no-lz4] SCENARIO|-
 *
 *	 -o DIR    a trace directory (rotation by synthetic hour, side files)
 *	 -f FILE   one trace file (must not exist)
 *	 neither   the truth only
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scenario.h"
#include "seed_write.h"
#include "tracefmt/tracefmt.h"

typedef struct synth_out
{
	const syn_scenario *sc;
	pgwt_tf_dir_writer *dir;
	pgwt_tf_file_writer *file;
	uint64_t	now;			/* synthetic CLOCK_MONOTONIC */
	uint64_t	next_tick;
	int			err;			/* first tracefmt error */
} synth_out;

static uint64_t
synth_mono(void *arg)
{
	return ((synth_out *) arg)->now;
}

static uint64_t
synth_real(void *arg)
{
	synth_out  *o = arg;

	return o->sc->start_realtime_ns + (o->now - o->sc->start_monotonic_ns);
}

static int
synth_emit(const pgwt_record *rec, void *arg)
{
	synth_out  *o = arg;
	int			rc = 0;

	o->now = rec->ts_ns;
	if (o->dir)
	{
		/* the daemon ticks once a second; so does the synthetic one */
		if (rec->ts_ns >= o->next_tick)
		{
			rc = pgwt_tf_dir_tick(o->dir);
			o->next_tick = rec->ts_ns - rec->ts_ns % 1000000000ull + 1000000000ull;
		}
		if (rc == 0)
			rc = pgwt_tf_dir_append(o->dir, rec);
	}
	else if (o->file)
		rc = pgwt_tf_file_writer_append(o->file, rec);
	if (rc < 0)
	{
		o->err = rc;
		return 1;
	}
	return 0;
}

static char *
read_text(const char *path)
{
	FILE	   *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char	   *buf = NULL;
	size_t		len = 0,
				cap = 0;
	size_t		n;

	if (!f)
		return NULL;
	do
	{
		if (len + 4096 + 1 > cap)
		{
			char	   *nb;

			cap = cap ? cap * 2 : 8192;
			if (cap > 1 << 20 || !(nb = realloc(buf, cap)))
			{
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n > 0);
	if (buf)
		buf[len] = '\0';
	if (f != stdin)
		fclose(f);
	return buf;
}

/* Side files so the trace is self-describing. */
static int
write_side_files(const char *dir, const syn_scenario *sc, const pgwt_tf_file_opts *fo)
{
	pgwt_tf_event_name ev[SYN_MAX_EVENTS];
	char		cls[SYN_MAX_EVENTS][SYN_NAME_MAX];
	size_t		n = 0,
				i;
	int			rc;

	for (i = 0; i < sc->nevents; i++)
	{
		char	   *colon;

		if (!sc->events[i].name[0])
			continue;
		strcpy(cls[n], sc->events[i].name);
		colon = strchr(cls[n], ':');
		*colon = '\0';
		ev[n].id = sc->events[i].id;
		ev[n].class_name = cls[n];
		ev[n].name = colon + 1;
		n++;
	}
	if (n > 0 && (rc = pgwt_tf_events_write(dir, fo, sc->pg_version, ev, n)) < 0)
		return rc;
	for (i = 0; i < sc->backends && i < 10000; i++)
	{
		pgwt_tf_backend b = {sc->first_pid + (uint32_t) i, 0, sc->start_realtime_ns,
		"client backend", "synth", "synth", "127.0.0.1", "pgwt-synth"};

		if ((rc = pgwt_tf_backend_append(dir, fo, &b)) < 0)
			return rc;
	}
	for (i = 1; i <= sc->query_ids && i <= 1000; i++)
	{
		char		text[64];

		snprintf(text, sizeof(text), "SELECT /* synthetic query %zu */ %zu", i, i);
		if ((rc = pgwt_tf_query_append(dir, fo, PGWT_TF_QUERY_NORMALIZED, i, text)) < 0)
			return rc;
	}
	return 0;
}

static void
print_event(const char *key, const syn_truth_event *t)
{
	printf("%s\"waits\":%" PRIu64 ",\"wait_ns\":%" PRIu64 ",\"samples\":%" PRIu64
		   ",\"sampled_ns\":%" PRIu64, key, t->waits, t->wait_ns, t->samples, t->sampled_ns);
}

static uint64_t
output_bytes(const char *out_dir, const char *out_file, uint64_t *files)
{
	struct stat st;
	uint64_t	total = 0;

	*files = 0;
	if (out_file)
	{
		if (stat(out_file, &st) == 0)
		{
			*files = 1;
			total = (uint64_t) st.st_size;
		}
	}
	else if (out_dir)
	{
		DIR		   *d = opendir(out_dir);
		struct dirent *de;

		while (d && (de = readdir(d)) != NULL)
		{
			char		p[4096];
			size_t		l = strlen(de->d_name);

			if (l < 10 || strcmp(de->d_name + l - 10, ".trace.lz4") != 0)
				continue;
			snprintf(p, sizeof(p), "%s/%s", out_dir, de->d_name);
			if (stat(p, &st) == 0)
			{
				total += (uint64_t) st.st_size;
				(*files)++;
			}
		}
		if (d)
			closedir(d);
	}
	return total;
}

static void
usage(void)
{
	fprintf(stderr, "usage: pgwt-synth [-o DIR [--seed-layout] | -f FILE] [-V VERSION] [--no-lz4]\n"
			"                  [--seed-format] SCENARIO|-\n"
			"  --seed-format  write what the seed tool reads (v3 in its layout, its\n"
			"                 JSON side files beside ours)\n"
			"  --seed-layout  test generator: the same rewritten as its writer does,\n"
			"                 records out of order inside blocks, JSON side files only\n");
}

/* The command line. */
typedef struct synth_args
{
	const char *out_dir,
			   *out_file,
			   *scen;
	unsigned	version;
	bool		no_lz4;
	bool		seed_layout;	/* rewrite DIR the seed tool's way (v3) */
	bool		seed_format;	/* write what the seed tool reads */
} synth_args;

/* Parses the command line into *a; 0, or the exit status (usage printed). */
static int
synth_parse_args(int argc, char **argv, synth_args *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			a->out_dir = argv[++i];
		else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc)
			a->out_file = argv[++i];
		else if (strcmp(argv[i], "-V") == 0 && i + 1 < argc)
		{
			char	   *end;

			a->version = (unsigned) strtoul(argv[++i], &end, 10);
			if (*end || a->version < PGWT_TF_VERSION_MIN || a->version > PGWT_TF_VERSION_MAX)
			{
				fprintf(stderr, "pgwt-synth: -V must be %d..%d\n", PGWT_TF_VERSION_MIN, PGWT_TF_VERSION_MAX);
				return 2;
			}
		}
		else if (strcmp(argv[i], "--no-lz4") == 0)
			a->no_lz4 = true;
		else if (strcmp(argv[i], "--seed-layout") == 0)
			a->seed_layout = true;
		else if (strcmp(argv[i], "--seed-format") == 0)
			a->seed_format = true;
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
		{
			usage();
			return 2;
		}
		else if (!a->scen)
			a->scen = argv[i];
		else
		{
			usage();
			return 2;
		}
	}
	if (!a->scen || (a->out_dir && a->out_file) ||
		(a->seed_layout && (!a->out_dir || a->no_lz4 || (a->version && a->version != 3))) ||
		(a->seed_format && a->version && a->version > 3))
	{
		usage();
		return 2;
	}
	if (a->seed_layout)
		a->version = 3;
	return 0;
}

/*
 * Opens the output the arguments ask for (a directory with its side files,
 * one file, or none), on the scenario's synthetic clocks. 0, or 1 with the
 * error printed.
 */
static int
synth_open_output(const synth_args *a, const syn_scenario *sc, synth_out *o,
				  pgwt_tf_dir_opts *dopts)
{
	int			rc = 0;

	memset(o, 0, sizeof(*o));
	o->sc = sc;
	o->now = sc->start_monotonic_ns;
	memset(dopts, 0, sizeof(*dopts));
	dopts->file.version = (uint16_t) a->version;
	dopts->file.no_lz4 = a->no_lz4;
	dopts->file.seed_layout = a->seed_format;
	dopts->file.pg_version = sc->pg_version;
	dopts->file.group_gid = -1;
	dopts->file.clock.realtime_ns = synth_real;
	dopts->file.clock.monotonic_ns = synth_mono;
	dopts->file.clock.arg = o;
	if (a->out_dir)
	{
		if (mkdir(a->out_dir, 0750) < 0 && errno != EEXIST)
		{
			fprintf(stderr, "pgwt-synth: cannot create %s: %s\n", a->out_dir, strerror(errno));
			return 1;
		}
		rc = pgwt_tf_dir_open(a->out_dir, dopts, &o->dir);
		if (rc == 0)
			rc = write_side_files(a->out_dir, sc, &dopts->file);
		if (rc == 0 && sc->sample_period_ns)
			rc = pgwt_tf_dir_set_sample_period(o->dir, sc->sample_period_ns);
	}
	else if (a->out_file)
	{
		rc = pgwt_tf_file_writer_create(a->out_file, &dopts->file, &o->file);
		if (rc == 0 && sc->sample_period_ns)
			rc = pgwt_tf_file_writer_set_sample_period(o->file, sc->sample_period_ns);
	}
	if (rc < 0)
	{
		fprintf(stderr, "pgwt-synth: %s: %s\n", a->out_dir ? a->out_dir : a->out_file, pgwt_tf_strerror(rc));
		return 1;
	}
	return 0;
}

/* The truth, as one JSON object on stdout. */
static void
synth_print_truth(const syn_scenario *sc, const syn_truth *truth, uint64_t files, uint64_t bytes)
{
	printf("{\"seed\":%" PRIu64 ",\"records\":%" PRIu64 ",\"transitions\":%" PRIu64
		   ",\"samples\":%" PRIu64 ",\"first_ts\":%" PRIu64 ",\"last_ts\":%" PRIu64
		   ",\"start_realtime_ns\":%" PRIu64 ",\"start_monotonic_ns\":%" PRIu64
		   ",\"sample_period_ns\":%" PRIu64 ",\"backends\":%u,\"first_pid\":%u,",
		   sc->seed, truth->records, truth->transitions, truth->samples, truth->first_ts,
		   truth->last_ts, sc->start_realtime_ns, sc->start_monotonic_ns,
		   sc->sample_period_ns, sc->backends, sc->first_pid);
	printf("\"cpu\":{");
	print_event("", &truth->cpu);
	printf("},\"events\":[");
	for (int i = 0; i < (int) sc->nevents; i++)
	{
		printf("%s{\"event\":\"0x%08x\",\"id\":%u,\"name\":\"%s\",", i ? "," : "",
			   sc->events[i].id, sc->events[i].id, sc->events[i].name);
		print_event("", &truth->ev[i]);
		printf("}");
	}
	printf("],\"output\":{\"files\":%" PRIu64 ",\"bytes\":%" PRIu64 "}}\n", files, bytes);
}

int
main(int argc, char **argv)
{
	synth_args	a;
	syn_scenario sc;
	syn_truth	truth;
	synth_out	o;
	pgwt_tf_dir_opts dopts;
	char		err[256];
	char	   *text;
	int			rc;
	uint64_t	files,
				bytes;

	if ((rc = synth_parse_args(argc, argv, &a)) != 0)
		return rc;
	text = read_text(a.scen);
	if (!text)
	{
		fprintf(stderr, "pgwt-synth: cannot read scenario %s: %s\n", a.scen, strerror(errno));
		return 1;
	}
	rc = syn_parse(text, &sc, err, sizeof(err));
	free(text);
	if (rc < 0)
	{
		fprintf(stderr, "pgwt-synth: %s: %s\n", a.scen, err);
		return 1;
	}
	if (synth_open_output(&a, &sc, &o, &dopts) != 0)
		return 1;

	rc = syn_run(&sc, synth_emit, &o, &truth);
	if (rc < 0)
	{
		fprintf(stderr, "pgwt-synth: out of memory\n");
		return 1;
	}
	if (o.dir && (rc = pgwt_tf_dir_close(o.dir)) < 0 && !o.err)
		o.err = rc;
	if (o.file && (rc = pgwt_tf_file_writer_finish(o.file)) < 0 && !o.err)
		o.err = rc;
	if (o.err)
	{
		fprintf(stderr, "pgwt-synth: writing %s: %s\n", a.out_dir ? a.out_dir : a.out_file,
				pgwt_tf_strerror(o.err));
		return 1;
	}

	if (a.seed_format && a.out_dir && (rc = pgwt_tf_seed_sidefiles_write(a.out_dir)) < 0)
	{
		fprintf(stderr, "pgwt-synth: writing the seed tool's side files in %s: %s\n",
				a.out_dir, pgwt_tf_strerror(rc));
		return 1;
	}
	if (a.seed_layout && synth_seed_rewrite(a.out_dir) != 0)
	{
		fprintf(stderr, "pgwt-synth: rewriting %s in the seed tool's layout failed\n", a.out_dir);
		return 1;
	}
	bytes = output_bytes(a.out_dir, a.out_file, &files);
	synth_print_truth(&sc, &truth, files, bytes);
	return 0;
}
