"""Unit tests of the bench library: no server, no root.

  python3 -B -m unittest discover -s bench/test -p 'test_*.py'
"""
import hashlib
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

import check  # noqa: E402
import claims  # noqa: E402
import harness  # noqa: E402
import history  # noqa: E402
import pgbench  # noqa: E402
import procstat  # noqa: E402
import report  # noqa: E402
import schema  # noqa: E402
import stats  # noqa: E402

SAMPLES = os.path.join(HERE, "samples")
# Frozen samples of old schemas: a sample is never edited (its hash here).
FROZEN = {
    1: ("schema1-smoke.jsonl", "1512d11f20da77c8c377d808e866d437e5411ffbf725253654ac3bee944adf74"),
}


class Stats(unittest.TestCase):
    def test_t_table(self):
        self.assertEqual(stats.t975(1), 12.706)
        self.assertEqual(stats.t975(9), 2.262)
        self.assertEqual(stats.t975(35), 2.042)    # next smaller listed df (30)
        self.assertEqual(stats.t975(1000), 1.960)
        with self.assertRaises(ValueError):
            stats.t975(0)

    def test_paired_interval(self):
        # diffs 1..5: mean 3, sd sqrt(2.5), t(4)=2.776, half = 2.776*1.5811/2.2361
        m, lo, hi = stats.paired_interval([1, 2, 3, 4, 5])
        self.assertAlmostEqual(m, 3.0)
        self.assertAlmostEqual(hi - m, 2.776 * (2.5 ** 0.5) / (5 ** 0.5), places=9)
        self.assertAlmostEqual(m - lo, hi - m, places=9)
        with self.assertRaises(ValueError):
            stats.paired_interval([1.0])

    def test_median_percentile(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)
        self.assertEqual(stats.median([4, 1, 2, 3]), 2.5)
        s = list(range(1, 101))
        self.assertEqual(stats.percentile(s, 99), 99)
        self.assertEqual(stats.percentile(s, 50), 50)
        self.assertEqual(stats.percentile([7], 99), 7)
        self.assertIsNone(stats.cv([5]))


class Schema(unittest.TestCase):
    def test_versions_only_add_columns(self):
        self.assertEqual(schema.VERSION, max(history.COLUMNS))
        for v in range(2, schema.VERSION + 1):
            for kind in schema.KINDS:
                old, new = history.COLUMNS[v - 1][kind], history.COLUMNS[v][kind]
                self.assertEqual(new[:len(old)], old, f"schema {v} {kind} dropped or moved a column")
            self.assertIn(v - 1, schema.MIGRATIONS, f"no migration step {v - 1} -> {v}")

    def test_frozen_samples(self):
        for v in range(1, schema.VERSION):
            self.assertIn(v, FROZEN, f"no frozen sample of schema {v}")
            name, sha = FROZEN[v]
            with open(os.path.join(SAMPLES, name), "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), sha, f"{name} was edited")

    def test_old_file_upgraded_on_read(self):
        notes = []
        recs = schema.read_file(os.path.join(SAMPLES, FROZEN[1][0]), notes)
        self.assertTrue(notes and "is schema 1, read as schema" in notes[0])
        cells = [r for r in recs if r["kind"] == "cell"]
        self.assertTrue(cells)
        for r in cells:
            self.assertEqual(r["schema"], schema.VERSION)
            self.assertIn("tracer_rss_kb", r)
            self.assertIsNone(r["tracer_rss_kb"])
        self.assertEqual(check.check(recs), [])

    def test_round_trip_keeps_unknown_columns(self):
        rec = {"schema": schema.VERSION, "kind": "micro", "extra_thing": 5}
        back = json.loads(schema.dumps(rec))
        self.assertEqual(back["extra_thing"], 5)
        self.assertIn("metrics", back)

    def test_bad_kind(self):
        with self.assertRaises(schema.RecordsError):
            schema.normalise({"schema": 1, "kind": "weird"})


class Pgbench(unittest.TestCase):
    SUMMARY = """pgbench (15.20 (Debian 15.20-0+deb12u1))
transaction type: <builtin: select only>
scaling factor: 2
number of clients: 4
number of transactions actually processed: 68809
number of failed transactions: 0 (0.000%)
latency average = 0.173 ms
initial connection time = 5.210 ms
tps = 23069.018639 (without initial connection time)
"""

    def test_summary(self):
        s = pgbench.parse_summary(self.SUMMARY)
        self.assertEqual(s, {"tx": 68809, "failed_tx": 0, "tps": 23069.018639, "lat_avg_ms": 0.173})
        with self.assertRaises(ValueError):
            pgbench.parse_summary("connection to server failed")

    def test_latency_log(self):
        lines = ["0 1 120 0 1700000000 1", "0 2 failed 0 1700000000 2", "1 1 2500 0 1700000000 3"]
        lat = pgbench.latencies_us(lines)
        self.assertEqual(lat, [120, 2500])
        s = pgbench.latency_summary(lat)
        self.assertEqual(s["lat_max_ms"], 2.5)
        self.assertEqual(s["lat_p50_ms"], 0.12)


class Procstat(unittest.TestCase):
    def test_parse_stat_odd_name(self):
        text = "1234 (postgres: a) b) S 99 1234 1234 0 -1 4194560 1 0 0 0 50 7 3 2 20 0 1 0"
        self.assertEqual(procstat.parse_stat(text), (99, 50, 7, 3, 2))

    def test_parse_pressure(self):
        text = "some avg10=1.39 avg60=2.85 avg300=1.86 total=10653513\nfull avg10=0.00 total=0\n"
        self.assertEqual(procstat.parse_pressure(text), 10653513)
        with self.assertRaises(ValueError):
            procstat.parse_pressure("nothing")

    def test_own_tree_cpu(self):
        self.assertGreaterEqual(procstat.tree_cpu_s(os.getpid()), 0.0)

    def test_cpu_group_refuses_missing_hierarchy(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(OSError):
                procstat.CpuGroup("x", root=d)

    def test_cpu_group_reads_ns_and_adopts(self):
        # a stand-in hierarchy (plain files): the group's counter is in ns,
        # and adopting a tree writes each of its pids to cgroup.procs
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "cpuacct.usage"), "w") as f:
                f.write("0\n")
            g = procstat.CpuGroup("x", root=d)
            self.assertTrue(os.path.isdir(g.path))
            with open(os.path.join(g.path, "cpuacct.usage"), "w") as f:
                f.write("2500000000\n")
            self.assertEqual(g.usage_s(), 2.5)
            g.adopt(os.getpid())
            with open(os.path.join(g.path, "cgroup.procs")) as f:
                self.assertIn(str(os.getpid()), f.read().split())
            g.remove()      # a plain directory keeps its files: no error raised


