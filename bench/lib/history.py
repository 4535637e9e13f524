"""Frozen column lists of every records schema version.

A version's list never changes once records of it exist: a new column is a
new version (schema.VERSION), its list here, and a step in
schema.MIGRATIONS. test_schema.py holds the three together.
"""

# Columns common to every kind of record (run metadata).
_META_V1 = [
    "schema", "kind", "run_id", "commit", "harness", "utc_time", "set",
    "build", "pg_version", "build_patched", "build_patch_hash",
    "configure_hash", "settings", "settings_hash",
    "psi_cpu_start", "psi_cpu_end", "psi_io_start", "psi_io_end", "noisy",
]

# kind = cell: one arm, one workload, one repetition on a running server.
_CELL_V1 = _META_V1 + [
    "workload", "workload_params", "scale", "clients", "threads",
    "duration_s", "warmup_s", "shared_buffers", "session_options",
    "arm", "arm_settings", "arm_side", "rep", "position", "block_position",
    "fresh_server",
    "tx", "failed_tx", "tps", "lat_avg_ms", "lat_p50_ms", "lat_p90_ms",
    "lat_p99_ms", "lat_max_ms",
    "transitions_per_s", "tracer_cpu_s", "server_cpu_s",
    "server_cpu_us_per_tx", "client_cpu_s", "trace_bytes", "dropped_events",
    "psi_cpu_run",
    "evidence_preload", "evidence_backend_types", "evidence_tier",
    "evidence_attached", "evidence_side_alive",
]

# kind = micro: one JSON line of a bench/programs/* program, wrapped.
_MICRO_V1 = _META_V1 + [
    "program", "program_args", "bench", "arm", "rep", "metrics",
]

# kind = run: one per run, the facts too long to repeat in every row.
_RUN_V1 = _META_V1 + [
    "host_cpus", "kernel", "configure", "plan", "refused",
]

# Schema 2: the peak resident memory of the arm's collector (the side
# process, or the in-server collector worker), for memory blow-ups.
_CELL_V2 = _CELL_V1 + ["tracer_rss_kb"]

COLUMNS = {
    1: {"cell": _CELL_V1, "micro": _MICRO_V1, "run": _RUN_V1},
    2: {"cell": _CELL_V2, "micro": _MICRO_V1, "run": _RUN_V1},
}
