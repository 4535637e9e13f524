/*
 * test_names.c
 *		Wait event naming: generated tables, runtime overrides, hex for
 *		unknown ids, parsing of user-typed names; which ids a trace writer
 *		names (name_log) and a directory's events.tsv as names
 *		(names_load), hostile lines included.
 */
#include <stdlib.h>
#include <unistd.h>

#include "analysis/name_log.h"
#include "analysis/names_load.h"
#include "analysis/wait_event.h"
#include "tracefmt/tracefmt.h"
#include "unit.h"

static const char *
fmt(const pgwt_names *n, uint32_t id)
{
	static char buf[PGWT_EVENT_NAME_MAX];

	pgwt_event_format(n, id, buf, sizeof(buf));
	return buf;
}

static void
test_generated_tables(void)
{
	pgwt_names n15,
				n18;

	EXPECT(pgwt_names_init(&n15, 15));
	EXPECT(pgwt_names_init(&n18, 18));
	EXPECT_STR(fmt(&n15, 0x09000002), "Timeout:PgSleep");
	EXPECT_STR(fmt(&n15, 0x06000000), "Client:ClientRead");
	EXPECT_STR(fmt(&n15, 0x0A000011), "IO:DataFileRead");
	EXPECT_STR(fmt(&n18, 0x0A000015), "IO:DataFileRead");	/* ids move between versions */
	EXPECT_STR(fmt(&n15, 0x01000004), "LWLock:ProcArray");	/* individual LWLock */
	EXPECT_STR(fmt(&n15, 0x01000037), "LWLock:WALInsert");	/* built-in tranche */
	EXPECT_STR(fmt(&n15, 0x03000005), "Lock:transactionid");	/* lock tag type */
	EXPECT_STR(fmt(&n15, 0x04000000), "BufferPin:BufferPin");
	EXPECT_STR(fmt(&n15, 0), "CPU*");
	/* tables are sorted by id (binary search relies on it) */
	for (unsigned i = 1; i < pgwt_event_names_pg15_count; i++)
		EXPECT(pgwt_event_names_pg15[i - 1].id < pgwt_event_names_pg15[i].id);
	for (unsigned i = 1; i < pgwt_event_names_pg18_count; i++)
		EXPECT(pgwt_event_names_pg18[i - 1].id < pgwt_event_names_pg18[i].id);
	EXPECT(pgwt_event_names_pg15_count > 200);
	EXPECT(pgwt_event_names_pg18_count > 200);
}

/* Ids named by both tables whose names differ. */
static unsigned
names_moved(int a, int b)
{
	pgwt_names	na,
				nb;
	unsigned	moved = 0;

	if (!pgwt_names_init(&na, a) || !pgwt_names_init(&nb, b))
		return 0;
	for (unsigned i = 0; i < na.nbuiltin; i++)
	{
		const char *other = pgwt_names_lookup(&nb, na.builtin[i].id);

		if (other && strcmp(other, na.builtin[i].name) != 0)
			moved++;
	}
	return moved;
}

/*
 * 13 and 17: their tables, known ids of each. 14 and 16 have none, and no
 * neighbour's table may stand in: every pair of neighbours built here
 * names some id differently, so 14 (between 13 and 15) and 16 (between 15
 * and 17) cannot be known to match either side.
 */
static void
test_versions_13_17(void)
{
	pgwt_names	n13,
				n17,
				n;

	EXPECT(pgwt_names_init(&n13, 13));
	EXPECT(pgwt_names_init(&n17, 17));
	EXPECT_STR(fmt(&n13, 0x09000001), "Timeout:PgSleep");	/* 14 added CheckpointWriteDelay before it */
	EXPECT_STR(fmt(&n13, 0x09000002), "Timeout:RecoveryApplyDelay");
	EXPECT_STR(fmt(&n13, 0x06000000), "Client:ClientRead");
	EXPECT_STR(fmt(&n13, 0x0300000A), "Lock:advisory");
	EXPECT_STR(fmt(&n17, 0x06000000), "Client:ClientRead");
	EXPECT_STR(fmt(&n17, 0x0300000A), "Lock:advisory");
	for (unsigned i = 1; i < pgwt_event_names_pg13_count; i++)
		EXPECT(pgwt_event_names_pg13[i - 1].id < pgwt_event_names_pg13[i].id);
	for (unsigned i = 1; i < pgwt_event_names_pg17_count; i++)
		EXPECT(pgwt_event_names_pg17[i - 1].id < pgwt_event_names_pg17[i].id);
	EXPECT(pgwt_event_names_pg13_count > 200);
	EXPECT(pgwt_event_names_pg17_count > 200);
	EXPECT(!pgwt_names_init(&n, 14) && !pgwt_names_have_table(14));
	EXPECT(!pgwt_names_init(&n, 16) && !pgwt_names_have_table(16));
	EXPECT(pgwt_names_have_table(13) && pgwt_names_have_table(17));
	EXPECT(names_moved(13, 15) > 0);
	EXPECT(names_moved(15, 13) > 0);
	EXPECT(names_moved(15, 17) > 0);
	EXPECT(names_moved(17, 15) > 0);
	EXPECT(names_moved(17, 18) > 0);
	EXPECT(names_moved(15, 15) == 0);	/* the count can be zero */
}