class Harness(unittest.TestCase):
    def test_block_order_is_latin(self):
        arms = ["a", "b", "c"]
        seen = {a: set() for a in arms}
        for block in range(3):
            for pos, a in enumerate(harness.block_order(arms, block)):
                seen[a].add(pos)
        self.assertTrue(all(s == {0, 1, 2} for s in seen.values()))

    def test_wrap_micro_line(self):
        meta = {"schema": schema.VERSION, "run_id": "r", "commit": "c", "harness": "h", "set": "s"}
        rec = harness.wrap_micro_line(meta, "bench/programs/x",
                                      '{"bench": "waitpair", "arm": "null", "rep": 2, "ns_per_wait": 11.4}')
        self.assertEqual((rec["bench"], rec["arm"], rec["rep"]), ("waitpair", "null", 2))
        self.assertEqual(rec["metrics"], {"ns_per_wait": 11.4})
        with self.assertRaises(ValueError):
            harness.wrap_micro_line(meta, "x", '{"bench": "w", "rep": 1}')

    def test_arm_prerequisites_refuse(self):
        import arms
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        pgc = os.path.join(d.name, "pg_config")
        with open(pgc, "w") as f:
            f.write(f"#!/bin/sh\necho {d.name}\n")
        os.chmod(pgc, 0o755)
        why = harness.arm_prerequisite(arms.BY_NAME["pg_wait_sampling"], "15", pgc)
        self.assertIn("pg_wait_sampling is not installed", why)
        why = harness.arm_prerequisite(arms.BY_NAME["coop_stats"], "15", pgc)
        self.assertIn("does not run on server build 15", why)
        open(os.path.join(d.name, "pg_wait_sampling.so"), "w").close()
        self.assertIsNone(harness.arm_prerequisite(arms.BY_NAME["pg_wait_sampling"], "15", pgc))
        self.assertIsNone(harness.arm_prerequisite(arms.BY_NAME["none"], "15", pgc))

    def test_side_status(self):
        out = ('{"view":"time_model","backends":7}\n'
               '{"type":"status","mode":"sampled","metrics":{"backends_seen_total":3,"ringbuf_drops":2}}\n'
               'pg_wait_tracer: stopping\n'
               '{"type":"status","mode":"sampled","metrics":{"backends_seen_total":7,"ringbuf_drops":5}}\n')
        m = harness.side_status(out)
        self.assertEqual(m["backends_seen_total"], 7)
        self.assertEqual(harness.side_drops(m), 5)
        self.assertEqual(harness.side_status("no json here"), {})
        self.assertIsNone(harness.side_drops({"backends_seen_total": 7}))

    def test_side_rate(self):
        # only the status lines inside [start, end): 1000 events in 2 s
        before = '{"type":"status","metrics":{"uptime_s":1.0,"events_total":5}}\n'
        inside = ('{"type":"status","metrics":{"uptime_s":2.0,"events_total":100}}\n'
                  'pg_wait_tracer: a log line\n'
                  '{"type":"status","metrics":{"uptime_s":3.0,"events_total":600}}\n'
                  '{"type":"status","metrics":{"uptime_s":4.0,"events_total":1100}}\n')
        after = '{"type":"status","metrics":{"uptime_s":9.0,"events_total":99999}}\n'
        text = before + inside + after
        self.assertEqual(harness.side_rate(text, len(before), len(before) + len(inside)), 500.0)
        self.assertIsNone(harness.side_rate(text, 0, len(before)))
        self.assertIsNone(harness.side_rate("no json", 0, 7))

    def test_units(self):
        for ok in ("ns_per_wait", "instr_per_wait", "events_per_s", "bytes_per_event", "peak_rss_kb"):
            self.assertTrue(check.metric_has_unit(ok), ok)
        self.assertFalse(check.metric_has_unit("speed"))


