"""bench/run: measure the arms of a set, interleaved, and write records.

Per server build: one cluster, data loaded once; then for every workload
and repetition block the arms run in a rotated order (a Latin square over
the blocks: with N arms and a multiple of N repetitions each arm takes each
position equally often). Every cell gets a fresh server (a restart with the
workload's and the arm's settings), a side process when the arm has one,
a warm-up run, the measured run, and evidence of what ran. Records are
appended cell by cell, so a run that stops keeps what it measured.
"""

import glob
import hashlib
import json
import os
import platform
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import arms as arms_mod
import pgbench
import procstat
import schema
import sets as sets_mod
import workloads as wl_mod

HARNESS_VERSION = 1
TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLUSTER = os.path.join(TOP, "scripts", "cluster")
NOISY_PCT = 10.0
# Every setting any arm owns: excluded from the compared settings (the arm's
# own are recorded apart, as arm_settings).
ARM_OWNED = sorted({k for a in arms_mod.ARMS for k in a.settings})
# Where a cluster lives, not how it behaves.
_LOCATION_SETTINGS = {"port", "unix_socket_directories", "listen_addresses",
                      "include_if_exists"}


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def sh(cmd, check=True, env=None, timeout=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=env, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])}...: {(p.stderr or p.stdout).strip()[-300:]}")
    return p


def sha10(text):
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def git_commit():
    p = sh(["git", "-C", TOP, "rev-parse", "HEAD"], check=False)
    if p.returncode != 0:
        return "unknown"
    commit = p.stdout.strip()
    dirty = sh(["git", "-C", TOP, "status", "--porcelain", "--untracked-files=no"],
               check=False).stdout.strip()
    return commit + ("-dirty" if dirty else "")


def new_run_id(commit):
    return f"{commit[:12]}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{secrets.token_hex(2)}"


def utc_now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# ---- server builds ------------------------------------------------------

def server_pg_config(build):
    """pg_config of a build, or raise with the reason it is unavailable.
    PGWT_BENCH_PG_CONFIG_<BUILD> (18-hooks: PGWT_BENCH_PG_CONFIG_18_HOOKS)
    names another install of that build instead of the cached one, e.g. a
    relocated copy that a run may install the extension into."""
    override = os.environ.get("PGWT_BENCH_PG_CONFIG_" + build.upper().replace("-", "_"))
    if override:
        if not os.access(override, os.X_OK):
            raise RuntimeError(f"server build {build} unavailable: {override} is not executable")
        return override
    args = {"15": ["15"], "18": ["18"], "18-hooks": ["18", "hooks"]}[build]
    p = sh([os.path.join(TOP, "scripts", "build-server")] + args, check=False)
    if p.returncode != 0:
        reason = (p.stderr.strip().splitlines() or ["failed"])[-1]
        raise RuntimeError(f"server build {build} unavailable: {reason}")
    return p.stdout.strip().splitlines()[-1]


def ext_install(pgc):
    lib = os.path.join(TOP, "test", "lib", "common.sh")
    p = sh(["bash", "-c", f'source "{lib}" && ext_install "$1"', "ext_install", pgc],
           check=False, env=dict(os.environ, PGWT_TOP=TOP))
    if p.returncode != 0:
        raise RuntimeError("pg_wait_tracer did not build for this server: "
                           + (p.stderr.strip().splitlines() or ["?"])[-1])


def patch_hash(build):
    if build != "18-hooks":
        return None
    h = hashlib.sha256()
    for p in sorted(glob.glob(os.path.join(TOP, "patches", "pg18-*.patch"))):
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


# ---- prerequisites --------------------------------------------------------

