"""86-web-daemon's check of escalation windows on a known-truth trace (no
daemon): argv BASE FIRST_NS SHOTDIR. The trace is 85-web's web.scn
(escalation every=10s length=3s offset=2s over 20 s): the truth is two
windows, [first+2 s, first+5 s) and [first+12 s, first+15 s), reason
"schedule", from the scenario, not from the server."""
import json
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.request

base, first, shots = sys.argv[1], int(sys.argv[2]), sys.argv[3]
S = 10**9
fails = 0


def report(ok, name, why=''):
    global fails
    print(f'PASS {name}' if ok else f'FAIL {name}: {why}', flush=True)
    fails += 0 if ok else 1


def get(path):
    try:
        with urllib.request.urlopen(base + path, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


want = [(first + 2 * S, first + 5 * S), (first + 12 * S, first + 15 * S)]
st, body = get('/api/windows')
ws = json.loads(body)['windows'] if st == 200 else []
got = [(w['start_ns'], w['end_ns']) for w in ws]
report(got == want and all(w['reason'] == 'schedule' for w in ws), 'windows-api-known-truth',
       f'got {got} reasons {[w["reason"] for w in ws]}, want {want}')
st, body = get(f'/api/windows?from={first + 3 * S}&to={first + 4 * S}')
ws = json.loads(body)['windows'] if st == 200 else []
report([(w['start_ns'], w['end_ns']) for w in ws] == want[:1], 'windows-api-range-overlap', body[:200])
st, body = get(f'/api/windows?from={first + 6 * S}&to={first + 11 * S}')
report(st == 200 and json.loads(body)['windows'] == [], 'windows-api-none-between', body[:200])
st, body = get('/api/windows?from=5&to=4')
report(st == 400, 'windows-api-bad-range-400', f'HTTP {st}')
st, body = get('/api/status')
report(st == 503 and '--control' in body, 'status-without-control-503', f'HTTP {st}: {body[:120]}')

profile = tempfile.mkdtemp(prefix='pgwt-web-windows-chrome.')
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    for a in ['--headless=new', '--no-sandbox', '--disable-gpu', '--window-size=1400,900',
              f'--user-data-dir={profile}']:
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=opts)
except Exception as e:
    print(f'SKIP windows-browser: headless Chromium did not start: {str(e).splitlines()[0][:200]}')
    shutil.rmtree(profile, ignore_errors=True)
    sys.exit(1 if fails else 0)
try:
    drv.get(base + '/')
    time.sleep(0.2)
    for _ in range(300):
        if drv.execute_script('return document.body.dataset.ready') == 'yes':
            break
        time.sleep(0.1)
    areas = drv.execute_script(
        "const o = echarts.getInstanceByDom(document.getElementById('aas-chart')).getOption();"
        "const s = o.series.find(x => x.id === 'pgwt-escalations');"
        "return s ? s.markArea.data.map(a => [a[0].name, a[0].xAxis, a[1].xAxis]) : null;")
    want_ms = [['schedule', a // 10**6, b // 10**6] for a, b in want]
    report(areas == want_ms, 'windows-drawn-with-reason', f'chart {areas}, want {want_ms}')
    strip = drv.execute_script("const e = document.getElementById('daemon-strip');"
                               "return [e.dataset.daemon, document.getElementById('escalate').hidden];")
    report(strip == ['absent', True], 'windows-page-no-daemon-no-button', str(strip))
    time.sleep(0.5)
    drv.save_screenshot(f'{shots}/12-windows.png')
finally:
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)
sys.exit(1 if fails else 0)
