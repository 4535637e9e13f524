# Sourced by the bench programs that time one process (dump_throughput,
# history_throughput, seed_read), with $top set to the repository:
#   rusage OUT CMD...   runs CMD, writes "wall user sys maxrss_kb" to OUT
# (build/bench/rusage-run: wait4's figures, in microseconds; C, so the
# parent's own memory never counts in the child's peak RSS).
rusage() { "$top/build/bench/rusage-run" "$@"; }
[ -x "$top/build/bench/rusage-run" ] || {
  echo "$(basename "$(dirname "$0")"): $top/build/bench/rusage-run is not built (make userspace)" >&2
  exit 1
}
