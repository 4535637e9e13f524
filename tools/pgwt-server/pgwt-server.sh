#!/bin/sh
# pgwt-server: the seed tool's name for its trace-file server. This build
# provides its text dump, so users of that tool can keep typing
#   pgwt-server --dump DIR [pgwt-dump options]
# which runs pgwt-dump on DIR. The web investigation server is not part of
# this build; anything else is refused with a clear message.
here=$(dirname "$0")
case "${1:-}" in
  --dump)
    shift
    if [ $# -eq 0 ]; then
      echo "pgwt-server: --dump needs a trace directory or file" >&2
      exit 2
    fi
    exec "$here/pgwt-dump" "$@"
    ;;
  -h|--help)
    echo "usage: pgwt-server --dump DIR|FILE [--from T] [--to T] [--view V] [--format text|json|csv]"
    echo "(runs pgwt-dump; the web server of the seed tool is not part of this build)"
    exit 0
    ;;
  *)
    echo "pgwt-server: only --dump DIR is provided in this build (the web server is not); see pgwt-server --help" >&2
    exit 2
    ;;
esac
