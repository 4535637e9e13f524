"""Benchmark sets: which arms on which server build, which workloads, and
the repetition protocol. `make bench` runs `default` (about 30 minutes on a
2-core VM: the estimate is printed at its start), `make bench-full` runs
`full`; `smoke` is a one-minute check of the harness itself; `format` the
trace format's programs alone; `sampler` the in-server sampler against
pg_wait_sampling alone; `connect` the connection cost of exact capture
alone in server CPU and connections/s (`connect_instr` its instruction
count alone); `dump` pgwt-dump and the history functions end to end
alone; `seed_read` pgwt-dump on the seed tool's layout against ours;
`memory` the extension's shared memory by part alone.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class BenchSet:
    name: str
    builds: dict          # build key -> (arm names, workload names)
    reps: int
    duration_s: int
    warmup_s: int
    scale: int
    programs: tuple = ()  # micro-benchmark programs: (path from the top, args)


_ALL_WL = ("select_only", "tpcb", "connect", "lwlock")

# A connection's whole life in instructions (callgrind), by arm: what the
# connect cells' noisy connections/s cannot resolve (issue #23).
_CONNECT_INSTR = ("bench/programs/coop_instr/coop_instr",
                  ("--workloads", "connect", "--arms", "none,coop_off,coop_stats,coop_trace",
                   "--reps", "3", "--tx", "4", "--t-small", "1", "--warmup", "2",
                   "--native-conns", "10"))

# What a connection costs in server CPU and connections/s, by arm
# (issue #23): five servers side by side, connections to them interleaved
# one by one, the arms rotated over the servers by epoch, paired per epoch
# (bench/programs/conn_cost). The budget stops starting new epochs; the
# epochs done are all reported.
def _conn_cost(budget_s):
    return ("bench/programs/conn_cost/conn_cost",
            ("--epochs", "400", "--cycles", "100", "--budget-s", str(budget_s)))


# Micro-benchmark programs (bench/programs/*, or built into bin/): each
# prints JSON lines {"bench", "arm", "rep", metrics...} on stdout.
_PROGRAMS_DEFAULT = (
    ("bin/pgwt-bench-watchpoint", ("--reps", "5")),
    ("bin/pgwt-bench-analysis", ("--reps", "3", "--records", "2000000")),
    ("bench/programs/waitpair", ("--reps", "2", "--callgrind-reps", "3")),
    ("bench/programs/waitpair", ("--clock", "--reps", "5")),
    ("bench/programs/tracer_cpu", ("--reps", "2", "--duration", "15", "--warmup", "3",
                                   "--coverage-duration", "5")),
    ("bin/pgwt-bench-tracefmt", ("--events", "2000000", "--reps", "3")),
    ("bench/programs/tracer_full", ("--server", "15", "--reps", "2", "--duration", "6",
                                    "--coverage-duration", "0")),
    ("bench/programs/tracer_full", ("--server", "15", "--xv-only", "--xv-duration", "20",
                                    "--xv-reps", "2", "--xv-rate", "10")),
    ("bench/programs/summary_views/run.sh", ("--reps", "3")),
    ("bench/programs/dump_throughput/run.sh", ("--reps", "5")),
    ("bench/programs/web_api/run.py", ("--reps", "3")),
    ("bench/programs/trace_overhead/trace_overhead", ("--reps", "2", "--duration", "5", "--idle-s", "5")),
    ("bench/programs/coop_instr/coop_instr", ("--workloads", "select_only,tpcb", "--reps", "2",
                                              "--tx", "300")),
    ("bench/programs/shmem/shmem", ("--connections", "100,400", "--reps", "3")),
    _CONNECT_INSTR,
    _conn_cost(180),
)
_PROGRAMS_FULL = (
    ("bin/pgwt-bench-watchpoint", ("--reps", "10")),
    ("bin/pgwt-bench-analysis", ("--reps", "8")),
    ("bench/programs/waitpair", ("--reps", "8", "--callgrind-reps", "3")),
    ("bench/programs/waitpair", ("--clock", "--reps", "10")),
    ("bench/programs/tracer_cpu", ("--reps", "6")),
    ("bin/pgwt-bench-tracefmt", ("--events", "10000000", "--reps", "5")),
    ("bench/programs/sampler_vs_pgws/sampler_vs_pgws", ("--reps", "5", "--duration", "20",
                                                        "--callgrind-seconds", "4", "--callgrind-idle", "10")),
    ("bench/programs/tracer_full", ("--server", "15", "--reps", "5", "--duration", "15")),
    ("bench/programs/tracer_full", ("--server", "15", "--xv-only", "--xv-duration", "30",
                                    "--xv-reps", "3", "--xv-rate", "100")),
    ("bench/programs/tracer_full", ("--server", "15", "--xv-only", "--xv-duration", "60",
                                    "--xv-reps", "3", "--xv-rate", "10")),
    ("bench/programs/summary_views/run.sh", ("--reps", "5")),
    ("bench/programs/dump_throughput/run.sh", ("--reps", "8")),
    ("bench/programs/history_throughput/run.sh", ("--reps", "8")),
    ("bench/programs/trace_overhead/trace_overhead", ("--reps", "6", "--duration", "20", "--idle-s", "30")),
    ("bench/programs/paired_toggle/paired_toggle", ("--which", "coop,sampler",
                                                    "--workloads", "select_only,tpcb,lwlock",
                                                    "--pairs", "20", "--duration", "5")),
    ("bench/programs/coop_instr/coop_instr", ("--workloads", "select_only,tpcb,lwlock", "--reps", "3",
                                              "--tx", "300", "--arms",
                                              "none,coop_off,coop_stats,coop_stats_auto")),
    _CONNECT_INSTR,
    _conn_cost(480),
)

SETS = {
    # the trace format's figures alone (sizes, decode, entropy floor): ~2 min
    "format": BenchSet("format", {}, reps=3, duration_s=0, warmup_s=0, scale=0,
                       programs=(("bin/pgwt-bench-tracefmt", ("--events", "2000000", "--reps", "3")),)),
    # the in-server sampler: agreement with exact, and beside
    # pg_wait_sampling in one server, 5 reps of each arm: ~11 min
    "sampler": BenchSet("sampler", {}, reps=5, duration_s=0, warmup_s=0, scale=0,
                        programs=(("bench/programs/sampler_vs_pgws/sampler_vs_pgws",
                                   ("--reps", "5", "--arms", "sampled_vs_exact,paired,paired_many",
                                    "--duration", "8", "--exact-duration", "20",
                                    "--callgrind-seconds", "0")),)),
    # the analysis engine alone over in-memory record streams, by arm
    # (exact, sampled, mixed, 3 windows, the exact-only analyses): ~2 min
    "analysis": BenchSet("analysis", {}, reps=5, duration_s=0, warmup_s=0, scale=0,
                         programs=(("bin/pgwt-bench-analysis", ("--reps", "5", "--records", "2000000")),)),
    # pgwt-dump end to end on 10M records of 8 backends (issue #23),
    # beside decoding alone, then the history functions in SQL on the same
    # directory (a private hooked-18 cluster): ~3 min
    "dump": BenchSet("dump", {}, reps=8, duration_s=0, warmup_s=0, scale=0,
                     programs=(("bench/programs/dump_throughput/run.sh", ("--reps", "8")),
                               ("bench/programs/history_throughput/run.sh", ("--reps", "8")))),
    # pgwt-dump on 10M records in the seed tool's layout against our own
    # format (issue #22), the same records written three ways: ~3 min
    "seed_read": BenchSet("seed_read", {}, reps=3, duration_s=0, warmup_s=0, scale=0,
                          programs=(("bench/programs/seed_read/run.sh", ("--reps", "3")),)),
    # pgwt-server's answers (issue #18): handler instructions, API CPU on an
    # hour of exact records and on a day from summaries and from records, the
    # page in headless Chromium: ~3 min
    "web": BenchSet("web", {}, reps=3, duration_s=0, warmup_s=0, scale=0,
                    programs=(("bench/programs/web_api/run.py", ("--reps", "3")),)),
    "smoke": BenchSet("smoke", {"15": (("none", "pg_wait_sampling", "sampled_10hz"), ("select_only",)),
                                "18-hooks": (("none", "coop_stats"), ("lwlock",))},
                      reps=3, duration_s=3, warmup_s=1, scale=2),
    "default": BenchSet("default", {
        "15": (("none", "pg_wait_sampling", "sampled_10hz"), ("select_only", "tpcb")),
        # the connect workload's arms are measured by conn_cost (programs)
        "18-hooks": (("none", "coop_off", "coop_stats", "coop_trace"), ("select_only",)),
    }, reps=3, duration_s=6, warmup_s=2, scale=10, programs=_PROGRAMS_DEFAULT),
    # what exact capture costs a connection (issue #23): server CPU and
    # connections/s by arm, connections interleaved across five servers,
    # 8 min of epochs: ~9 min
    "connect": BenchSet("connect", {}, reps=1, duration_s=0, warmup_s=0, scale=0,
                        programs=(_conn_cost(480),)),
    # a connection's instructions by arm alone (callgrind): ~6 min
    "connect_instr": BenchSet("connect_instr", {}, reps=3, duration_s=0, warmup_s=0, scale=0,
                              programs=(_CONNECT_INSTR,)),
    # the scheduler tier against none and the 10 Hz sampler (issue #21), on
    # select-only and TPC-B, stock 15 and 18; then, under 8 clients on 2
    # cores, its run-queue share against /proc/PID/schedstat and its own
    # event and drop counters (programs/sched_tier): ~10 min
    "sched": BenchSet("sched", {
        "15": (("none", "sampled_10hz", "sched"), ("select_only", "tpcb")),
        "18": (("none", "sampled_10hz", "sched"), ("select_only", "tpcb")),
    }, reps=3, duration_s=6, warmup_s=2, scale=10,
        programs=(("bench/programs/sched_tier", ("--server", "15", "--reps", "3",
                                                 "--duration", "5")),)),
    # what the extension's exact trace writes per wait and costs in TPS
    # (issue #23), pgbench select-only on the hooked 18, stats and trace
    # arms in ABBA pairs: ~4 min
    "trace": BenchSet("trace", {}, reps=3, duration_s=0, warmup_s=0, scale=0,
                      programs=(("bench/programs/trace_overhead/trace_overhead",
                                 ("--reps", "3", "--duration", "8", "--idle-s", "5")),)),
    # the extension's shared memory by part at max_connections 100 and 400
    # (issue #23), from pg_shmem_allocations: ~2 min
    "memory": BenchSet("memory", {}, reps=1, duration_s=0, warmup_s=0, scale=0,
                       programs=(("bench/programs/shmem/shmem", ("--connections", "100,400",
                                                                 "--reps", "3")),)),
    "full": BenchSet("full", {
        "15": (("none", "pg_wait_sampling", "sampled_10hz", "sampled_100hz", "tiered_10hz", "full"),
               _ALL_WL),
        "18": (("none", "sampled_10hz", "full"), _ALL_WL),
        "18-hooks": (("none", "coop_off", "coop_stats", "coop_trace"), _ALL_WL),
    }, reps=6, duration_s=20, warmup_s=5, scale=20, programs=_PROGRAMS_FULL),
}

# Seconds a cell costs beyond warm-up and measurement: restart, pressure
# windows, evidence queries (measured on the 2-core VM).
CELL_OVERHEAD_S = 5
# Seconds a micro-benchmark program takes, per repetition (measured).
PROGRAM_S_PER_REP = {"bench/programs/waitpair": 50, "bin/pgwt-bench-watchpoint": 2,
                     "bin/pgwt-bench-analysis": 10, "bench/programs/tracer_cpu": 80,
                     "bin/pgwt-bench-tracefmt": 30,
                     "bench/programs/sampler_vs_pgws/sampler_vs_pgws": 130,
                     "bench/programs/tracer_full": 60,
                     "bench/programs/summary_views/run.sh": 30,
                     "bench/programs/dump_throughput/run.sh": 3,
                     "bench/programs/history_throughput/run.sh": 10,
                     "bench/programs/web_api/run.py": 60,
                     "bench/programs/seed_read/run.sh": 50,
                     "bench/programs/trace_overhead/trace_overhead": 45,
                     "bench/programs/coop_instr/coop_instr": 110,
                     "bench/programs/shmem/shmem": 25,
                     "bench/programs/sched_tier": 25,
                     "bench/programs/conn_cost/conn_cost": 40}


def estimate_s(bset, arms_per_build):
    """Wall-clock estimate of a set, given how many arms each build keeps."""
    total = 0
    for build, (_, wls) in bset.builds.items():
        n = arms_per_build.get(build, 0)
        if n < 2:
            continue
        total += 30  # cluster start and data load
        reps = -(-bset.reps // n) * n
        total += len(wls) * reps * n * (bset.duration_s + bset.warmup_s + CELL_OVERHEAD_S)
    for prog, args in bset.programs:
        reps = int(args[args.index("--reps") + 1]) if "--reps" in args else 5
        per_rep = 2 if "--clock" in args else PROGRAM_S_PER_REP.get(prog, 10)
        if "--budget-s" in args:  # the servers' start, then blocks until the budget
            reps, per_rep = 1, per_rep + int(args[args.index("--budget-s") + 1])
        if "--pairs" in args:     # paired_toggle: two cells a pair, a server per workload
            n_wl = (len(args[args.index("--workloads") + 1].split(","))
                    * len(args[args.index("--which") + 1].split(",")))
            cell = int(args[args.index("--duration") + 1]) + 4
            reps, per_rep = 1, n_wl * (40 + 2 * (int(args[args.index("--pairs") + 1]) + 1) * cell)
        if "--xv-only" in args:   # a (real-time, normal) pair of daemons per rep
            reps = int(args[args.index("--xv-reps") + 1])
            per_rep = 2 * (int(args[args.index("--xv-duration") + 1]) + 15)
        total += per_rep * reps
    return total