static void
test_unknown_is_hex(void)
{
	pgwt_names n16;

	EXPECT(!pgwt_names_init(&n16, 16));	/* no table: never another version's names */
	EXPECT_STR(fmt(&n16, 0x09000002), "Timeout:0x2");
	EXPECT_STR(fmt(NULL, 0x0A0000FF), "IO:0xFF");
	EXPECT_STR(fmt(&n16, 0x0C000001), "0x0C:0x1");
	EXPECT_STR(fmt(&n16, 0x02000001), "0x02:0x1");	/* no class 2 */
	EXPECT_STR(pgwt_class_name(PGWT_CLASS_INJECTIONPOINT), "InjectionPoint");
	EXPECT(pgwt_class_name(2) == NULL);
	EXPECT(pgwt_event_class(0xFF000000u) == PGWT_CLASS_UNKNOWN);
}

static void
test_overrides(void)
{
	pgwt_names n;
	char		longname[200];

	pgwt_names_init(&n, 15);
	EXPECT(pgwt_names_set(&n, 0x07000001, "MyExtWait"));
	EXPECT(pgwt_names_set(&n, 0x07000000, "Base"));
	EXPECT(pgwt_names_set(&n, 0x09000002, "Renamed"));
	EXPECT(pgwt_names_set(&n, 0x09000002, "RenamedTwice"));
	EXPECT_STR(fmt(&n, 0x07000001), "Extension:MyExtWait");
	EXPECT_STR(fmt(&n, 0x07000000), "Extension:Base");
	EXPECT_STR(fmt(&n, 0x09000002), "Timeout:RenamedTwice");
	EXPECT_STR(fmt(&n, 0x0A000011), "IO:DataFileRead");
	EXPECT_U64(n.noverride, 3);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	EXPECT(!pgwt_names_set(&n, 1, longname));
	EXPECT(!pgwt_names_set(&n, 1, ""));
	/* many inserts in reverse order stay sorted */
	for (uint32_t i = 200; i > 0; i--)
		EXPECT(pgwt_names_set(&n, 0x07100000 + i, "E"));
	for (unsigned i = 1; i < n.noverride; i++)
		EXPECT(n.override[i - 1].id < n.override[i].id);
	pgwt_names_free(&n);
	EXPECT_STR(fmt(&n, 0x09000002), "Timeout:PgSleep");
}

static void
test_parse(void)
{
	pgwt_names n;
	uint32_t	id = 123;

	pgwt_names_init(&n, 15);
	EXPECT(pgwt_event_parse(&n, "IO:DataFileRead", &id) && id == 0x0A000011);
	EXPECT(pgwt_event_parse(&n, "io:datafileread", &id) && id == 0x0A000011);
	EXPECT(pgwt_event_parse(&n, "Lock:transactionid", &id) && id == 0x03000005);
	EXPECT(pgwt_event_parse(&n, "IO:0x2A", &id) && id == 0x0A00002A);
	EXPECT(pgwt_event_parse(&n, "0x09000002", &id) && id == 0x09000002);
	EXPECT(pgwt_event_parse(&n, "CPU*", &id) && id == 0);
	EXPECT(!pgwt_event_parse(&n, "IO:NoSuchEvent", &id));
	EXPECT(!pgwt_event_parse(&n, "Nope:DataFileRead", &id));
	EXPECT(!pgwt_event_parse(&n, "IO:0x", &id));
	EXPECT(!pgwt_event_parse(&n, "IO:0x1000000", &id));	/* 7 hex digits */
	EXPECT(!pgwt_event_parse(&n, "", &id));
	EXPECT(!pgwt_event_parse(NULL, "IO:DataFileRead", &id));
	EXPECT(pgwt_names_set(&n, 0x07000005, "Custom"));
	EXPECT(pgwt_event_parse(&n, "Extension:Custom", &id) && id == 0x07000005);
	pgwt_names_free(&n);
}

