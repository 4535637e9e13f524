"""The workloads: pgbench runs with their server settings and parameters.

  select_only  pgbench -S with shared_buffers far under the data: most
               reads miss the buffer pool and hit the OS cache, so
               IO:DataFileRead waits come and go at a very high rate.
  tpcb         the standard pgbench TPC-B-like transaction.
  connect      pgbench -S -C: a new backend for every transaction, so
               backend start and exit (and a tracer's attach) dominate;
               a transaction is a connection, so its records' per-
               transaction columns (server_cpu_us_per_tx) are per
               connection.
  lwlock       8 clients, each updating its own row of one 8-row heap page
               with synchronous_commit off: every update takes the same
               buffer content lock exclusively, so the run is many short
               LWLock:BufferContent waits (the contended-lock case).
"""

import hashlib
from dataclasses import dataclass, field

LWLOCK_SETUP = """
DROP TABLE IF EXISTS pgwt_bench_hot;
CREATE TABLE pgwt_bench_hot (id int PRIMARY KEY, n bigint) WITH (fillfactor = 50);
INSERT INTO pgwt_bench_hot SELECT g, 0 FROM generate_series(0, 7) g;
"""
LWLOCK_SCRIPT = "UPDATE pgwt_bench_hot SET n = n + 1 WHERE id = :client_id;\n"


@dataclass(frozen=True)
class Workload:
    name: str
    clients: int
    threads: int
    pgbench_args: tuple         # mode flags; a script path is added at run time
    server_settings: dict = field(default_factory=dict)
    session_options: str = ""   # PGOPTIONS of the pgbench sessions
    script: str = ""            # custom pgbench script text, when any

    def params(self, scale, duration_s, warmup_s):
        """The parameters that make two cells of this workload comparable."""
        p = {
            "clients": self.clients, "threads": self.threads,
            "mode": " ".join(self.pgbench_args) or ("script" if self.script else "tpcb"),
            "scale": scale, "duration_s": duration_s, "warmup_s": warmup_s,
            "shared_buffers": self.server_settings.get("shared_buffers", "default"),
            "session_options": self.session_options,
        }
        if self.script:
            p["script_sha"] = hashlib.sha256(self.script.encode()).hexdigest()[:10]
        return p


WORKLOADS = [
    Workload("select_only", 4, 2, ("-S",), {"shared_buffers": "16MB"}),
    Workload("tpcb", 4, 2, (), {"shared_buffers": "128MB"}),
    Workload("connect", 4, 2, ("-S", "-C"), {"shared_buffers": "128MB"}),
    Workload("lwlock", 8, 2, (), {"shared_buffers": "128MB"},
             session_options="-c synchronous_commit=off", script=LWLOCK_SCRIPT),
]

BY_NAME = {w.name: w for w in WORKLOADS}


def params_text(params):
    return ";".join(f"{k}={params[k]}" for k in sorted(params))
