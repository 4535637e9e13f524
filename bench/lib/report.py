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
              "Every figure below comes from the records of the run named above its "
              "table (`run_id`: commit, UTC time, random suffix). Differences are "
              "paired by repetition block against the `none` arm (no tracing) of the "
              "same run: mean of the per-block percent differences and its 95% "
              "interval (paired Student t). Micro-benchmark differences are paired "
              "by repetition against the program's baseline arm (`none` or `stock`), "
              "in the metric's own unit. `server us/tx` is the CPU time of the "
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


README_BEGIN = "<!-- perf:begin (generated by bench/report --readme; do not edit) -->"
README_END = "<!-- perf:end -->"


def readme_block(runs):
    """The README's performance section: the newest passing run's overheads
    against `none` and its micro-benchmark medians, each citing the run.
    The newest run with pgbench cells is the headline (a run of a few
    programs alone, e.g. the `format` set, does not replace it)."""
    items = list(runs.items())
    with_cells = [it for it in items if any(r["kind"] == "cell" for r in it[1])]
    run_id, rs = (with_cells or items)[-1]
    L = [README_BEGIN, "",
         f"From run `{run_id}` (records under `bench/records/`; method, settings "
         "and every other figure in [docs/PERFORMANCE.md](docs/PERFORMANCE.md)). "
         "Overheads are paired differences against the `none` arm of the same run "
         "with their 95% intervals; a noisy cell ran while other work loaded the "
         "host, and its interval says how little it resolves.", ""]
    rows = []
    for (build, wl), cs in sorted(_comparisons(rs).items()):
        for r in comparison_rows(cs):
            if r["arm"] == "none":
                continue
            rows.append([f"{wl} on {build}", r["arm"], fmt_interval(r["cpu_diff"]),
                         fmt_interval(r["tps_diff"]), "yes" if r["noisy"] else "no"])
    if rows:
        L += _table(["workload", "arm", "server CPU per transaction vs none",
                     "TPS vs none", "noisy"], rows, True)
        L.append("")
    mrows = []
    for (prog, bench), ms in sorted(_micro(rs).items()):
        # Headline figures only (rates, costs, shares, memory); the
        # parameters of a run (its duration, its own counts) stay in
        # docs/PERFORMANCE.md.
        names = sorted({k for m in ms for k in (m.get("metrics") or {})
                        if check.metric_has_unit(k) and k not in ("events", "hits")
                        and ("_per_" in k or k.endswith("_pct") or "_pct_" in k or "rss" in k)})
        arms = sorted({m["arm"] for m in ms}, key=lambda a: (a not in BASELINES, a))
        base = next((a for a in arms if a in BASELINES), None)
        for a in arms:
            for k in names:
                v = metric_value(ms, a, k)
                if v is None:
                    continue
                txt = fmt(v, 2)
                if base and a != base:
                    iv = paired_abs_micro([m for m in ms if m["arm"] == a],
                                          [m for m in ms if m["arm"] == base], k)
                    if iv:
                        txt += f" ({iv[0]:+.{_nd(iv[0])}f} vs {base})"
                mrows.append([bench, a, k, txt])
    if mrows:
        L += _table(["benchmark", "arm", "metric", "median"], mrows, True)
        L.append("")
    L.append(README_END)
    return "\n".join(L)


def replace_readme_block(text, block):
    """README text with its generated block replaced; ValueError without markers."""
    b = text.find(README_BEGIN)
    e = text.find(README_END)
    if b < 0 or e < b:
        raise ValueError("README.md has no perf:begin/perf:end markers")
    return text[:b] + block + text[e + len(README_END):]
