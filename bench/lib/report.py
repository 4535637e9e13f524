"""bench/report: tables of medians and paired differences from records.

Each run is reported on its own (a comparison never spans runs) and only
when its records pass check.py. A difference is paired by repetition block:
for block r, (arm - none) / none in percent; the table gives the mean of
those differences and its 95% paired-t interval. A cell is marked noisy when
one of its records was taken under host pressure (noisy = 1) or when the
arm's TPS varies by more than 10% (coefficient of variation).
"""

from collections import defaultdict

import check
import stats

NOISY_CV = 0.10
BASELINES = ("none", "baseline", "stock")


def fmt(x, nd=1):
    if x is None:
        return "-"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{nd}f}"


def fmt_interval(iv):
    if iv is None:
        return "-"
    m, lo, hi = iv
    return f"{m:+.1f}% [{lo:+.1f}, {hi:+.1f}]"


def paired_pct(recs_arm, recs_base, col):
    """Mean and 95% interval of per-block percent differences, or None."""
    base = {r["rep"]: r.get(col) for r in recs_base}
    diffs = []
    for r in recs_arm:
        b, x = base.get(r["rep"]), r.get(col)
        if b and x is not None:
            diffs.append(100.0 * (x - b) / b)
    if len(diffs) < 2:
        return None
    return stats.paired_interval(diffs)


def paired_abs_micro(recs_arm, recs_base, metric):
    """Mean and 95% interval of per-rep differences (metric units), or None."""
    base = {r["rep"]: (r.get("metrics") or {}).get(metric) for r in recs_base}
    diffs = []
    for r in recs_arm:
        b, x = base.get(r["rep"]), (r.get("metrics") or {}).get(metric)
        if isinstance(b, (int, float)) and isinstance(x, (int, float)):
            diffs.append(x - b)
    if len(diffs) < 2:
        return None
    return stats.paired_interval(diffs)


def _median(recs, col):
    xs = [r[col] for r in recs if r.get(col) is not None]
    return stats.median(xs) if xs else None


def comparison_rows(recs):
    """Rows (dicts) of one cell comparison, baseline first."""
    by_arm = defaultdict(list)
    for r in recs:
        by_arm[r["arm"]].append(r)
    base = by_arm.get("none")
    order = sorted(by_arm, key=lambda a: (a != "none", min(r["position"] for r in by_arm[a])))
    rows = []
    for a in order:
        rs = by_arm[a]
        tps_cv = stats.cv([r["tps"] for r in rs])
        noisy_n = sum(1 for r in rs if r.get("noisy"))
        rows.append({
            "arm": a, "n": len(rs),
            "tps": _median(rs, "tps"),
            "tps_diff": None if a == "none" or not base else paired_pct(rs, base, "tps"),
            "cpu_us_tx": _median(rs, "server_cpu_us_per_tx"),
            "cpu_diff": None if a == "none" or not base else paired_pct(rs, base, "server_cpu_us_per_tx"),
            "p99": _median(rs, "lat_p99_ms"),
            "tracer_cpu": _median(rs, "tracer_cpu_s"),
            "waits_s": _median(rs, "transitions_per_s"),
            "dropped": sum(r["dropped_events"] for r in rs if r.get("dropped_events") is not None)
            if any(r.get("dropped_events") is not None for r in rs) else None,
            "trace_bytes": _median(rs, "trace_bytes"),
            "noisy_n": noisy_n,
            "tps_cv": tps_cv,
            "noisy": noisy_n > 0 or (tps_cv is not None and tps_cv > NOISY_CV),
        })
    return rows


def metric_value(recs, arm, metric):
    """A figure a claim can cite: a column median of an arm's cells, or
    COLUMN_diff_pct (mean paired percent difference against the baseline
    arm); of micro records a metric's median, or METRIC_diff (mean paired
    difference against the baseline, in the metric's unit)."""
    rs = [r for r in recs if r.get("arm") == arm]
    if not rs:
        return None
    base = [r for r in recs if r.get("arm") in BASELINES]
    if metric.endswith("_diff_pct"):
        iv = paired_pct(rs, base, metric[:-len("_diff_pct")])
        return None if iv is None else iv[0]
    if metric.endswith("_diff") and rs[0]["kind"] == "micro":
        iv = paired_abs_micro(rs, base, metric[:-len("_diff")])
        return None if iv is None else iv[0]
    if rs[0]["kind"] == "micro":
        xs = [r["metrics"].get(metric) for r in rs if isinstance(r.get("metrics"), dict)]
        xs = [x for x in xs if isinstance(x, (int, float))]
        return stats.median(xs) if xs else None
    return _median(rs, metric)


