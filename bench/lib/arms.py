"""The arms a benchmark can measure: one line each.

An arm is what runs beside the workload: server settings (a preloaded
library and its GUCs), optionally a side process the harness starts before
the warm-up and stops after the measurement. `kind` says which evidence the
checker demands that the arm really ran (see check.py):

  none              no tracing library preloaded, no side process
  pg_wait_sampling  the library preloaded and its collector worker running
  coop              pg_wait_tracer preloaded and pgwt_status showing the
                    arm's tier: 'coop' when capturing; 'off' with capture
                    off (a server without hooks would show 'none')
  sampled / full    the external tracer alive to the end, and its last
                    status line counting at least one backend seen

Side process argument templates: {bin} the project's bin/, {pid} the
postmaster pid, {pgdata} its data directory, {trace_dir} a fresh directory
whose size becomes trace_bytes.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Arm:
    name: str
    builds: tuple            # server build keys it runs on: 15, 18, 18-hooks
    kind: str
    settings: dict = field(default_factory=dict)
    side: tuple = ()         # argv template of the side process, or empty
    collector: str = ""      # backend_type of an in-server collector process
    extension: str = ""      # CREATE EXTENSION needed for its evidence
    counters_sql: str = ""   # 'waits|lost' counted by the arm itself, read
                             # before and after the run: transitions/s, drops
    expect_tier: str = ""    # coop: the pgwt_status tier the arm must show


_TRACER = "{bin}/pg_wait_tracer"
_COOP_COUNTERS = ("SELECT (SELECT coalesce(sum(waits), 0) FROM pgwt_system_event) || '|' || "
                  "(SELECT coalesce(lost_waits, 0) FROM pgwt_status)")
# JSON output: every interval a {"type":"status",...,"metrics":{...}} line,
# whose backends_seen_total is the evidence that the tracer attached.
_TRACER_COMMON = ("--pid", "{pid}", "--trace-dir", "{trace_dir}",
                  "--format", "json", "--interval", "1")

ARMS = [
    Arm("none", ("15", "18", "18-hooks"), "none"),
    Arm("pg_wait_sampling", ("15",), "pg_wait_sampling",
        {"shared_preload_libraries": "pg_wait_sampling"},
        collector="pg_wait_sampling collector"),
    # escalation_auto off: an automatic window (which traces every wait)
    # opening at a cell's start-up would make "stats" measure trace too
    Arm("coop_off", ("18-hooks",), "coop",
        {"shared_preload_libraries": "pg_wait_tracer",
         "pg_wait_tracer.capture": "off", "pg_wait_tracer.escalation_auto": "off"},
        extension="pg_wait_tracer", expect_tier="off"),
    Arm("coop_stats", ("18-hooks",), "coop",
        {"shared_preload_libraries": "pg_wait_tracer",
         "pg_wait_tracer.capture": "stats", "pg_wait_tracer.escalation_auto": "off"},
        extension="pg_wait_tracer", counters_sql=_COOP_COUNTERS, expect_tier="coop"),
    Arm("coop_trace", ("18-hooks",), "coop",
        {"shared_preload_libraries": "pg_wait_tracer",
         "pg_wait_tracer.capture": "trace",
         # every process traced: a ring for each (the pool's default is 8)
         "pg_wait_tracer.trace_rings": "64"}, extension="pg_wait_tracer",
        counters_sql=_COOP_COUNTERS, expect_tier="coop"),
    Arm("sampled_10hz", ("15", "18"), "sampled",
        side=(_TRACER, "--mode", "sampled", "--sample-rate", "10") + _TRACER_COMMON),
    Arm("sampled_100hz", ("15", "18"), "sampled",
        side=(_TRACER, "--mode", "sampled", "--sample-rate", "100") + _TRACER_COMMON),
    Arm("tiered_10hz", ("15", "18"), "sampled",
        side=(_TRACER, "--mode", "tiered", "--sample-rate", "10") + _TRACER_COMMON),
    Arm("full", ("15", "18"), "full",
        side=(_TRACER, "--mode", "full") + _TRACER_COMMON),
    # the scheduler tier (issue #21): exact for blocking waits, no debug
    # registers, so it runs where the watchpoint tier's self-test fails
    Arm("sched", ("15", "18"), "sched",
        side=(_TRACER, "--mode", "sched") + _TRACER_COMMON),
]

BY_NAME = {a.name: a for a in ARMS}
EVIDENCE_KINDS = ("none", "pg_wait_sampling", "coop", "sampled", "full", "sched")
# Libraries whose presence makes a server traced (a "none" arm must have none).
TRACING_LIBRARIES = ("pg_wait_sampling", "pg_wait_tracer")
