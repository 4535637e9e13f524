/*
 * fuzz_pidfile.c
 *		libFuzzer target for postmaster.pid parsing (pgwt_pidfile_parse)
 *		and the judgement built on it (pgwt_pm_judge). Any user can run a
 *		process named postgres with a crafted postmaster.pid in its cwd, and
 *		the root tracer reads it.
 *
 * Input: 16 bytes of facts (ids, modes, flags, choices of names), then the
 * postmaster.pid text (stops at a NUL, as the reader's buffer does).
 * Properties beyond "no crash, no sanitizer report": a parsed pidfile
 * has a pid in 1..INT_MAX, an absolute data directory, a port in
 * 1..65535, a start time >= 0, terminated strings without newlines and a
 * status without trailing blanks; the verdict's reason is terminated and
 * present when the verdict is not OK; an OK verdict comes only with a
 * matching, regular, parsed pidfile, a root-owned executable named
 * postgres that group and others cannot write, and equal non-root real
 * and effective uids owning the data directory and the pidfile.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tracer/target.h"

static void
fz_check_str(const char *s, size_t cap)
{
	size_t		n = strnlen(s, cap);

	if (n == cap || memchr(s, '\n', n))
		__builtin_trap();
}

static void
fz_check_pidfile(const pgwt_pidfile *pf)
{
	size_t		n;

	fz_check_str(pf->datadir, sizeof(pf->datadir));
	fz_check_str(pf->sockdir, sizeof(pf->sockdir));
	fz_check_str(pf->status, sizeof(pf->status));
	n = strlen(pf->status);
	if (pf->pid < 1 || pf->datadir[0] != '/' || pf->port < 1 || pf->port > 65535 ||
		pf->start_time < 0 || (n > 0 && pf->status[n - 1] == ' '))
		__builtin_trap();
}

static void
fz_judge(const uint8_t *b, const pgwt_pidfile *pf, bool parsed)
{
	static const char *const exes[] = {
		"/usr/lib/postgresql/15/bin/postgres", "/usr/lib/postgresql/18/bin/postgres (deleted)",
		"/home/eve/postgres", "postgres", "/usr/bin/postgres-evil", "",
	};
	static const char *const comms[] = {"postgres", "postgres ", "evil", ""};
	pgwt_pm_facts f;
	char		why[512];
	pgwt_pm_verdict v;
	size_t		wlen;

	memset(&f, 0, sizeof(f));
	f.pid = parsed && (b[0] & 1) ? pf->pid : 1000 + b[1];
	snprintf(f.comm, sizeof(f.comm), "%s", comms[b[2] % 4]);
	f.ppid = 1;
	snprintf(f.exe, sizeof(f.exe), "%s", exes[b[3] % 6]);
	f.exe_known = b[0] & 2;
	f.exe_uid = b[4] % 3 == 0 ? 0 : 1000 + b[4] % 3;
	f.exe_mode = (mode_t) ((b[5] & 1 ? S_IFREG : S_IFLNK) | ((b[5] << 1) & 0777));
	f.parent_same_exe = b[0] & 4;
	f.ids_known = b[0] & 8;
	f.ruid = b[6] % 3 == 0 ? 0 : 1000 + b[6] % 3;
	f.euid = b[7] % 3 == 0 ? 0 : 1000 + b[7] % 3;
	snprintf(f.user, sizeof(f.user), "%s", b[8] & 1 ? "postgres" : "");
	snprintf(f.cwd, sizeof(f.cwd), "%s", b[8] & 2 ? (parsed ? pf->datadir : "/var/lib/pg") : "");
	f.dir_known = b[0] & 16;
	f.dir_uid = b[9] % 3 == 0 ? 0 : 1000 + b[9] % 3;
	f.dir_mode = (mode_t) (S_IFDIR | ((b[10] << 1) & 0777));
	snprintf(f.dir_user, sizeof(f.dir_user), "%s", b[8] & 4 ? "postgres" : "");
	f.pidfile_read = b[0] & 32;
	f.pidfile_regular = b[0] & 64;
	f.pidfile_uid = b[11] % 3 == 0 ? 0 : 1000 + b[11] % 3;
	f.pidfile_parsed = parsed;
	f.pidfile_pid = parsed ? pf->pid : 0;
	f.want_pgdata = b[12] & 1 ? (b[12] & 2 ? pf->datadir : "/srv/pg") : NULL;
	f.want_is_cwd = b[12] & 4;

	memset(why, 0, sizeof(why));
	v = pgwt_pm_judge(&f, why, b[13] % 2 ? sizeof(why) : 40);
	wlen = strnlen(why, sizeof(why));
	if (wlen == sizeof(why) || (v != PGWT_PM_OK && wlen == 0))
		__builtin_trap();
	if (v == PGWT_PM_OK &&
		(strcmp(f.comm, "postgres") != 0 || f.parent_same_exe || !f.pidfile_read ||
		 !f.pidfile_regular || !f.pidfile_parsed || f.pidfile_pid != f.pid || !f.exe_known ||
		 !S_ISREG(f.exe_mode) || f.exe_uid != 0 || (f.exe_mode & 022) || !f.ids_known ||
		 f.ruid != f.euid || f.euid == 0 || f.dir_uid != f.euid || f.pidfile_uid != f.euid ||
		 (f.want_pgdata && !f.want_is_cwd)))
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	pgwt_pidfile *pf;
	char	   *text;
	bool		parsed;

	if (n < 16)
		return 0;
	pf = malloc(sizeof(*pf));
	text = malloc(n - 16 + 1);
	if (pf && text)
	{
		memcpy(text, d + 16, n - 16);
		text[n - 16] = '\0';
		parsed = pgwt_pidfile_parse(text, pf) == 0;
		if (parsed)
			fz_check_pidfile(pf);
		fz_judge(d, pf, parsed);
	}
	free(pf);
	free(text);
	return 0;
}