def arm_prerequisite(arm, build, pgc):
    """None when the arm can run on this build, else why not."""
    if build not in arm.builds:
        return f"arm {arm.name} does not run on server build {build}"
    libdir = sh([pgc, "--pkglibdir"]).stdout.strip()
    if arm.kind == "pg_wait_sampling":
        if not os.path.exists(os.path.join(libdir, "pg_wait_sampling.so")):
            return "pg_wait_sampling is not installed for this server (postgresql-15-pg-wait-sampling)"
    if arm.kind == "coop":
        try:
            ext_install(pgc)
        except RuntimeError as e:
            return str(e)
        if not os.path.exists(os.path.join(libdir, "pg_wait_tracer.so")):
            return "pg_wait_tracer.so was not installed into this server"
    if arm.side:
        exe = arm.side[0].format(bin=os.path.join(TOP, "bin"))
        if not os.access(exe, os.X_OK):
            return f"{os.path.relpath(exe, TOP)} does not exist (build the tracer first)"
        p = sh([exe, "--help"], check=False, timeout=20)
        helptext = p.stdout + p.stderr
        mode = arm.side[arm.side.index("--mode") + 1] if "--mode" in arm.side else None
        for flag in [a for a in arm.side if a.startswith("--")]:
            if flag not in helptext:
                return f"{os.path.relpath(exe, TOP)} --help does not offer {flag}"
        if mode and mode not in helptext:
            return f"{os.path.relpath(exe, TOP)} --help does not offer mode {mode}"
        if os.geteuid() != 0:
            return "the external tracer needs root"
        if arm.kind == "full":
            # the exact tier's own self-test: no arm is measured that sees nothing
            p = sh([exe, "--check-exact"], check=False, timeout=60)
            if p.returncode != 0:
                return (p.stdout.strip() or p.stderr.strip() or "the exact tier is not available")[:200]
    return None


# ---- one cluster ----------------------------------------------------------

class Cluster:
    def __init__(self, name, pgc, port):
        self.name, self.pgc, self.port = name, pgc, port
        self.bindir = sh([pgc, "--bindir"]).stdout.strip()
        root = os.environ.get("PGWT_CLUSTERS", "/tmp/pgwt-clusters")
        self.dir = os.path.join(root, name)
        self.data = os.path.join(self.dir, "data")

    def start(self):
        sh([CLUSTER, "start", self.name, self.pgc, str(self.port)])
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("include_if_exists = 'pgwt_bench.conf'\n")

    def stop(self):
        sh([CLUSTER, "stop", self.name], check=False)

    def restart_with(self, settings):
        path = os.path.join(self.data, "pgwt_bench.conf")
        with open(path, "w") as f:
            for k in sorted(settings):
                f.write(f"{k} = '{settings[k]}'\n")
        shutil.chown(path, "postgres", "postgres")
        sh([CLUSTER, "restart", self.name])

    def psql(self, sql):
        return sh([CLUSTER, "psql", self.name, "-Atc", sql]).stdout.strip()

    def pid(self):
        return int(sh([CLUSTER, "pid", self.name]).stdout.strip())

    def load(self, scale):
        sh([os.path.join(self.bindir, "pgbench"), "-h", self.dir, "-p", str(self.port),
            "-U", "postgres", "-i", "-q", "-s", str(scale), "postgres"])
        self.psql(wl_mod.LWLOCK_SETUP)
        self.psql("VACUUM ANALYZE")
        self.psql("CHECKPOINT")

    def settings(self):
        """Every setting not at its default, as name=value sorted, split into
        the compared ones and the arm-owned ones."""
        rows = self.psql("SELECT name || '=' || setting FROM pg_settings "
                         "WHERE source NOT IN ('default', 'override', 'client', 'session') "
                         "ORDER BY name")
        compared, owned = [], []
        for line in rows.splitlines():
            name = line.split("=", 1)[0]
            if name in _LOCATION_SETTINGS:
                continue
            (owned if name in ARM_OWNED or "." in name else compared).append(line)
        return ";".join(compared), ";".join(owned)


# ---- one cell -------------------------------------------------------------

def _dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def side_status(text):
    """Metrics of the last status line the tracer printed (--format json):
    {"type": "status", ..., "metrics": {...}}; {} when there is none."""
    last = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith('{"type":"status"') and '"type": "status"' not in line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and obj.get("type") == "status" and isinstance(obj.get("metrics"), dict):
            last = obj["metrics"]
    return last