def split_runs(recs):
    runs = defaultdict(list)
    for r in recs:
        runs[r["run_id"]].append(r)
    return runs


def passing_runs(recs):
    """{run_id: records} of runs whose records pass, and lines on the others."""
    good, notes = {}, []
    for run_id, rs in sorted(split_runs(recs).items(), key=lambda kv: kv[1][0]["utc_time"] or ""):
        problems = check.check(rs)
        if problems:
            notes.append(f"run {run_id} left out: {len(problems)} problem(s), first: {problems[0]}")
        else:
            good[run_id] = rs
    return good, notes


def _comparisons(rs):
    groups = defaultdict(list)
    for r in rs:
        if r["kind"] == "cell":
            groups[(r["build"], r["workload"])].append(r)
    return groups


def _micro(rs):
    groups = defaultdict(list)
    for r in rs:
        if r["kind"] == "micro":
            groups[(r["program"], r["bench"])].append(r)
    return groups


def render(runs, notes, markdown, sources):
    L = []
    md = markdown
    if md:
        L += ["# Performance", "",
              "<!-- Generated by `bench/report --markdown` from the records under",
              "     bench/records/. Do not edit: run the benchmark and regenerate. -->", "",
              "## Summary: what each tier costs, against its goal", "",
              "Each figure is from the newest run below that measured it. A goal on a "
              "paired difference is met when the mean is within it; \"interval wider\" "
              "means this VM's noise does not yet resolve it.", ""]
        L += headline_table(runs)
        L += ["", "Why these goals:", ""]
        for tier, what, _src, goal in HEADLINE:
            if goal:
                L.append(f"- {tier}, {what}: {goal[3]}.")
        L += ["- The exact watchpoint tier has no goal: a trap costs what the hardware and the "
              "hypervisor make it cost, far more in a VM than on bare metal, which is why it runs "
              "in short, budgeted windows; where watchpoints never fire it does not run at all "
              "(`pg_wait_tracer --check-exact`).", ""]
        L += ["## Method", "",
              "Every figure below comes from the records of the run named above its "
              "table (`run_id`: commit, UTC time, random suffix). Differences are "
              "paired by repetition block against the `none` arm (no tracing) of the "
              "same run: mean of the per-block percent differences and its 95% "
              "interval (paired Student t). Micro-benchmark differences are paired "
              "by repetition against the program's baseline arm (`none` or `stock`), "
              "in the metric's own unit. A connection's cost (`conn_cost_*`, "
              "bench/programs/conn_cost) is paired by epoch: five servers side by side, "
              "restarted every epoch with the arms rotated over them, connections to "
              "them interleaved one by one, each server's CPU from its own cpuacct "
              "cgroup (exited backends included, in ns); `coop_off_aa` is a second "
              "capture-off server, the A/A control that shows the method's own bias. "
              "`server us/tx` is the CPU time of the "
              "whole postmaster tree (backends, workers, collectors) per "
              "transaction, read from /proc before and after the measured run: "
              "steadier than TPS on a shared host. `collector CPU s` is the CPU of "
              "the arm's own collector over the measured run (the external tracer, "
              "or the collector worker inside the server, which `server us/tx` "
              "also includes); `waits/s` and `dropped` are counted by the arm "
              "itself where it counts (the cooperative stats capture). A cell marked noisy ran while "
              "other work loaded the host (CPU or IO pressure above 10% in the idle "
              "second around it) or its TPS varied by more than 10%.", ""]
        L.append("Sources: " + ", ".join(f"`{s}`" for s in sources))
        L.append("")
    for run_id, rs in runs.items():
        runrec = next((r for r in rs if r["kind"] == "run"), None)
        cells = [r for r in rs if r["kind"] == "cell"]
        head = f"Run {run_id}"
        L.append(("## " if md else "== ") + head)
        L.append("")
        first = (cells or rs)[0]
        meta = [f"commit {first['commit']}", f"set {first.get('set')}", f"harness {first['harness']}"]
        if runrec:
            meta.append(f"host {runrec.get('host_cpus')} CPUs, kernel {runrec.get('kernel')}")
            plan = runrec.get("plan") or {}
            meta.append(f"at least {plan.get('min_reps', plan.get('reps'))} repetitions "
                        f"(a multiple of the arm count) of {plan.get('duration_s')} s "
                        f"after {plan.get('warmup_s')} s warm-up, {plan.get('order')}, "
                        f"a fresh server per cell")
        L.append(("- " if md else "  ") + ("\n- " if md else "\n  ").join(meta))
        L.append("")
        if runrec and runrec.get("refused"):
            L.append("Not measured (prerequisite missing):" if not md else "Arms not measured in this run:")
            L.append("")
            for x in runrec["refused"]:
                L.append(f"- `{x['arm']}` on {x['build']}: {x['reason']}")
            L.append("")
        for (build, wl), cs in sorted(_comparisons(rs).items()):
            c0 = cs[0]
            L.append(("### " if md else "-- ") + f"{wl} on PostgreSQL {c0['pg_version'].split()[0]} "
                     f"({build}{', patched' if c0.get('build_patched') else ''}), run {run_id}")
            L.append("")
            L.append(f"Workload: {c0['workload_params']}. Settings hash {c0['settings_hash']}: "
                     f"{c0['settings']}.")
            L.append("")
            rows = comparison_rows(cs)
            hdr = ["arm", "n", "TPS (median)", "TPS vs none", "server us/tx", "us/tx vs none",
                   "p99 ms", "collector CPU s", "waits/s", "dropped", "noisy"]
            data = [[r["arm"], str(r["n"]), fmt(r["tps"], 0), fmt_interval(r["tps_diff"]),
                     fmt(r["cpu_us_tx"], 1), fmt_interval(r["cpu_diff"]), fmt(r["p99"], 2),
                     fmt(r["tracer_cpu"], 2), fmt(r["waits_s"], 0),
                     "-" if r["dropped"] is None else str(r["dropped"]),
                     (f"yes ({r['noisy_n']}/{r['n']} cells, CV {100 * (r['tps_cv'] or 0):.0f}%)"
                      if r["noisy"] else "no")] for r in rows]
            L += _table(hdr, data, md)
            L.append("")
            # Pressure gap between arms: measured under different loads.
            press = {r["arm"]: stats.median([max(x.get("psi_cpu_start") or 0, x.get("psi_cpu_end") or 0)
                                             for x in cs if x["arm"] == r["arm"]]) for r in rows}
            if press and max(press.values()) - min(press.values()) > 10:
                L.append(f"Warning: host CPU pressure differed by more than 10 points between "
                         f"arms ({', '.join(f'{a} {p:.0f}%' for a, p in press.items())}).")
                L.append("")
        for (prog, bench), ms in sorted(_micro(rs).items()):
            L.append(("### " if md else "-- ") + f"{bench} ({prog}), run {run_id}")
            L.append("")
            # Metrics with a unit; bare counts (iterations, order) are parameters.
            names = sorted({k for m in ms for k in (m.get("metrics") or {})
                            if check.metric_has_unit(k) and k not in ("events", "hits")})
            arms = sorted({m["arm"] for m in ms}, key=lambda a: (a not in BASELINES, a))
            base = next((a for a in arms if a in BASELINES), None)
            hdr = ["arm", "n"] + [f"{k} (median)" + (f", vs {base}" if base else "") for k in names] + ["noisy"]
            data = []
            for a in arms:
                am = [m for m in ms if m["arm"] == a]
                vals = []
                for k in names:
                    v = fmt(metric_value(ms, a, k), 2)
                    if base and a != base:
                        iv = paired_abs_micro(am, [m for m in ms if m["arm"] == base], k)
                        if iv:
                            v += f" ({iv[0]:+.{_nd(iv[0])}f} [{iv[1]:+.{_nd(iv[0])}f}, {iv[2]:+.{_nd(iv[0])}f}])"
                    vals.append(v)
                data.append([a, str(len(am))] + vals + ["yes" if any(m.get("noisy") for m in am) else "no"])
            L += _table(hdr, data, md)
            L.append("")
    if notes:
        L.append("Left out:" if not md else "## Runs left out")
        L.append("")
        L += [f"- {n}" for n in notes]
        L.append("")
    return "\n".join(L).rstrip() + "\n"


