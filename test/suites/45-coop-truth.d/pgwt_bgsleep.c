/*
 * pgwt_bgsleep.c
 *	  Test-only module: a background worker with no database connection
 *	  that waits a known time, for test/suites/45-coop-truth.
 *
 * pgwt_bgsleep(ms, library) starts a dynamic background worker registered with
 * BGWORKER_SHMEM_ACCESS only (so it can never connect to a database), waits
 * until it has started and returns its pid. The worker waits once on its
 * latch for `ms` milliseconds under the Extension wait class (not idle),
 * then exits: its wait is background time of known length. `library` is
 * this module's path (it is loaded by path, not installed). No shared state.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/wait_event.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(pgwt_bgsleep);

PGDLLEXPORT void pgwt_bgsleep_main(Datum arg);

void
pgwt_bgsleep_main(Datum arg)
{
	long		ms = (long) DatumGetInt32(arg);

	BackgroundWorkerUnblockSignals();
	/* one wait; a stray latch wake-up only makes it shorter, never longer */
	(void) WaitLatch(MyLatch, WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, ms, PG_WAIT_EXTENSION);
	proc_exit(0);
}

Datum
pgwt_bgsleep(PG_FUNCTION_ARGS)
{
	int32		ms = PG_GETARG_INT32(0);
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	char	   *library = text_to_cstring(PG_GETARG_TEXT_PP(1));
	pid_t		pid;

	if (ms <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("milliseconds must be positive, got %d", ms)));
	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(worker.bgw_library_name, library, sizeof(worker.bgw_library_name));
	strlcpy(worker.bgw_function_name, "pgwt_bgsleep_main", sizeof(worker.bgw_function_name));
	strlcpy(worker.bgw_name, "pgwt_bgsleep", sizeof(worker.bgw_name));
	strlcpy(worker.bgw_type, "pgwt_bgsleep", sizeof(worker.bgw_type));
	worker.bgw_main_arg = Int32GetDatum(ms);
	worker.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not register the pgwt_bgsleep worker")));
	if (WaitForBackgroundWorkerStartup(handle, &pid) != BGWH_STARTED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("the pgwt_bgsleep worker did not start")));
	PG_RETURN_INT32(pid);
}
