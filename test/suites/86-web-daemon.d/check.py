"""86-web-daemon's checks: pgwt-server with a live daemon's control socket.
argv: SERVERS_JSON SOCK SHOTDIR. SERVERS_JSON names the base URL of each
server: "tok" (token, --control SOCK), "notok" (no token, --control SOCK),
"gone" (token, --control at a path where no daemon listens), and the token.
The truth for an escalation is the daemon's own control socket, asked
directly, never pgwt-server's answer. Prints SKIP for the browser checks
only when a Chromium session cannot start."""
import json
import shutil
import socket
import sys
import tempfile
import time
import urllib.error
import urllib.request

cfg = json.loads(sys.argv[1])
sock, shots = sys.argv[2], sys.argv[3]
TOK, NOTOK, GONE, token = cfg['tok'], cfg['notok'], cfg['gone'], cfg['token']
AUTH = {'Authorization': 'Bearer ' + token}
fails = 0


def report(ok, name, why=''):
    global fails
    if ok:
        print(f'PASS {name}', flush=True)
    else:
        fails += 1
        print(f'FAIL {name}: {why}', flush=True)


def req(base, path, method='GET', headers=None):
    r = urllib.request.Request(base + path, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(r, timeout=30) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def ctl(cmd):
    """The daemon's own answer, straight from its control socket."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(sock)
    s.sendall((json.dumps(cmd) + '\n').encode())
    buf = b''
    while not buf.endswith(b'\n'):
        d = s.recv(65536)
        if not d:
            break
        buf += d
    s.close()
    return json.loads(buf)


def wait_sampled(limit=40):
    for _ in range(limit * 10):
        if ctl({'cmd': 'status'})['tier'] == 'sampled':
            return True
        time.sleep(0.1)
    return False


# --- the API's rules --------------------------------------------------------
st, body = req(TOK, '/api/status', headers=AUTH)
d = json.loads(body) if st == 200 else {}
truth = ctl({'cmd': 'status'})
report(st == 200 and d.get('daemon', {}).get('pg_pid') == truth['pg_pid']
       and d.get('token_configured') is True and 'samples_total' in (d.get('metrics') or {}),
       'daemon-api-status', f'HTTP {st}: {body[:200]}')
st, _ = req(TOK, '/api/status')
report(st == 401, 'daemon-api-status-needs-token', f'HTTP {st}')
st, body = req(TOK, '/api/escalate?duration_s=5', 'POST')
report(st == 401, 'daemon-escalate-without-token-401', f'HTTP {st}: {body[:120]}')
st, body = req(TOK, '/api/escalate?duration_s=5', 'POST', {'Authorization': 'Bearer ' + 'x' * len(token)})
report(st == 401, 'daemon-escalate-wrong-token-401', f'HTTP {st}: {body[:120]}')
st, body = req(TOK, '/api/escalate?duration_s=5', 'GET', AUTH)
report(st == 405, 'daemon-escalate-get-405', f'HTTP {st}: {body[:120]}')
st, body = req(TOK, '/api/escalate?duration_s=5', 'POST', {**AUTH, 'Origin': 'http://evil.example'})
report(st == 403, 'daemon-escalate-foreign-origin-403', f'HTTP {st}: {body[:120]}')
st, body = req(NOTOK, '/api/escalate?duration_s=5', 'POST')
report(st == 403 and 'token' in body, 'daemon-escalate-no-token-configured-403', f'HTTP {st}: {body[:120]}')
st, body = req(TOK, '/api/escalate?duration_s=0', 'POST', AUTH)
report(st == 400, 'daemon-escalate-bad-duration-400', f'HTTP {st}: {body[:120]}')
after = ctl({'cmd': 'metrics'})
report(after['escalation_windows_total'] == 0 and ctl({'cmd': 'status'})['tier'] == 'sampled',
       'daemon-refusals-opened-nothing', f"windows {after['escalation_windows_total']}")
for path, method in (('/api/status', 'GET'), ('/api/escalate?duration_s=5', 'POST'), ('/api/deescalate', 'POST')):
    st, body = req(GONE, path, method, AUTH)
    report(st == 503, f'daemon-absent-503 {method} {path.split("?")[0]}', f'HTTP {st}: {body[:120]}')
st, body = req(NOTOK, '/api/status')
report(st == 200 and json.loads(body)['token_configured'] is False, 'daemon-status-without-token-configured',
       f'HTTP {st}: {body[:120]}')

# --- the page -----------------------------------------------------------------
profile = tempfile.mkdtemp(prefix='pgwt-web-daemon-chrome.')
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    opts = webdriver.ChromeOptions()
    for a in ['--headless=new', '--no-sandbox', '--disable-gpu', '--window-size=1400,1100',
              f'--user-data-dir={profile}']:
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=opts)
except Exception as e:  # the probe: no browser session, no browser checks
    print(f'SKIP daemon-browser: headless Chromium did not start: {str(e).splitlines()[0][:200]}')
    shutil.rmtree(profile, ignore_errors=True)
    sys.exit(1 if fails else 0)


def js(code, *args):
    return drv.execute_script(code, *args)


def wait_for(code, limit=20.0):
    t = time.time() + limit
    while time.time() < t:
        v = js(code)
        if v:
            return v
        time.sleep(0.1)
    return None


def open_page(base, frag):
    drv.get(base + '/#' + frag)
    time.sleep(0.2)
    wait_for("return document.body.dataset.ready === 'yes'", 30)


try:
    # Escalate through the page: the daemon's own socket then reports the window.
    open_page(TOK, 'token=' + token + '&live=60')
    present = wait_for("return document.getElementById('daemon-strip').dataset.daemon === 'present'")
    report(bool(present) and js("return !document.getElementById('escalate').disabled"),
           'daemon-page-strip-present', js("return document.getElementById('daemon-strip').textContent")[:200])
    Select(drv.find_element(By.ID, 'esc-duration')).select_by_value('10')
    t_click = time.time()
    drv.find_element(By.ID, 'escalate').click()
    code = wait_for("return document.body.dataset.escalation")
    st = ctl({'cmd': 'status'})
    report(code == '200' and st['tier'] == 'escalated' and st['escalation_reason'] == 'manual'
           and 0 < st['escalation_seconds_remaining'] <= 10,
           'daemon-page-escalate-opens-window',
           f"page {code}; control socket: tier {st['tier']}, reason {st['escalation_reason']}, "
           f"left {st['escalation_seconds_remaining']}")
    shown = wait_for("return /window: \\d+ s left/.test(document.getElementById('daemon-strip').textContent)"
                     " && document.getElementById('daemon-strip').dataset.tier === 'escalated'", 5)
    report(bool(shown), 'daemon-page-strip-shows-window',
           js("return document.getElementById('daemon-strip').textContent")[:200])
    # the open window on the live chart, labelled with its reason
    drawn = wait_for("return (window.pgwtWindows || []).some(w => w.reason === 'manual')", 8)
    time.sleep(1.5)
    drv.save_screenshot(f'{shots}/10-escalated-live.png')
    report(bool(drawn), 'daemon-page-window-on-chart', json.dumps(js('return window.pgwtWindows'))[:200])
    # the window closes by itself; the trace then holds it, from the click on
    wait_sampled(20)
    time.sleep(1.5)
    st, body = req(TOK, '/api/windows', headers=AUTH)
    ws = json.loads(body)['windows'] if st == 200 else []
    man = [w for w in ws if w['reason'] == 'manual']
    ok = (len(man) == 1 and man[0]['end_ns'] is not None
          and abs(man[0]['start_ns'] / 1e9 - t_click) < 3
          and 9.0 <= (man[0]['end_ns'] - man[0]['start_ns']) / 1e9 <= 11.5)
    report(ok, 'daemon-window-in-trace-manual-10s', f'HTTP {st}: {body[:300]}; click at {t_click:.3f}')
    m = ctl({'cmd': 'metrics'})
    report(m['escalation_windows_total'] == 1, 'daemon-one-window-opened', f"windows {m['escalation_windows_total']}")
    # without the token the page's POST is refused, and nothing opens
    res = drv.execute_async_script(
        "const done = arguments[0]; fetch('/api/escalate?duration_s=5', {method: 'POST'})"
        ".then(r => done(r.status)).catch(e => done(String(e)));")
    report(res == 401 and ctl({'cmd': 'status'})['tier'] == 'sampled', 'daemon-page-post-without-token-401',
           f'status {res}')

    # Live mode: the chart's right edge follows the present, a second a tick
    # (a tick waits for the previous redraw: at least one in 2.6 s).
    js('window.pgwtMarker = 1')
    e1 = int(wait_for("return window.pgwtAAS && window.pgwtAAS.to_ns"))
    time.sleep(2.6)
    e2 = int(js("return window.pgwtAAS.to_ns"))
    now_ns = int(js("return Date.now()")) * 10**6
    report(js("return window.pgwtMarker") == 1 and 10**9 <= e2 - e1 <= 4 * 10**9
           and abs(now_ns - e2) < 2 * 10**9,
           'daemon-live-right-edge-follows-present',
           f'edge moved {(e2 - e1) / 1e9:.2f} s in 2.6 s; edge {(now_ns - e2) / 1e9:.2f} s before now')
    # the new seconds carry data: the trace's last record advances too
    rng1 = json.loads(req(TOK, '/api/range', headers=AUTH)[1])
    time.sleep(2.2)
    rng2 = json.loads(req(TOK, '/api/range', headers=AUTH)[1])
    report(int(rng2['last_ns']) - int(rng1['last_ns']) >= 10**9, 'daemon-live-trace-grows',
           f"{rng1['last_ns']} -> {rng2['last_ns']}")
    drv.find_element(By.ID, 'live').click()
    wait_for("return document.body.dataset.ready === 'yes'")
    frag = js('return location.hash')
    report('live=' not in frag and 'from=' in frag and 'to=' in frag, 'daemon-live-off-keeps-range', frag)

    # An exact view over a sampled stretch says it needs an exact window;
    # its own Escalate button opens one that the daemon's socket reports.
    wait_sampled(20)
    time.sleep(5)	# a stretch after the window, written out
    now = int(js("return Date.now()")) * 10**6
    open_page(TOK, f'token={token}&from={now - 7 * 10**9}&to={now - 2 * 10**9}')
    need = wait_for("return document.getElementById('box-transitions').dataset.status === 'requires_exact'"
                    " && document.querySelector('#box-transitions .x-msg button') !== null", 10)
    js("document.querySelector('#box-transitions .x-msg button').click()")
    said = wait_for("return document.querySelector('#box-transitions .escalate-said').textContent", 10)
    st = ctl({'cmd': 'status'})
    report(bool(need) and st['tier'] == 'escalated' and st['escalation_reason'] == 'manual'
           and said and 'window open' in said, 'daemon-exact-view-escalate-opens-window',
           f"needs-window {need}, said {said!r}, tier {st['tier']}")
    drv.find_element(By.ID, 'box-transitions').screenshot(f'{shots}/12-exact-view-escalated.png')
    req(TOK, '/api/deescalate', 'POST', AUTH)
    wait_sampled(20)

    # Where no daemon answers: the strip says so, no button.
    open_page(GONE, 'token=' + token)
    gone = wait_for("return document.getElementById('daemon-strip').dataset.daemon === 'absent'")
    report(bool(gone) and js("return document.getElementById('escalate').hidden"), 'daemon-page-absent',
           js("return document.getElementById('daemon-strip').textContent")[:200])
    drv.save_screenshot(f'{shots}/11-no-daemon.png')
    # A server without a token shows the daemon but cannot escalate.
    open_page(NOTOK, '')
    wait_for("return document.getElementById('daemon-strip').dataset.daemon === 'present'")
    report(js("return document.getElementById('escalate').disabled"), 'daemon-page-no-token-escalate-disabled',
           js("return document.getElementById('escalate').title"))
finally:
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)
sys.exit(1 if fails else 0)
