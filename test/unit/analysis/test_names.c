/*
 * test_names.c
 *		Wait event naming: generated tables, runtime overrides, hex for
 *		unknown ids, parsing of user-typed names.
 */
#include "analysis/wait_event.h"
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

int
main(void)
{
	RUN(test_generated_tables);
	RUN(test_unknown_is_hex);
	RUN(test_overrides);
	RUN(test_parse);
	return unit_failures ? 1 : 0;
}