/* The ids a writer must name: unknown to the compiled table, once each. */
static void
test_name_log(void)
{
	pgwt_names n18;
	static pgwt_name_log l;
	uint32_t	out[PGWT_NAME_LOG_MAX];
	pgwt_record r;

	EXPECT(pgwt_names_init(&n18, 18));
	pgwt_name_log_init(&l, &n18);
	EXPECT(!pgwt_name_log_note(&l, 0));	/* CPU */
	EXPECT(!pgwt_name_log_note(&l, 0x0A000015));	/* IO:DataFileRead: compiled */
	EXPECT(!pgwt_name_log_note(&l, PGWT_EVENT_EXIT));
	EXPECT(!pgwt_name_log_note(&l, PGWT_MARKER_IDLE));
	EXPECT(!pgwt_name_log_note(&l, 0x7F000001));	/* no such class */
	EXPECT(pgwt_name_log_note(&l, 0x0100005F));	/* a run-time tranche */
	EXPECT(!pgwt_name_log_note(&l, 0x0100005F));	/* once */
	memset(&r, 0, sizeof(r));
	r.kind = PGWT_REC_TRANSITION;
	r.old_event = 0x07000001;	/* a custom event: its own id */
	r.new_event = 0x0100005F;
	pgwt_name_log_note_record(&l, &r);
	r.kind = PGWT_REC_SAMPLE;
	r.old_event = 0x07000009;	/* a sample has no old event */
	r.new_event = 0x01000060;
	pgwt_name_log_note_record(&l, &r);
	EXPECT_U64(pgwt_name_log_take(&l, out, 2), 2);
	EXPECT(out[0] == 0x0100005F && out[1] == 0x07000001);
	EXPECT_U64(pgwt_name_log_take(&l, out, 8), 1);
	EXPECT(out[0] == 0x01000060);
	EXPECT_U64(pgwt_name_log_take(&l, out, 8), 0);
	/* bounded: ids past PGWT_NAME_LOG_MAX are counted, not kept */
	for (uint32_t i = 0; i < PGWT_NAME_LOG_MAX + 5; i++)
		(void) pgwt_name_log_note(&l, 0x07100000 + i);
	EXPECT_U64(l.nseen, PGWT_NAME_LOG_MAX);
	EXPECT_U64(pgwt_name_log_take(&l, out, PGWT_NAME_LOG_MAX), PGWT_NAME_LOG_MAX - 3);
	EXPECT(l.dropped >= 5);
	/* a server version without a compiled table: every id needs a name */
	{
		pgwt_names none;

		EXPECT(!pgwt_names_init(&none, 16));
		pgwt_name_log_init(&l, &none);
		EXPECT(pgwt_name_log_note(&l, 0x0A000015));
	}
}

/* events.tsv into names: good lines used, hostile ones counted once. */
static void
test_names_load(void)
{
	char		dir[] = "/tmp/pgwt-names.XXXXXX";
	char		path[64];
	pgwt_names	n;
	uint64_t	ignored = 0;
	uint32_t	pgv = 0;
	FILE	   *f;
	char		buf[PGWT_EVENT_NAME_MAX];

	EXPECT(mkdtemp(dir) != NULL);
	EXPECT(pgwt_names_init(&n, 18));
	EXPECT(pgwt_names_load_dir(&n, dir, &pgv, &ignored) == -PGWT_TF_NOT_FOUND);
	snprintf(path, sizeof(path), "%s/%s", dir, PGWT_TF_EVENTS_NAME);
	f = fopen(path, "w");
	EXPECT(f != NULL);
	if (!f)
		return;
	fputs("#pgwt-events\t1\t180006\n"
		  "0x0100005f\tLWLock\tpg_wait_tracer\n"
		  "0x01000060\tLWLock\told_name\n"
		  "0x01000060\tLWLock\tpg_stat_statements\n"	/* the later line wins */
		  "0x01000061\tIO\tliar\n"	/* class is not the id's */
		  "0x00000000\tCPU*\tcpu\n"	/* CPU is no wait */
		  "0x01000062\tLWLock\tctl\x1b]0;pwned\x07\n"	/* control characters */
		  "0x01000063\tLWLock\t"
		  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
		  "garbage\n"
		  "0x07000001\tExtension\tDblinkConnect\n", f);
	fclose(f);
	EXPECT(pgwt_names_load_dir(&n, dir, &pgv, &ignored) == 0);
	EXPECT_U64(pgv, 180006);
	EXPECT_U64(ignored, 5);
	pgwt_event_format(&n, 0x0100005F, buf, sizeof(buf));
	EXPECT_STR(buf, "LWLock:pg_wait_tracer");
	pgwt_event_format(&n, 0x01000060, buf, sizeof(buf));
	EXPECT_STR(buf, "LWLock:pg_stat_statements");
	pgwt_event_format(&n, 0x01000061, buf, sizeof(buf));
	EXPECT_STR(buf, "LWLock:0x61");
	pgwt_event_format(&n, 0x01000062, buf, sizeof(buf));
	EXPECT_STR(buf, "LWLock:0x62");
	pgwt_event_format(&n, 0x07000001, buf, sizeof(buf));
	EXPECT_STR(buf, "Extension:DblinkConnect");
	pgwt_event_format(&n, 0x0A000015, buf, sizeof(buf));
	EXPECT_STR(buf, "IO:DataFileRead");	/* the compiled table stays */
	pgwt_names_free(&n);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	RUN(test_generated_tables);
	RUN(test_unknown_is_hex);
	RUN(test_versions_13_17);
	RUN(test_overrides);
	RUN(test_parse);
	RUN(test_name_log);
	RUN(test_names_load);
	return unit_failures ? 1 : 0;
}
