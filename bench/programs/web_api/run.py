#!/usr/bin/python3
"""pgwt-server's answer costs (issue #18). One JSON line per measurement:

  {"bench":"web_api_callgrind","arm":A,"rep":R,"instr_per_request":I}
      instructions of one request's handler (callgrind, collection toggled
      on for the handler only) on the web suite's 20 s trace
      (test/suites/85-web.d/web.scn): arms aas_300 and aas_8 (/api/aas at
      300 and 8 points over the whole trace) and range (/api/range, the
      baseline: the trace's extent, one read of it).
  {"bench":"web_api_cpu","arm":A,"rep":R,"cpu_ms":C,"records":N}
      the server's CPU time (the sum of its threads' schedstat run time)
      over one request on an hour of exact records (hour.scn, read from
      the records: a copy without its .sum files): arms time_model_1h
      (/api/view?view=time_model over the hour), aas_300_1h and range_1h
      (the baseline), interleaved within each repetition. Every request
      names its own range (its end a few ns later each time, past the last
      record: the same answer), so none finds the server's last read.
      On a day sampled at 10 Hz with exact windows (day.scn, per-second
      summaries beside the files), over the whole day as a closed range:
      arms time_model_24h, system_event_24h, aas_300_24h (answered from the
      summaries, docs/WEB.md) and the same three with the suffix _records
      on a copy of the directory without its .sum files (read from the
      records), interleaved within each repetition; range_24h (the
      extent, a read of every record) as the baseline.
  {"bench":"web_page","arm":A,"rep":R,"interactive_ms":T}
      headless Chromium (Debian's chromium-driver, python3-selenium): from
      the navigation to the page's ready mark (body data-ready="yes"),
      polled every 10 ms, over the hour's trace (hour_1h), the 20 s one
      (small_20s) and the day (day_24h); the hour's and the day's URLs name
      the whole trace, as a pasted link does, a new end each time (the
      server's last read does not serve the next load), interleaved;
      absent when no browser session starts (said on stderr).

  bench/programs/web_api/run.py [--reps R]
"""
import argparse
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
BIN = os.path.join(TOP, 'bin')
HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def get(port, path, timeout=600):
    with urllib.request.urlopen(f'http://127.0.0.1:{port}{path}', timeout=timeout) as r:
        return r.read()


def wait_up(port, proc, tries=600, probe='/api/range'):
    for _ in range(tries):
        if proc.poll() is not None:
            sys.exit(f'run.py: pgwt-server exited with {proc.returncode}')
        try:
            get(port, probe, timeout=60)
            return
        except OSError:
            time.sleep(0.1)
    sys.exit('run.py: pgwt-server did not answer')


