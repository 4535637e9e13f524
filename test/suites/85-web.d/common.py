"""Shared by the web suite's checks: result lines, the API, pgwt-dump."""
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from datetime import datetime, timezone

RESULTS = {'fail': 0}


def report(ok, name, why=''):
    if ok:
        print(f'PASS {name}', flush=True)
    else:
        RESULTS['fail'] += 1
        print(f'FAIL {name}: {why}', flush=True)


def start_chrome(check, height):
    """(driver, profile dir) of a headless Chromium through Debian's
    chromedriver; where none starts (the probe), SKIP check and exit."""
    profile = tempfile.mkdtemp(prefix='pgwt-web-chrome.')
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        opts = webdriver.ChromeOptions()
        for a in ['--headless=new', '--no-sandbox', '--disable-gpu', f'--window-size=1400,{height}',
                  f'--user-data-dir={profile}']:
            opts.add_argument(a)
        return webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=opts), profile
    except Exception as e:  # noqa: BLE001 - the probe: no browser session, no browser tests
        print(f'SKIP {check}: headless Chromium did not start: {str(e).splitlines()[0][:200]}')
        shutil.rmtree(profile, ignore_errors=True)
        sys.exit(0)


def stop_chrome(drv, profile):
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


def get(base, path, headers=None):
    """(status, headers, body bytes) of a GET; never raises on HTTP errors."""
    req = urllib.request.Request(base + path, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def get_json(base, path):
    st, _, body = get(base, path)
    if st != 200:
        raise RuntimeError(f'{path}: HTTP {st}: {body[:200]!r}')
    return json.loads(body)


def iso(ns):
    return datetime.fromtimestamp(ns // 10**9, timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def dump_time_model(top, trace, frm, to):
    """pgwt-dump's time model of [frm, to) (whole seconds): {class: ns}."""
    out = subprocess.run([f'{top}/bin/pgwt-dump', trace, '--view', 'time_model', '--format', 'json',
                          '--from', iso(frm), '--to', iso(to)],
                         capture_output=True, text=True, check=True).stdout
    tm = [json.loads(line) for line in out.splitlines() if '"time_model"' in line][0]
    return {c['class']: c['total_ns'] for c in tm['classes']}, tm


def dump_events(top, trace, frm, to):
    """pgwt-dump's system_event of [frm, to) (whole seconds): {event: total_ns} of
    the rows that are a share of DB time (not idle, not the overflow row)."""
    out = subprocess.run([f'{top}/bin/pgwt-dump', trace, '--view', 'system_event', '--format', 'json',
                          '--from', iso(frm), '--to', iso(to)],
                         capture_output=True, text=True, check=True).stdout
    v = [json.loads(line) for line in out.splitlines() if '"system_event"' in line][0]
    return {r['event']: r['total_ns'] for r in v['rows'] if not r['idle'] and not r['other']}