def _nd(x):
    return 0 if abs(x) >= 100 else 2


def _table(hdr, rows, md):
    if md:
        out = ["| " + " | ".join(hdr) + " |", "|" + "|".join("---" for _ in hdr) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        return out
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(hdr)]
    out = ["  ".join(h.ljust(w) for h, w in zip(hdr, widths))]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return out


# ---- the headline: what each tier costs, against its goal -----------------
#
# One row a figure: (tier, what, source, goal). A source names a cell
# comparison ("cell", build, workload, arm, column) whose paired difference
# against `none` is the figure, or a micro-benchmark ("micro", bench, arm,
# metric, diff) whose median, or with diff its paired difference against the
# program's baseline arm, is the figure, or ("pair", bench, arm, metric): a
# micro paired difference against the bench's baseline arm shown, and held
# to its goal, with its 95% interval (a metric ending in _pct is already a
# per-pair percent difference, 0 on the baseline). Each row comes from the newest
# passing run that has it, and names that run. A goal is (comparison, value,
# unit, why): the figure meets it or not; a goal of another arm's figure
# (e.g. pg_wait_sampling's) is ("<", ("micro", ...), ...), and a share of
# another arm's figure ("<=", ("share", 0.02, ("micro", ...), "label"), ...):
# 2% of it, measured in the same run. The goals are the
# project's own, stated here once: the README and docs/PERFORMANCE.md print
# them from this table.

