"""bench/claims-check: figures stated in the docs, held to the records.

bench/claims.tsv, one row a figure (tab separated, '#' lines are comments):

  doc  phrase  run_id  build  workload  arm  metric  value  tolerance  note

doc is a path from the top of the tree (README.md, docs/X.md); phrase is a
fragment of that doc which states the figure, value the figure as the
phrase states it (typed once, there and here), run_id the run the figure
comes from. For cell records build/workload name the comparison; for a
micro-benchmark build is 'micro' and workload is 'PROGRAM/BENCH'. metric is
a column (tps, server_cpu_us_per_tx, lat_p99_ms, ...: the median of the
arm) or COLUMN_diff_pct (the mean paired difference against 'none', in
percent), or a micro metric name (its median) or METRIC_diff (the mean
paired difference against the program's baseline arm, in its unit). tolerance is '5%' (relative to value) or
a number in the metric's unit (absolute: right for differences near zero).

A row fails when its phrase is no longer in its doc (stale), when the
value is not written in the phrase, when the cited run is absent or does
not pass bench/check, or when the records miss the value by more than the
tolerance. Whitespace in phrases and docs is compared collapsed.
"""

import os
import re

import check
import report

COLUMNS = ["doc", "phrase", "run_id", "build", "workload", "arm", "metric",
           "value", "tolerance", "note"]


class ClaimsError(Exception):
    pass


def parse(text, path="claims.tsv"):
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split("\t")
        if f == COLUMNS:
            continue
        if len(f) != len(COLUMNS):
            raise ClaimsError(f"{path}:{n}: {len(f)} fields, expected {len(COLUMNS)}")
        row = dict(zip(COLUMNS, f))
        try:
            row["value_num"] = float(row["value"].replace(",", "").lstrip("+"))
        except ValueError:
            raise ClaimsError(f"{path}:{n}: value '{row['value']}' is not a number")
        tol = row["tolerance"].strip()
        try:
            row["tol_rel"] = tol.endswith("%")
            row["tol_num"] = float(tol.rstrip("%"))
        except ValueError:
            raise ClaimsError(f"{path}:{n}: tolerance '{tol}' is neither N% nor a number")
        row["line"] = n
        rows.append(row)
    return rows


def _collapse(s):
    return re.sub(r"\s+", " ", s).strip()


def check_claims(rows, recs, top):
    """Lines of failures; [] when every claim holds."""
    out = []
    runs = report.split_runs(recs)
    run_ok = {}
    docs = {}
    for row in rows:
        where = f"claims.tsv:{row['line']}"
        doc = row["doc"]
        if doc not in docs:
            p = os.path.join(top, doc)
            docs[doc] = None
            if os.path.exists(p):
                with open(p, encoding="utf-8") as f:
                    docs[doc] = _collapse(f.read())
        if docs[doc] is None:
            out.append(f"CLAIM STALE: {where}: {doc} does not exist")
            continue
        phrase = _collapse(row["phrase"])
        if phrase not in docs[doc]:
            out.append(f"CLAIM STALE: {where}: '{phrase}' no longer appears in {doc}")
            continue
        if row["value"] not in phrase:
            out.append(f"CLAIM VALUE NOT IN PHRASE: {where}: '{row['value']}' is not written in '{phrase}'")
            continue
        rid = row["run_id"]
        if rid not in runs:
            out.append(f"CLAIM WITHOUT RECORDS: {where}: no records of run {rid}")
            continue
        if rid not in run_ok:
            run_ok[rid] = check.check(runs[rid])
        if run_ok[rid]:
            out.append(f"CLAIM ON REFUSED RECORDS: {where}: run {rid} fails bench/check: {run_ok[rid][0]}")
            continue
        if row["build"] == "micro":
            prog, _, bench = row["workload"].rpartition("/")
            recs_c = [r for r in runs[rid] if r["kind"] == "micro"
                      and r["program"] == prog and r["bench"] == bench]
        else:
            recs_c = [r for r in runs[rid] if r["kind"] == "cell"
                      and r["build"] == row["build"] and r["workload"] == row["workload"]]
        got = report.metric_value(recs_c, row["arm"], row["metric"]) if recs_c else None
        if got is None:
            out.append(f"CLAIM WITHOUT RECORDS: {where}: run {rid} has no {row['metric']} of "
                       f"{row['arm']} in {row['build']}/{row['workload']}")
            continue
        want = row["value_num"]
        allowed = abs(want) * row["tol_num"] / 100.0 if row["tol_rel"] else row["tol_num"]
        if abs(got - want) > allowed:
            out.append(f"CLAIM MISSED: {where}: {doc} says '{phrase}' ({want:g}); "
                       f"run {rid} gives {got:.4g} (tolerance {row['tolerance']})")
    return out