def side_rate(text, start, end):
    """Events per second the tracer recorded over the measured run: its own
    counters (events_total, uptime_s) of the first and the last status
    line it printed between the byte offsets start and end of its output
    (read at the run's start and end); None with fewer than two lines."""
    pts = []
    for line in text[start:end].splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        m = obj.get("metrics") if isinstance(obj, dict) and obj.get("type") == "status" else None
        if isinstance(m, dict) and isinstance(m.get("events_total"), int) and \
                isinstance(m.get("uptime_s"), (int, float)):
            pts.append((m["uptime_s"], m["events_total"]))
    if len(pts) < 2 or pts[-1][0] <= pts[0][0]:
        return None
    return round((pts[-1][1] - pts[0][1]) / (pts[-1][0] - pts[0][0]), 1)


def side_drops(metrics):
    """Events the tracer says it lost (its counters named *drop*), or None."""
    vals = [v for k, v in metrics.items() if "drop" in k and isinstance(v, int)]
    return sum(vals) if vals else None


def _counters(cluster, arm):
    """(waits, lost) the arm counts itself, or None when it has no counters
    or they cannot be read (recorded as not recorded, never guessed)."""
    if not arm.counters_sql:
        return None
    try:
        waits, lost = cluster.psql(arm.counters_sql).split("|")
        return int(waits), int(lost)
    except (RuntimeError, ValueError) as e:
        log(f"arm {arm.name}: counters unreadable ({e})")
        return None