HEADLINE = [
    ("extension, exact (hooks)", "CPU added per wait, stats capture",
     ("micro", "waitpair", "ext-stats", "ns_per_wait", True), ("<=", 30, "ns",
      "a wait that sleeps costs microseconds: 30 ns keeps the hooks near 1% of the cheapest")),
    ("extension, exact (hooks)", "server CPU per connection, stats vs capture off "
     "(connections interleaved across side-by-side servers)",
     ("pair", "conn_cost_coop_stats_vs_coop_off", "coop_stats", "server_cpu_vs_pair_pct"),
     ("<=", 2, "%", "no pooler in front: a tool left on may not tax each connection")),
    ("extension, exact (hooks)", "the same in microseconds",
     ("pair", "conn_cost_coop_stats_vs_coop_off", "coop_stats", "server_cpu_us_per_conn"),
     ("<=", 400, "us", "the bound issue #23 sets for 2% of a connection")),
    ("extension, exact (hooks)", "connections/s, stats vs capture off (one client, connect, "
     "one select, close)",
     ("pair", "conn_cost_coop_stats_vs_coop_off", "coop_stats", "conns_per_s_vs_pair_pct"),
     (">=", -2, "%", "the same, as the application sees it")),
    ("extension, exact (hooks)", "server CPU per connection, trace vs capture off",
     ("pair", "conn_cost_coop_trace_vs_coop_off", "coop_trace", "server_cpu_vs_pair_pct"),
     ("<=", 5, "%", "the same, for a window's price")),
    ("extension, exact (hooks)", "connections/s, trace vs capture off",
     ("pair", "conn_cost_coop_trace_vs_coop_off", "coop_trace", "conns_per_s_vs_pair_pct"),
     (">=", -5, "%", "the same, for a window's price")),
    ("extension, exact (hooks)", "server CPU per connection, library preloaded with capture off vs none",
     ("pair", "conn_cost_coop_off_vs_none", "coop_off", "server_cpu_vs_pair_pct"), None),
    ("extension, exact (hooks)", "server CPU per connection, stats vs no library (what a user "
     "who adds the extension sees)",
     ("pair", "conn_cost_coop_stats_vs_none", "coop_stats", "server_cpu_vs_pair_pct"), None),
    ("extension, exact (hooks)", "server CPU per connection, A/A control: two capture-off servers",
     ("pair", "conn_cost_coop_off_aa_vs_coop_off", "coop_off_aa", "server_cpu_vs_pair_pct"), None),
    ("extension, exact (hooks)", "instructions added per connection, stats capture (a backend's whole life)",
     ("micro", "coop_instr_connect", "coop_stats", "instr_per_conn", True),
     ("<=", ("share", 0.02, ("micro", "coop_instr_connect", "none", "instr_per_conn", False),
             "2% of a connection without the extension"), "instr",
      "no pooler in front: a tool left on may not tax each connection")),
    ("extension, exact (hooks)", "instructions added per connection, trace capture",
     ("micro", "coop_instr_connect", "coop_trace", "instr_per_conn", True),
     ("<=", ("share", 0.05, ("micro", "coop_instr_connect", "none", "instr_per_conn", False),
             "5% of a connection without the extension"), "instr", "the same, for a window's price")),
    ("extension, exact (hooks)", "minor page faults added per connection, stats capture (native)",
     ("micro", "coop_native_connect", "coop_stats", "minflt_per_conn", True), None),
    ("extension, exact (hooks)", "server CPU per transaction, select-only",
     ("cell", "18-hooks", "select_only", "coop_stats", "cpu_diff"), ("<=", 2, "%",
      "within the run-to-run noise of a 2-core VM: a tool to leave on")),
    ("extension, exact (hooks)", "TPS, select-only",
     ("cell", "18-hooks", "select_only", "coop_stats", "tps_diff"), (">=", -2, "%", "the same")),
    ("extension, exact trace", "bytes written per traced wait",
     ("micro", "trace_overhead", "trace", "bytes_per_wait", False), ("<=", 5, "B",
      "the trace format holds recorded exact traces in less (tracefmt_recode, v7)")),
    ("extension, shared memory", "at max_connections=100, default settings",
     ("micro", "shmem", "coop_100", "bytes_extension", False), ("<=", 8 * 1024 * 1024, "B",
      "a tool left on takes a few MB, as pg_stat_statements does; trace rings are a pool of 8")),
    ("extension, shared memory", "added per extra connection",
     ("micro", "shmem", "per_connection", "bytes_per_connection", False), ("<=", 65536, "B",
      "a thousand connections cost tens of MB at most")),
    ("extension, sampler (stock server)", "instructions per tick per 100 backends",
     ("micro", "sampler_vs_pgws_instr", "pgwt_sampler", "instr_per_tick_per_100_backends", False),
     ("<", ("micro", "sampler_vs_pgws_instr", "pg_wait_sampling", "instr_per_tick_per_100_backends", False),
      "instr", "below pg_wait_sampling's collector, measured in the same run")),
    ("extension, sampler (hooked server, sampler on)", "sampled DB time against the exact tier's, same run (pgbench TPC-B, 8 clients on 2 cores)",
     ("micro", "sampler_vs_pgws", "sampled_vs_exact", "db_time_sampled_vs_exact_pct", False), (">=", -5, "%",
      "a sampler at normal priority wakes when a CPU frees up, most often as a backend goes idle")),
    ("external tracer, sampled 10 Hz", "server CPU per transaction, select-only on 15",
     ("cell", "15", "select_only", "sampled_10hz", "cpu_diff"), ("<=", 1, "%",
      "reads from outside the server: nothing should show")),
    ("external tracer, sampled 100 Hz", "daemon CPU, % of one core",
     ("micro", "tracer_cpu", "100hz_daemon", "steady_cpu_pct_one_core", False), ("<=", 1, "% core",
      "always on beside a production server")),
    ("external tracer, exact (scheduler)", "TPS, select-only on 15",
     ("cell", "15", "select_only", "sched", "tps_diff"), None),
    ("external tracer, exact (scheduler)", "server CPU per transaction, select-only on 15",
     ("cell", "15", "select_only", "sched", "cpu_diff"), None),
    ("external tracer, exact (scheduler)", "run-queue share against /proc/PID/schedstat, all 8 backends "
     "(absolute difference; pgbench TPC-B, 8 clients on 2 cores)",
     ("micro", "sched_runq_share", "tpcb", "runq_share_total_abs_pct_points", False), ("<=", 2, "points",
      "CPU* split as the kernel itself counts it")),
    ("external tracer, exact (scheduler)", "the same, worst single backend, TPC-B",
     ("micro", "sched_runq_share", "tpcb", "runq_share_backend_worst_abs_pct_points", False),
     ("<=", 2, "points", "the same, per backend")),
    ("external tracer, exact (scheduler)", "the same, worst single backend, select-only",
     ("micro", "sched_runq_share", "select_only", "runq_share_backend_worst_abs_pct_points", False),
     ("<=", 2, "points", "the same, per backend")),
    ("external tracer, exact (scheduler)", "records per second, select-only, 8 clients",
     ("micro", "sched_events", "select_only", "events_per_s", False), None),
    ("external tracer, exact (scheduler)", "records per second, TPC-B, 8 clients",
     ("micro", "sched_events", "tpcb", "events_per_s", False), None),
    ("external tracer, exact (scheduler)", "ring-buffer drops, select-only, 8 clients",
     ("micro", "sched_events", "select_only", "ringbuf_drops", False), ("<=", 0, "events",
      "exact means every boundary: the consumer keeps up")),
    ("external tracer, exact (scheduler)", "ring-buffer drops, TPC-B, 8 clients",
     ("micro", "sched_events", "tpcb", "ringbuf_drops", False), ("<=", 0, "events", "the same")),
    ("external tracer, exact (watchpoints)", "server CPU per transaction, pgbench select-only",
     ("micro", "tracer_full_tps", "full", "server_cpu_us_per_xact", True), None),
    ("external tracer, exact (watchpoints)", "one watchpoint hit with the BPF program",
     ("micro", "watchpoint_cost", "bpf", "ns_per_write", True), None),
    ("trace files", "bytes per event, the daemon's default trace",
     ("micro", "tracefmt_size", "realistic", "bytes_per_event", False), ("<=", 1, "B",
      "an hour of a busy server in a few MB")),
    ("analysis", "records decoded per second, one core",
     ("micro", "tracefmt_decode", "batch", "events_per_s", False), (">=", 30e6, "/s",
      "a day of traces read in seconds")),
    ("analysis", "records analysed per second, exact, 65,536 keys in random order (no key repeats within the key cache), one core",
     ("micro", "analysis_engine", "exact", "events_per_s", False), (">=", 30e6, "/s",
      "the engine alone at its worst: every record a new key (a trace of many sessions "
      "and queries); memory-bound, so the host's memory speed moves it (the rows below "
      "are the end-to-end measure)")),
    ("analysis", "pgwt-dump end to end, 10M records of 8 backends, per CPU second",
     ("micro", "dump_throughput", "summary", "cpu_records_per_s", False), (">=", 30e6, "/s",
      "a day of traces summarised in seconds")),
    ("analysis", "pgwt_history_time_model in SQL, the same 10M records, per CPU second of the backend",
     ("micro", "history_throughput", "time_model", "sched_records_per_s", False), (">=", 30e6, "/s",
      "the history functions as fast as pgwt-dump (the backend's on-CPU time from "
      "/proc/self/schedstat, in ns: its 10 ms ticks moved a 0.3 s call's rate by 3%)")),
    ("analysis", "pgwt_history_system_event in SQL, the same, per CPU second of the backend",
     ("micro", "history_throughput", "system_event", "sched_records_per_s", False), (">=", 30e6, "/s",
      "the same")),
    ("analysis", "pgwt_history_histogram in SQL (IO:DataFileRead), the same, per CPU second",
     ("micro", "history_throughput", "histogram", "sched_records_per_s", False), (">=", 30e6, "/s",
      "the same")),
    ("analysis", "pgwt_history_time_model, instructions per record (callgrind, 1M records)",
     ("micro", "history_callgrind", "time_model", "instr_per_record", False),
     ("<=", ("share", 1.01, ("micro", "history_callgrind", "dump", "instr_per_record", False),
             "pgwt-dump's count + 1%"), "instr",
      "SQL adds nothing per record to the shared loader and engine (the 1% is the "
      "call's fixed cost, planning and the result, spread over 1M records)")),
    ("analysis", "pgwt_history_time_model's peak RSS over a fresh backend's (VmHWM)",
     ("micro", "history_throughput", "time_model", "read_rss_kb", False), None),
    ("web client", "/api/aas at 300 points, instructions of the handler (20 s trace)",
     ("micro", "web_api_callgrind", "aas_300", "instr_per_request", False),
     ("<=", ("share", 2.0, ("micro", "web_api_callgrind", "aas_8", "instr_per_request", False),
             "twice 8 points' count"), "instr",
      "the chart's resolution must not multiply the reading of the range")),
    ("web client", "server CPU ms, time model of 1 h of exact records (7.5M; the page's chart filled in the same read)",
     ("micro", "web_api_cpu", "time_model_1h", "cpu_ms", False), None),
    ("web client", "page interactive in headless Chromium, 1 h of exact records",
     ("micro", "web_page", "hour_1h", "interactive_ms", False), ("<=", 1500, "ms",
      "a DBA opening the page during an incident; the goal of issue #18 is for 24 h")),
    ("web client", "server CPU ms, time model of 24 h (7.3M records, sampled 10 Hz) from summaries",
     ("micro", "web_api_cpu", "time_model_24h", "cpu_ms", False), ("<=", 100, "ms",
      "a day's answer at once: minute rollups, records only at the edges")),
    ("web client", "server CPU ms, AAS at 300 points of the same 24 h from summaries",
     ("micro", "web_api_cpu", "aas_300_24h", "cpu_ms", False), ("<=", 100, "ms",
      "the chart of a day at the summaries' grain")),
    ("web client", "page interactive in headless Chromium, the same 24 h",
     ("micro", "web_page", "day_24h", "interactive_ms", False), ("<=", 1500, "ms",
      "a DBA opening a day's link during an incident")),
]


