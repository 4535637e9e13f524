# Shared helpers for test suites (sourced, not run).
#   pass NAME / fail NAME WHY / skip NAME WHY   report one result line
#   check NAME CMD...          pass when CMD succeeds, else fail with its output
#   server_pg_config KEY       pg_config of a server build: 13, 15, 17, 18, 18-hooks
#   ext_install PG_CONFIG      build + install the extension for that server
#                              in a private copy of the tree; prints nothing
#   port_for N                 a private port ($PGWT_PORT_BASE + N)
#   free_tcp_port [-n N] PORT...  the first of the ports 127.0.0.1 can bind now
#                              (with the N-1 after it)
#   free_port_for [-n N] K     free_tcp_port over port_for K, K + 1000, K + 2000
set -u
PGWT_TOP=${PGWT_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PGWT_PORT_BASE=${PGWT_PORT_BASE:-55400}
CLUSTER=$PGWT_TOP/scripts/cluster

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: ${2:-}"; }
skip() { echo "SKIP $1: ${2:-}"; }

check() {
  local name=$1; shift
  local out
  if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$(echo "$out" | tail -5 | tr '\n' ' ')"; fi
}

port_for() { echo $((PGWT_PORT_BASE + $1)); }
# free_tcp_port [-n N] PORT...: the first of the ports that 127.0.0.1 can
# bind now, with the N-1 ports after it (default N = 1). The private ports
# lie in the kernel's ephemeral range (32768-60999 on Debian), so a client
# socket can hold one for a moment: a TCP listener asks here first and
# takes the next candidate instead of failing to bind.
free_tcp_port() {
  local n=1
  if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
  python3 - "$n" "$@" <<'PY'
import socket, sys
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
        return True
    except OSError:
        return False
    finally:
        s.close()
n = int(sys.argv[1])
for p in sys.argv[2:]:
    if all(free(int(p) + i) for i in range(n)):
        print(p)
        sys.exit(0)
sys.exit("no free port among " + " ".join(sys.argv[2:]))
PY
}
# free_port_for [-n N] K: a TCP listener's private port, port_for K, or
# 1000 or 2000 past it when a client socket holds it (free_tcp_port)
free_port_for() {
  local nopt=()
  if [ "${1:-}" = -n ]; then nopt=(-n "$2"); shift 2; fi
  free_tcp_port "${nopt[@]}" "$(port_for "$1")" "$(port_for $(($1 + 1000)))" "$(port_for $(($1 + 2000)))"
}

# Builds are cached by scripts/build-server; this only asks for the path.
server_pg_config() {
  case "$1" in
    # exit status 3: the source could not be downloaded (callers skip)
    13|15|17) local out; out=$("$PGWT_TOP/scripts/build-server" "$1") || return $?
              echo "$out" | tail -n1 ;;
    18) "$PGWT_TOP/scripts/build-server" 18 | tail -n1 ;;
    18-hooks) "$PGWT_TOP/scripts/build-server" 18 hooks | tail -n1 ;;
    *) echo "unknown server key $1" >&2; return 2 ;;
  esac
}

# The extension is built out of a copy of the tree so that builds for
# several servers (and a developer's own in-tree build) never share objects.
ext_build_dir() { echo "$PGWT_TOP/build/ext-$PGWT_PORT_BASE-$(echo "$1" | md5sum | cut -c1-8)"; }
ext_install() {
  local pgc=$1 dir
  dir=$(ext_build_dir "$pgc")
  mkdir -p "$dir"
  tar -C "$PGWT_TOP" -cf - --exclude=./build --exclude=./bin --exclude=./.git . | tar -C "$dir" -xf -
  make -s -C "$dir" PG_CONFIG="$pgc" ext-clean >/dev/null 2>&1 || true
  make -s -C "$dir" PG_CONFIG="$pgc" PGWT_EXT_ONLY=1 all install >"$dir/build.log" 2>&1 \
    || { tail -20 "$dir/build.log" >&2; return 1; }
}

# pg_regress through PGXS installcheck, against a running cluster.
#   regress PG_CONFIG CLUSTER_NAME TESTS...
regress() {
  local pgc=$1 name=$2; shift 2
  local dir outdir port host
  dir=$(ext_build_dir "$pgc")
  outdir=$PGWT_TOP/build/regress-$PGWT_PORT_BASE/$name
  rm -rf "$outdir"; mkdir -p "$outdir"; chmod 777 "$outdir"
  host=$PGWT_CLUSTERS_DIR/$name; port=$(cat "$host/.port")
  PGHOST=$host PGPORT=$port PGUSER=postgres make -s -C "$dir" PG_CONFIG="$pgc" \
    REGRESS="$*" REGRESS_OUTDIR="$outdir" installcheck >"$outdir/make.log" 2>&1
}
PGWT_CLUSTERS_DIR=${PGWT_CLUSTERS:-/tmp/pgwt-clusters}
PGWT_LOGDIR=${PGWT_LOGDIR:-$PGWT_TOP/build/test-logs-$PGWT_PORT_BASE}; mkdir -p "$PGWT_LOGDIR"

# exact_probe: 0 when this machine's hardware watchpoints fire (the tracer's
# own self-test, pg_wait_tracer --check-exact); else 1, with the reason in
# $EXACT_WHY. Needs bin/pg_wait_tracer built. Asked once per run: the answer
# is kept in the run's log directory.
EXACT_WHY=
exact_probe() {
  local f=$PGWT_LOGDIR/exact-probe.txt out
  if [ ! -s "$f" ]; then
    if out=$("$PGWT_TOP/bin/pg_wait_tracer" --check-exact 2>&1); then
      echo "yes $out" >"$f"
    else
      echo "no ${out:-pg_wait_tracer --check-exact failed}" >"$f"
    fi
  fi
  EXACT_WHY=$(cut -d' ' -f2- "$f" | sed 's/^exact tier: [a-z]*: //')
  [ "$(cut -d' ' -f1 "$f")" = yes ]
}
# trap_stall_us: what a watchpoint trap stalls a thread here in us (the
# self-test's figure the exact probe printed); empty where none was measured
trap_stall_us() {
  exact_probe >/dev/null 2>&1 || true
  sed -n 's/.*a trap stalls the writer \([0-9.]*\) us.*/\1/p' "$PGWT_LOGDIR/exact-probe.txt" | head -1
}
# skip_all WHY NAME...: one SKIP line per test that cannot run here
skip_all() { local why=$1 n; shift; for n in "$@"; do skip "$n" "$why"; done; }
