"""86-web-daemon: pgwt-server against a control socket that misbehaves (a
stand-in daemon here, no root): an answer past 64 kB is a 502, a daemon
that never answers a 503 within the 2 s bound, an answer that is not one
object a 502; the server answers on afterwards. argv: PGWT_SERVER PORT DIR."""
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

prog, port, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
sock_path = os.path.join(tmp, 'fake.sock')
trace = os.path.join(tmp, 'synth')
fails = 0


def report(ok, name, why=''):
    global fails
    print(f'PASS {name}' if ok else f'FAIL {name}: {why}', flush=True)
    fails += 0 if ok else 1


# one behaviour per connection, in order
plan = ['big', 'silent', 'notjson', 'good', 'good']
srv = socket.socket(socket.AF_UNIX)
srv.bind(sock_path)
srv.listen(8)


def answer(c, how):
    try:
        c.recv(4096)
        if how == 'big':
            c.sendall(b'{"x":"' + b'y' * 70000 + b'"}\n')
        elif how == 'silent':
            time.sleep(4)
        elif how == 'notjson':
            c.sendall(b'<html>\n')
        else:
            c.sendall(b'{"ok":true,"mode":"tiered","tier":"sampled"}\n')
    except OSError:
        pass  # pgwt-server gave up on it, as it should
    c.close()


def serve():
    for how in plan:
        c, _ = srv.accept()
        threading.Thread(target=answer, args=(c, how), daemon=True).start()


threading.Thread(target=serve, daemon=True).start()
p = subprocess.Popen([prog, '--quiet', '--listen', f'127.0.0.1:{port}', '--control', sock_path, trace])
base = f'http://127.0.0.1:{port}'


def status():
    t = time.time()
    try:
        with urllib.request.urlopen(base + '/api/status', timeout=30) as r:
            return r.status, r.read().decode(), time.time() - t
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), time.time() - t


try:
    for _ in range(100):
        try:
            urllib.request.urlopen(base + '/', timeout=5).read()
            break
        except OSError:
            time.sleep(0.1)
    st, body, _ = status()
    report(st == 502, 'ctl-answer-over-64k-502', f'HTTP {st}: {body[:100]}')
    st, body, dt = status()
    report(st == 503 and 1.5 <= dt <= 3.5, 'ctl-silent-daemon-503-within-2s', f'HTTP {st} after {dt:.2f} s')
    st, body, _ = status()
    report(st == 502, 'ctl-answer-not-json-502', f'HTTP {st}: {body[:100]}')
    st, body, _ = status()
    report(st == 200 and '"tier":"sampled"' in body, 'ctl-answers-after-bad-daemon', f'HTTP {st}: {body[:100]}')
finally:
    p.terminate()
    p.wait()
sys.exit(1 if fails else 0)