def _newest_first(runs):
    return list(reversed(list(runs.items())))


def _micro_figure(runs, src):
    """(value, run_id) of a ("micro", bench, arm, metric, diff) source, newest run first."""
    _, bench, arm, metric, diff = src
    for run_id, rs in _newest_first(runs):
        ms = [r for r in rs if r["kind"] == "micro" and r["bench"] == bench]
        if not any(m["arm"] == arm for m in ms):
            continue
        v = metric_value(ms, arm, metric + ("_diff" if diff else ""))
        if v is not None:
            return v, run_id
    return None, None


def _pair_figure(runs, src):
    """((mean, lo, hi), run_id) of a ("pair", bench, arm, metric) source."""
    _, bench, arm, metric = src
    for run_id, rs in _newest_first(runs):
        ms = [r for r in rs if r["kind"] == "micro" and r["bench"] == bench]
        iv = paired_abs_micro([m for m in ms if m["arm"] == arm],
                              [m for m in ms if m["arm"] in BASELINES], metric)
        if iv is not None:
            return iv, run_id
    return None, None


def _fmt_pair(iv, unit):
    if unit == "%":
        return fmt_interval(iv)
    nd = _nd(iv[0])
    return f"{iv[0]:+.{nd}f} {unit} [{iv[1]:+.{nd}f}, {iv[2]:+.{nd}f}]"


