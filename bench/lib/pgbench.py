"""Running pgbench and reading its results (summary and latency logs).

Parsing is separate from running so it is tested on captured text.
"""

import glob
import os
import re
import subprocess

import stats


def parse_summary(text):
    """tx, failed_tx, tps, lat_avg_ms from pgbench's closing summary."""
    out = {"tx": None, "failed_tx": 0, "tps": None, "lat_avg_ms": None}
    m = re.search(r"number of transactions actually processed:\s*(\d+)", text)
    if m:
        out["tx"] = int(m.group(1))
    m = re.search(r"number of failed transactions:\s*(\d+)", text)
    if m:
        out["failed_tx"] = int(m.group(1))
    m = re.search(r"^tps = ([0-9.]+)", text, re.M)
    if m:
        out["tps"] = float(m.group(1))
    m = re.search(r"latency average = ([0-9.]+) ms", text)
    if m:
        out["lat_avg_ms"] = float(m.group(1))
    if out["tx"] is None or out["tps"] is None:
        raise ValueError("pgbench printed no transaction count or tps")
    return out


def latencies_us(lines):
    """Latency (microseconds) of each transaction of a pgbench -l log:
    'client tx_no latency_us script_no epoch_s epoch_us' per line; a
    failed transaction is logged with 'failed'/'serialization' instead."""
    lat = []
    for line in lines:
        f = line.split()
        if len(f) >= 3 and f[2].isdigit():
            lat.append(int(f[2]))
    return lat


def latency_summary(lat_us):
    if not lat_us:
        return {"lat_p50_ms": None, "lat_p90_ms": None, "lat_p99_ms": None,
                "lat_max_ms": None}
    s = sorted(lat_us)
    return {
        "lat_p50_ms": round(stats.percentile(s, 50) / 1000.0, 3),
        "lat_p90_ms": round(stats.percentile(s, 90) / 1000.0, 3),
        "lat_p99_ms": round(stats.percentile(s, 99) / 1000.0, 3),
        "lat_max_ms": round(s[-1] / 1000.0, 3),
    }


def command(bindir, host, port, wl, seconds, log_prefix=None):
    cmd = [os.path.join(bindir, "pgbench"), "-h", host, "-p", str(port),
           "-U", "postgres", "-n", "-c", str(wl.clients), "-j", str(wl.threads),
           "-T", str(seconds)]
    cmd += wl.pgbench_args
    if log_prefix:
        cmd += ["-l", f"--log-prefix={log_prefix}"]
    cmd.append("postgres")
    return cmd


def run(cmd, env_extra, workdir):
    """Run pgbench; returns (its output, its CPU seconds from wait4)."""
    env = dict(os.environ, **env_extra)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         cwd=workdir, env=env, text=True)
    out = p.stdout.read()
    p.stdout.close()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        errs = [ln for ln in out.splitlines() if "error" in ln.lower() or "fatal" in ln.lower()]
        raise RuntimeError(f"pgbench failed ({p.returncode}): " + " | ".join(errs[:4] or [out.strip()[-300:]]))
    return out, round(ru.ru_utime + ru.ru_stime, 3)


def read_logs(log_prefix):
    lat = []
    for path in glob.glob(log_prefix + ".*"):
        with open(path) as f:
            lat.extend(latencies_us(f))
        os.unlink(path)
    return lat