class Side:
    """The external process of an arm (the tracer), started and stopped."""

    def __init__(self, arm, cluster, workdir):
        self.trace_dir = os.path.join(workdir, "trace")
        os.makedirs(self.trace_dir, exist_ok=True)
        argv = [a.format(bin=os.path.join(TOP, "bin"), pid=cluster.pid(),
                         pgdata=cluster.data, trace_dir=self.trace_dir) for a in arm.side]
        self.out_path = os.path.join(workdir, "side.out")
        self.out = open(self.out_path, "w")
        self.proc = subprocess.Popen(argv, stdout=self.out, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def alive(self):
        return self.proc.poll() is None

    def offset(self):
        """Bytes of output so far (the tracer flushes each status line)."""
        try:
            return os.path.getsize(self.out_path)
        except OSError:
            return None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.out.close()
        with open(self.out_path, errors="replace") as f:
            return f.read()


def measure_cell(ctx, cluster, wl, arm, rep, position, block_position, workdir):
    bset = ctx["set"]
    settings = dict(wl.server_settings)
    settings.update(arm.settings)
    cluster.restart_with(settings)
    if arm.extension:
        cluster.psql(f"CREATE EXTENSION IF NOT EXISTS {arm.extension}")
    psi_cpu_start, psi_io_start = procstat.quiet_pressure()
    side = Side(arm, cluster, workdir) if arm.side else None
    try:
        env = {"PGOPTIONS": wl.session_options} if wl.session_options else {}
        extra = []
        if wl.script:
            spath = os.path.join(workdir, "workload.sql")
            with open(spath, "w") as f:
                f.write(wl.script)
            extra = ["-f", spath]
        wlx = wl_mod.Workload(wl.name, wl.clients, wl.threads, tuple(wl.pgbench_args) + tuple(extra))
        pgbench.run(pgbench.command(cluster.bindir, cluster.dir, cluster.port, wlx,
                                    bset.warmup_s), env, workdir)
        collector_pid = None
        if arm.collector:
            v = cluster.psql("SELECT pid FROM pg_stat_activity WHERE backend_type = "
                             f"'{arm.collector}' LIMIT 1")
            collector_pid = int(v) if v else None
        pm = cluster.pid()
        counters0 = _counters(cluster, arm)
        time.sleep(0.2)
        cpu0 = procstat.tree_cpu_s(pm)
        tracer0 = procstat.proc_cpu_s(side.proc.pid if side else collector_pid) \
            if (side or collector_pid) else None
        side_off0 = side.offset() if side else None
        run_psi = procstat.PressureWindow()
        prefix = os.path.join(workdir, "lat")
        out, client_cpu = pgbench.run(pgbench.command(cluster.bindir, cluster.dir, cluster.port,
                                                      wlx, bset.duration_s, prefix), env, workdir)
        psi_cpu_run, _ = run_psi.close()
        time.sleep(0.2)  # let the postmaster reap the backends of the run
        cpu1 = procstat.tree_cpu_s(pm)
        tracer1 = procstat.proc_cpu_s(side.proc.pid if side else collector_pid) \
            if (side or collector_pid) else None
        counters1 = _counters(cluster, arm)
        side_off1 = side.offset() if side else None
        summary = pgbench.parse_summary(out)
        lat = pgbench.latency_summary(pgbench.read_logs(prefix))
        # Evidence of what ran, read while the arm is still running.
        preload = cluster.psql("SHOW shared_preload_libraries")
        btypes = cluster.psql("SELECT string_agg(DISTINCT backend_type, ',' ORDER BY backend_type) "
                              "FROM pg_stat_activity")
        tier = None
        if arm.kind == "coop":
            tier = cluster.psql("SELECT tier FROM pgwt_status")
        side_alive = side.alive() if side else None
        rss = procstat.peak_rss_kb(side.proc.pid if side else collector_pid) \
            if (side or collector_pid) else None
        compared, owned = cluster.settings()
        pg_version = cluster.psql("SHOW server_version")
    finally:
        side_out = side.stop() if side else ""
    psi_cpu_end, psi_io_end = procstat.quiet_pressure()
    side_metrics = side_status(side_out) if side else {}
    server_cpu = round(cpu1 - cpu0, 3)
    tx = summary["tx"]
    pressures = [x for x in (psi_cpu_start, psi_cpu_end, psi_io_start, psi_io_end) if x is not None]
    params = wl.params(bset.scale, bset.duration_s, bset.warmup_s)
    rec = dict(ctx["meta"], kind="cell", utc_time=utc_now(),
               build=ctx["build"], pg_version=pg_version,
               build_patched=1 if ctx["build"] == "18-hooks" else 0,
               build_patch_hash=patch_hash(ctx["build"]),
               configure_hash=ctx["configure_hash"],
               settings=compared, settings_hash=sha10(compared),
               psi_cpu_start=psi_cpu_start, psi_cpu_end=psi_cpu_end,
               psi_io_start=psi_io_start, psi_io_end=psi_io_end,
               noisy=1 if pressures and max(pressures) > NOISY_PCT else 0,
               workload=wl.name, workload_params=wl_mod.params_text(params),
               scale=bset.scale, clients=wl.clients, threads=wl.threads,
               duration_s=bset.duration_s, warmup_s=bset.warmup_s,
               shared_buffers=params["shared_buffers"], session_options=wl.session_options,
               arm=arm.name, arm_settings=owned, arm_side=" ".join(arm.side) or None,
               rep=rep, position=position, block_position=block_position, fresh_server=1,
               tx=tx, failed_tx=summary["failed_tx"], tps=summary["tps"],
               lat_avg_ms=summary["lat_avg_ms"], **lat,
               transitions_per_s=(round((counters1[0] - counters0[0]) / bset.duration_s, 1)
                                  if counters0 and counters1 else
                                  side_rate(side_out, side_off0, side_off1)
                                  if side and side_off0 is not None and side_off1 is not None
                                  else None),
               tracer_cpu_s=round(tracer1 - tracer0, 3) if tracer0 is not None and tracer1 is not None else None,
               server_cpu_s=server_cpu,
               server_cpu_us_per_tx=round(server_cpu * 1e6 / tx, 3) if tx else None,
               client_cpu_s=client_cpu,
               trace_bytes=_dir_bytes(side.trace_dir) if side else None,
               dropped_events=(counters1[1] - counters0[1] if counters0 and counters1 else
                               side_drops(side_metrics) if side else None),
               psi_cpu_run=psi_cpu_run,
               evidence_preload=preload, evidence_backend_types=btypes,
               evidence_tier=tier,
               evidence_attached=side_metrics.get("backends_seen_total") if side else None,
               evidence_side_alive=(1 if side_alive else 0) if side else None,
               tracer_rss_kb=rss)
    return rec


# ---- micro-benchmark programs ----------------------------------------------

def wrap_micro_line(meta, program, line):
    """One JSON line of a bench/programs/* program as a micro record."""
    obj = json.loads(line)
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    for k in ("bench", "arm", "rep"):
        if k not in obj:
            raise ValueError(f"no '{k}' key")
    metrics = {k: v for k, v in obj.items() if k not in ("bench", "arm", "rep")}
    return dict(meta, kind="micro", utc_time=utc_now(), build="none", settings="",
                settings_hash=sha10(""), program=program, program_args="",
                bench=str(obj["bench"]), arm=str(obj["arm"]), rep=obj["rep"],
                metrics=metrics)


def run_programs(ctx, out_path):
    """Run the set's micro-benchmark programs and wrap their JSON lines."""
    n = 0
    for rel, args in ctx["set"].programs:
        prog = os.path.join(TOP, rel)
        if not os.access(prog, os.X_OK):
            ctx["refused"].append({"arm": rel, "build": "micro",
                                   "reason": f"{rel} does not exist (make userspace builds it)"})
            log(f"program {rel} refused: not built")
            continue
        log(f"program {rel} {' '.join(args)}")
        quiet = procstat.quiet_pressure()
        p = subprocess.run([prog] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, cwd=TOP)
        end = procstat.quiet_pressure()
        if p.returncode != 0:
            why = (p.stderr.strip().splitlines() or ["?"])[-1][:200]
            log(f"{rel} failed ({p.returncode}): {why}")
            ctx["refused"].append({"arm": rel, "build": "micro", "reason": f"exited {p.returncode}: {why}"})
            continue
        pressures = [x for x in quiet + end if x is not None]
        for line in p.stdout.splitlines():
            if not line.strip().startswith("{"):
                continue
            try:
                rec = wrap_micro_line(ctx["meta"], rel, line)
            except ValueError as e:
                log(f"{rel}: line refused ({e}): {line[:80]}")
                continue
            rec.update(program_args=" ".join(args), psi_cpu_start=quiet[0], psi_io_start=quiet[1],
                       psi_cpu_end=end[0], psi_io_end=end[1],
                       noisy=1 if pressures and max(pressures) > NOISY_PCT else 0)
            schema.append(out_path, rec)
            n += 1
    return n


# ---- the run --------------------------------------------------------------

def _cell_with_retry(ctx, cl, wl, arm, rep, position, bpos):
    """A cell; one retry on a fresh server when pgbench or the server fails
    (a shared host has its hiccups). The retry is noted in the run record."""
    for attempt in (1, 2):
        try:
            with tempfile.TemporaryDirectory(prefix="pgwt-bench-") as wd:
                os.chmod(wd, 0o755)
                return measure_cell(ctx, cl, wl, arm, rep, position, bpos, wd)
        except RuntimeError as e:
            if attempt == 2:
                raise
            log(f"{ctx['build']} {wl.name} rep {rep} {arm.name}: {e}; retrying once")
            ctx["retries"].append({"build": ctx["build"], "workload": wl.name, "arm": arm.name,
                                   "rep": rep, "error": str(e)[:300]})
    raise AssertionError("unreachable")


def latin_reps(min_reps, n_arms):
    """Repetitions rounded up to a multiple of the arm count, so that over
    the blocks each arm takes each position equally often."""
    return -(-min_reps // n_arms) * n_arms


def block_order(arm_list, block):
    """Rotation of the arms for repetition block `block` (from 0)."""
    k = block % len(arm_list)
    return arm_list[k:] + arm_list[:k]


def run(set_name, out_dir, only_builds=None):
    bset = sets_mod.SETS[set_name]
    commit = git_commit()
    run_id = new_run_id(commit)
    meta = {"schema": schema.VERSION, "run_id": run_id, "commit": commit,
            "harness": f"bench/run {HARNESS_VERSION} records {schema.VERSION}", "set": set_name}
    out_path = os.path.join(out_dir, f"{run_id}.jsonl")
    refused, plan, configure = [], {}, {}
    usable = {}
    for build, (arm_names, wl_names) in bset.builds.items():
        if only_builds and build not in only_builds:
            continue
        try:
            pgc = server_pg_config(build)
        except RuntimeError as e:
            for a in arm_names:
                refused.append({"arm": a, "build": build, "reason": str(e)})
            log(str(e))
            continue
        keep = []
        for a in arm_names:
            why = arm_prerequisite(arms_mod.BY_NAME[a], build, pgc)
            if why:
                refused.append({"arm": a, "build": build, "reason": why})
                log(f"arm {a} on {build} refused: {why}")
            else:
                keep.append(a)
        if "none" not in keep or len(keep) < 2:
            log(f"build {build}: nothing to compare ({', '.join(keep) or 'no arm'} left)")
            continue
        usable[build] = (pgc, keep, wl_names)
        plan[build] = {"arms": keep, "workloads": list(wl_names), "reps": latin_reps(bset.reps, len(keep))}
        configure[build] = sh([pgc, "--configure"]).stdout.strip()
    plan.update(min_reps=bset.reps, duration_s=bset.duration_s, warmup_s=bset.warmup_s,
                scale=bset.scale, order="rotated blocks (Latin square)")
    est = sets_mod.estimate_s(bset, {b: len(v[1]) for b, v in usable.items()})
    log(f"run {run_id}: set {set_name}, about {est // 60} min; records -> {os.path.relpath(out_path, TOP)}")
    ctx = {"meta": meta, "set": bset, "refused": refused, "retries": []}
    runrec = dict(meta, kind="run", utc_time=utc_now(), build="all", settings="",
                  settings_hash=sha10(""), host_cpus=os.cpu_count(),
                  kernel=platform.release(), configure=configure, plan=plan, refused=refused)
    cells = 0
    port_base = int(os.environ.get("PGWT_PORT_BASE", "55400"))
    for i, (build, (pgc, keep, wl_names)) in enumerate(usable.items()):
        cl = Cluster(f"bench-{build}", pgc, port_base + 40 + i)
        ctx["build"] = build
        ctx["configure_hash"] = sha10(configure[build])
        try:
            cl.start()
            log(f"{build}: loading pgbench scale {bset.scale}")
            cl.load(bset.scale)
            position = 0
            arm_objs = [arms_mod.BY_NAME[a] for a in keep]
            for wi, wname in enumerate(wl_names):
                wl = wl_mod.BY_NAME[wname]
                for rep in range(1, latin_reps(bset.reps, len(arm_objs)) + 1):
                    for bpos, arm in enumerate(block_order(arm_objs, rep - 1 + wi), 1):
                        position += 1
                        rec = _cell_with_retry(ctx, cl, wl, arm, rep, position, bpos)
                        schema.append(out_path, rec)
                        cells += 1
                        log(f"{build} {wname} rep {rep} {arm.name}: tps {rec['tps']:.0f}, "
                            f"server {rec['server_cpu_us_per_tx']} us/tx"
                            + (" (noisy)" if rec["noisy"] else ""))
        finally:
            cl.stop()
    cells += run_programs(ctx, out_path)
    runrec["refused"] = refused
    runrec["plan"]["retries"] = ctx["retries"]
    schema.append(out_path, runrec)
    log(f"run {run_id}: {cells} records in {os.path.relpath(out_path, TOP)}")
    return out_path, cells