def start_server(trace, prefix=()):
    port = free_port()
    proc = subprocess.Popen(list(prefix) + [os.path.join(BIN, 'pgwt-server'), '--quiet',
                                            '--listen', f'127.0.0.1:{port}', trace],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return port, proc


def stop(proc):
    proc.terminate()
    try:
        return proc.communicate(timeout=120)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()[1]


def cpu_ns(pid):
    """Run time of every thread of pid (schedstat's first field, ns)."""
    total = 0
    for f in glob.glob(f'/proc/{pid}/task/*/schedstat'):
        try:
            total += int(open(f).read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def callgrind(trace, reps):
    arms = {'aas_300': ('srv_api_aas', '/api/aas?points=300'),
            'aas_8': ('srv_api_aas', '/api/aas?points=8'),
            'range': ('srv_api_range', '/api/range')}
    tmp = tempfile.mkdtemp()
    try:
        for rep in range(1, reps + 1):
            for arm, (fn, path) in arms.items():
                out = os.path.join(tmp, f'cg.{arm}.{rep}')
                port, proc = start_server(trace, ('valgrind', '--tool=callgrind',
                                                  f'--callgrind-out-file={out}',
                                                  f'--toggle-collect={fn}'))
                # the readiness probe asks for the page: no handler collected
                wait_up(port, proc, probe='/')
                get(port, path)
                n = collected(stop_dump(proc, out, port))
                print(json.dumps({'bench': 'web_api_callgrind', 'arm': arm, 'rep': rep,
                                  'instr_per_request': n}), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def stop_dump(proc, out, port):
    err = stop(proc)
    if proc.returncode != 0:
        sys.exit(f'run.py: pgwt-server under callgrind exited {proc.returncode}: {err[-300:]}')
    return err


def collected(err):
    m = re.search(r'Collected : (\d+)', err)
    if not m:
        sys.exit('run.py: no instruction count in callgrind\'s output')
    return int(m.group(1))


def hour_arms(rng):
    """The hour's arms, read from records (a copy without summaries)."""
    return [('range_1h', 'raw', '/api/range'),
            ('time_model_1h', 'raw', '/api/view?view=time_model' + rng),
            ('aas_300_1h', 'raw', '/api/aas?points=300' + rng)]


def day_arms(rng):
    """The day's arms: (arm, server key, path); rng = '&from=..&to=..'."""
    arms = [('range_24h', 'sum', '/api/range')]
    for name, path in (('time_model_24h', '/api/view?view=time_model' + rng),
                       ('system_event_24h', '/api/view?view=system_event' + rng),
                       ('aas_300_24h', '/api/aas?points=300' + rng)):
        arms += [(name, 'sum', path), (name + '_records', 'raw', path)]
    return arms


def cpu_runs(traces, arms, reps, records, to0):
    """traces: {key: directory}, one server each; arms: (arm, key, path),
    TO in a path standing for the range's end, to0 + the request's number."""
    servers = {k: start_server(t) for k, t in traces.items()}
    n = 0
    try:
        for port, proc in servers.values():
            wait_up(port, proc)
        for rep in range(1, reps + 1):
            # rotate the order from one repetition to the next
            k = (rep - 1) % len(arms)
            for arm, key, path in arms[k:] + arms[:k]:
                port, proc = servers[key]
                # each request its own range ("to" a few ns later, past
                # the last record: the same answer), so none is served
                # from the range the server read last (srv_cache.c)
                n += 1
                c0 = cpu_ns(proc.pid)
                get(port, path.replace('TO', str(to0 + n)))
                c1 = cpu_ns(proc.pid)
                print(json.dumps({'bench': 'web_api_cpu', 'arm': arm, 'rep': rep,
                                  'cpu_ms': round((c1 - c0) / 1e6, 2), 'records': records}),
                      flush=True)
    finally:
        for _, proc in servers.values():
            stop(proc)


def page(traces, reps, frags=None):
    """traces: {arm: trace directory}, one server each, the arms interleaved;
    frags: {arm: function of the repetition giving the URL fragment} (the
    page's state: a range, a new one each time, so no load finds the
    server's last read ready)."""
    frags = frags or {}
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        print(f'run.py: no page figure: {e}', file=sys.stderr)
        return
    servers = {arm: start_server(t) for arm, t in traces.items()}
    profile = tempfile.mkdtemp()
    drv = None
    try:
        for port, proc in servers.values():
            wait_up(port, proc)
        opts = webdriver.ChromeOptions()
        for a in ['--headless=new', '--no-sandbox', '--disable-gpu', '--window-size=1400,1500',
                  f'--user-data-dir={profile}']:
            opts.add_argument(a)
        try:
            drv = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=opts)
        except Exception as e:  # noqa: BLE001 (the probe: no browser, no figure)
            print(f'run.py: no page figure: headless Chromium did not start: {e}', file=sys.stderr)
            return
        drv.set_page_load_timeout(120)
        arms = list(servers)
        for rep in range(1, reps + 1):
            k = (rep - 1) % len(arms)
            for arm in arms[k:] + arms[:k]:
                port = servers[arm][0]
                drv.get('about:blank')
                t0 = time.monotonic()
                frag = frags[arm](rep) if arm in frags else ''
                drv.get(f'http://127.0.0.1:{port}/' + frag)
                while drv.execute_script('return document.body && document.body.dataset.ready') != 'yes':
                    if time.monotonic() - t0 > 120:
                        sys.exit('run.py: the page never became ready')
                    time.sleep(0.01)
                ms = (time.monotonic() - t0) * 1000
                print(json.dumps({'bench': 'web_page', 'arm': arm, 'rep': rep,
                                  'interactive_ms': round(ms, 1)}), flush=True)
    finally:
        if drv:
            drv.quit()
        for _, proc in servers.values():
            stop(proc)
        shutil.rmtree(profile, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reps', type=int, default=3)
    a = ap.parse_args()
    for b in ('pgwt-server', 'pgwt-synth'):
        if not os.access(os.path.join(BIN, b), os.X_OK):
            sys.exit(f'run.py: {BIN}/{b} is not built (make userspace)')
    tmp = tempfile.mkdtemp()
    try:
        small = os.path.join(tmp, 'small')
        subprocess.run([os.path.join(BIN, 'pgwt-synth'), '-o', small,
                        os.path.join(TOP, 'test', 'suites', '85-web.d', 'web.scn')],
                       check=True, stdout=subprocess.DEVNULL)
        hour = os.path.join(tmp, 'hour')
        truth = json.loads(subprocess.run([os.path.join(BIN, 'pgwt-synth'), '-o', hour,
                                           os.path.join(HERE, 'hour.scn')],
                                          check=True, stdout=subprocess.PIPE, text=True).stdout)
        if shutil.which('valgrind'):
            callgrind(small, a.reps)
        else:
            print('run.py: no instruction counts: valgrind is not installed', file=sys.stderr)
        hourraw = os.path.join(tmp, 'hourraw')
        shutil.copytree(hour, hourraw, ignore=shutil.ignore_patterns('*.sum', '*.sum.meta'))
        off = truth['start_realtime_ns'] - truth['start_monotonic_ns']
        hfirst, hlast = off + truth['first_ts'], off + truth['last_ts']
        cpu_runs({'raw': hourraw}, hour_arms(f'&from={hfirst}&to=TO'), a.reps, truth['records'],
                 hlast + 1)
        day = os.path.join(tmp, 'day')
        dtruth = json.loads(subprocess.run([os.path.join(BIN, 'pgwt-synth'), '-o', day,
                                            os.path.join(HERE, 'day.scn')],
                                           check=True, stdout=subprocess.PIPE, text=True).stdout)
        # the same files without their summaries: the records' answer
        dayraw = os.path.join(tmp, 'dayraw')
        shutil.copytree(day, dayraw, ignore=shutil.ignore_patterns('*.sum', '*.sum.meta'))
        first = dtruth['start_realtime_ns'] - dtruth['start_monotonic_ns'] + dtruth['first_ts']
        last = dtruth['start_realtime_ns'] - dtruth['start_monotonic_ns'] + dtruth['last_ts']
        cpu_runs({'sum': day, 'raw': dayraw}, day_arms(f'&from={first}&to=TO'), a.reps,
                 dtruth['records'], last + 1)
        page({'hour_1h': hour, 'small_20s': small, 'day_24h': day}, a.reps,
             {'day_24h': lambda rep: f'#from={first}&to={last + 1 + rep}',
              'hour_1h': lambda rep: f'#from={hfirst}&to={hlast + 1 + rep}'})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