class ReportAndClaims(unittest.TestCase):
    def _tmpdir(self):
        t = tempfile.TemporaryDirectory()
        self.addCleanup(t.cleanup)
        return t.name

    def setUp(self):
        self.recs = schema.read_file(os.path.join(SAMPLES, "good.jsonl"))
        self.run_id = self.recs[0]["run_id"]

    def test_paired_difference_by_block(self):
        cells = [r for r in self.recs if r["kind"] == "cell"]
        base = {r["rep"]: r["tps"] for r in cells if r["arm"] == "none"}
        diffs = [100 * (r["tps"] - base[r["rep"]]) / base[r["rep"]]
                 for r in cells if r["arm"] == "pg_wait_sampling"]
        got = report.metric_value(cells, "pg_wait_sampling", "tps_diff_pct")
        self.assertAlmostEqual(got, sum(diffs) / len(diffs))

    def test_render_cites_run(self):
        runs, notes = report.passing_runs(self.recs)
        self.assertEqual(list(runs), [self.run_id])
        text = report.render(runs, notes, True, ["x"])
        self.assertIn(f"run {self.run_id}", text)
        self.assertIn("| pg_wait_sampling |", text)

    def test_headline_units(self):
        # rates under a million are written whole; counts never as fractions
        self.assertEqual(report._fmt_unit(52621.3, "/s", signed=True), "52,621/s")
        self.assertEqual(report._fmt_unit(37.5e6, "/s", signed=True), "37.5 M/s")
        self.assertEqual(report._fmt_unit(0, "events", signed=True), "0 events")
        self.assertEqual(report._fmt_unit(1.25, "points", signed=True), "1.25 points")

    def test_headline_micro_goal(self):
        # a sched_tier line held to its goal: 2.5 points misses "<= 2 points"
        base = {"kind": "micro", "bench": "sched_runq_share", "arm": "tpcb"}
        recs = [dict(base, rep=i, metrics={"runq_share_total_abs_pct_points": v,
                                           "runq_share_backend_worst_abs_pct_points": v})
                for i, v in enumerate((2.5, 2.4, 3.0))]
        rows = {r[1]: r for r in report.headline_rows({"r1-x": recs})}
        row = next(r for w, r in rows.items() if w.startswith("run-queue share"))
        self.assertEqual(row[2], "2.50 points")
        self.assertEqual(row[4], "not yet")

    def test_headline_pair_interval(self):
        # per-block percent differences 1, 2, 3 (baseline 0): mean 2, 95%
        # interval 2 -+ t(2) * 1 / sqrt(3) = 2 -+ 2.484; the goal "<= 2%" is
        # met by the mean but not by the interval's top
        base = {"kind": "micro", "bench": "conn_cost_coop_stats_vs_coop_off"}
        recs = []
        for rep, d in enumerate((1.0, 2.0, 3.0), 1):
            recs.append(dict(base, arm="baseline", rep=rep,
                             metrics={"server_cpu_vs_pair_pct": 0.0, "server_cpu_us_per_conn": 4000.0,
                                      "conns_per_s_vs_pair_pct": 0.0}))
            recs.append(dict(base, arm="coop_stats", rep=rep,
                             metrics={"server_cpu_vs_pair_pct": d,
                                      "server_cpu_us_per_conn": 4000.0 + 40 * d,
                                      "conns_per_s_vs_pair_pct": -d / 10}))
        rows = report.headline_rows({"r1-x": recs})
        cpu = next(r for r in rows if r[1].startswith("server CPU per connection, stats"))
        half = 4.303 / 3 ** 0.5
        self.assertEqual(cpu[2], f"+2.0% [{2 - half:+.1f}, {2 + half:+.1f}]")
        self.assertEqual(cpu[4], "mean met, interval wider")
        us = next(r for r in rows if r[1] == "the same in microseconds")
        self.assertEqual(us[2], f"+80.00 us [{80 - 40 * half:+.2f}, {80 + 40 * half:+.2f}]")
        self.assertEqual(us[4], "met")
        cps = next(r for r in rows if r[1].startswith("connections/s, stats"))
        self.assertEqual(cps[4], "met")

    def _claims(self, doc_text, value, phrase=None, tol="1%", metric="tps", arm="none"):
        d = self._tmpdir()
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write(doc_text)
        phrase = phrase or f"runs {value} TPS"
        row = "\t".join(["README.md", phrase, self.run_id, "15", "select_only", arm, metric,
                         value, tol, "test"])
        return claims.check_claims(claims.parse(row), self.recs, d)

    def test_claim_holds_and_misses(self):
        cells = [r for r in self.recs if r["kind"] == "cell"]
        med = report.metric_value(cells, "none", "tps")
        v = f"{med:.0f}"
        self.assertEqual(self._claims(f"The baseline runs {v} TPS here.", v), [])
        wrong = f"{med * 1.5:.0f}"
        out = self._claims(f"The baseline runs {wrong} TPS here.", wrong)
        self.assertTrue(out and out[0].startswith("CLAIM MISSED"), out)

    def test_claim_stale(self):
        out = self._claims("The document says something else now.", "100")
        self.assertTrue(out and out[0].startswith("CLAIM STALE"), out)

    def test_claim_value_must_be_in_phrase(self):
        out = self._claims("it runs fast", "100", phrase="it runs fast")
        self.assertTrue(out and out[0].startswith("CLAIM VALUE NOT IN PHRASE"), out)

    def test_micro_claim(self):
        d = self._tmpdir()
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write("a pair costs 11.4 ns")
        row = "\t".join(["README.md", "a pair costs 11.4 ns", self.run_id, "micro",
                         "bench/programs/example/example_pair", "hook_null", "ns_per_wait",
                         "11.4", "0.1", "test"])
        self.assertEqual(claims.check_claims(claims.parse(row), self.recs, d), [])

    def test_claims_parse_errors(self):
        with self.assertRaises(claims.ClaimsError):
            claims.parse("too\tfew\tfields")