def _cell_figure(runs, src):
    """((mean, lo, hi), run_id) of a ("cell", build, workload, arm, column) source."""
    _, build, wl, arm, col = src
    for run_id, rs in _newest_first(runs):
        cs = _comparisons(rs).get((build, wl))
        if not cs:
            continue
        row = next((r for r in comparison_rows(cs) if r["arm"] == arm), None)
        if row and row.get(col) is not None:
            return row[col], run_id
    return None, None


def _fmt_unit(v, unit, signed=False):
    if unit == "%":
        return f"{v:+.1f}%" if signed else f"{v:g}%"
    if unit == "% core":
        return f"{v:.2f}% of a core" if signed else f"{v:g}% of a core"
    if unit == "/s":
        if abs(v) < 1e6:
            return f"{v:,.0f}/s"
        return f"{v / 1e6:.1f} M/s" if signed else f"{v / 1e6:g} M/s"
    if unit == "events":     # a count: never a fraction of one
        return f"{v:,.0f} events"
    txt = fmt(v, 2) if signed or v != int(v) else f"{int(v):,}"
    return f"{txt} {unit}".strip()


def _status(op, value, target, iv):
    """met / not yet / not measured; a paired difference whose mean meets the
    goal but whose interval reaches past it is not resolved by the run."""
    if value is None or target is None:
        return "not measured"
    ok = {"<=": lambda x: x <= target, "<": lambda x: x < target, ">=": lambda x: x >= target}[op]
    if not ok(value):
        return "not yet"
    if iv is not None and not ok(iv[2] if op in ("<=", "<") else iv[1]):
        return "mean met, interval wider"
    return "met"


def headline_rows(runs):
    """[tier, what, figure, goal, status, run] rows of HEADLINE."""
    out = []
    for tier, what, src, goal in HEADLINE:
        unit = goal[2] if goal else ("%" if src[3].endswith("_pct") else
                                     "/s" if src[3].endswith("_per_s") else
                                     "kB" if src[3].endswith("_kb") else
                                     "us" if "us" in src[3] else "ns" if "ns" in src[3] else "")
        iv = None
        if src[0] == "cell":
            iv, run_id = _cell_figure(runs, src)
            value = None if iv is None else iv[0]
            text = "-" if iv is None else fmt_interval(iv)
        elif src[0] == "pair":
            iv, run_id = _pair_figure(runs, src)
            value = None if iv is None else iv[0]
            text = "-" if iv is None else _fmt_pair(iv, unit)
        else:
            value, run_id = _micro_figure(runs, src)
            text = "-" if value is None else (("+" if src[4] and value >= 0 else "") +
                                               _fmt_unit(value, unit, signed=True))
        if goal is None:
            gtext, status = "none set", "-"
        else:
            op, target, _, _why = goal
            sym = {"<=": "≤", "<": "<", ">=": "≥"}[op]
            if isinstance(target, tuple) and target[0] == "share":
                _, share, tsrc, label = target
                target, _ = _micro_figure(runs, tsrc)
                target = None if target is None else target * share
                gtext = f"{sym} {_fmt_unit(round(target), unit)} ({label})" if target is not None else "-"
            elif isinstance(target, tuple):
                target, _ = _micro_figure(runs, target)
                gtext = f"{sym} {_fmt_unit(target, unit)} (pg_wait_sampling)" if target is not None else "-"
            else:
                gtext = f"{sym} {_fmt_unit(target, unit)}"
            status = _status(op, value, target, iv)
        out.append([tier, what, text, gtext, status, f"`{run_id[:12]}`" if run_id else "-"])
    return out


def headline_table(runs):
    return _table(["tier", "figure", "measured", "goal", "status", "run"], headline_rows(runs), True)


README_BEGIN = "<!-- perf:begin (generated by bench/report --readme; do not edit) -->"
README_END = "<!-- perf:end -->"


def readme_block(runs):
    """The README's performance section: the headline table (what each tier
    costs against its goal, each figure from the newest passing run that has
    it). Every other figure is in docs/PERFORMANCE.md."""
    L = [README_BEGIN, "",
         "Each figure is from the newest benchmark run that measured it (the run "
         "column; records under `bench/records/`). Differences are paired against "
         "a run without tracing in the same run, with 95% intervals in brackets. "
         "Method, settings, every other figure and why each goal: "
         "[docs/PERFORMANCE.md](docs/PERFORMANCE.md).", ""]
    L += headline_table(runs)
    L += ["", README_END]
    return "\n".join(L)


def replace_readme_block(text, block):
    """README text with its generated block replaced; ValueError without markers."""
    b = text.find(README_BEGIN)
    e = text.find(README_END)
    if b < 0 or e < b:
        raise ValueError("README.md has no perf:begin/perf:end markers")
    return text[:b] + block + text[e + len(README_END):]