if __name__ == "__main__":
    unittest.main()


class RusageRun(unittest.TestCase):
    """build/bench/rusage-run, the timer of the pgwt-dump benchmarks."""

    BIN = os.path.join(HERE, "..", "..", "build", "bench", "rusage-run")

    def run_it(self, *cmd):
        import subprocess
        self.assertTrue(os.access(self.BIN, os.X_OK), "build/bench/rusage-run is not built (make userspace)")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "cost")
            p = subprocess.run([self.BIN, out] + list(cmd), capture_output=True, text=True)
            fields = []
            if os.path.exists(out):
                with open(out) as fp:
                    fields = fp.read().split()
        return p, fields

    def test_measures_the_child_finely(self):
        # the child spends ~0.23 s of CPU and says how much by its own clock
        p, f = self.run_it(sys.executable, "-c",
                           "import time\nt=time.process_time()\n"
                           "while time.process_time()-t<0.23: pass\nprint(time.process_time())")
        self.assertEqual(p.returncode, 0, p.stderr)
        own = float(p.stdout)
        wall, user, sys_, rss = float(f[0]), float(f[1]), float(f[2]), int(f[3])
        self.assertGreaterEqual(user + sys_, own - 0.002)
        self.assertLess(user + sys_, own + 0.2)          # the interpreter's start
        self.assertGreaterEqual(wall, user + sys_ - 0.01)
        self.assertRegex(f[1], r"^\d+\.\d{6}$")
        self.assertGreater(rss, 0)

    def test_status_and_signal_pass_through(self):
        p, f = self.run_it("sh", "-c", "exit 3")
        self.assertEqual(p.returncode, 3)
        self.assertEqual(len(f), 4)
        p, _ = self.run_it("sh", "-c", "kill -TERM $$")
        self.assertEqual(p.returncode, 128 + 15)
        p, _ = self.run_it("/nonexistent/command")
        self.assertEqual(p.returncode, 127)
        self.assertIn("/nonexistent/command", p.stderr)

    def test_peak_rss_is_the_childs(self):
        # 64 MB touched shows; a small child is not charged a parent's memory
        p, big = self.run_it(sys.executable, "-c", "b = bytearray(64 << 20)")
        self.assertEqual(p.returncode, 0, p.stderr)
        p, small = self.run_it("true")
        self.assertGreater(int(big[3]), 64 * 1024)
        self.assertLess(int(small[3]), 8 * 1024)
