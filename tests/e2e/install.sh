#!/usr/bin/env bash
# e2e (issue 17, item 6): cmake --install puts ndd (and its MPI engine), man pages
# generated from --help, and the bash completion in place; the installed ndd runs a job
# (in-process and, when mpirun is here, on the installed MPI engine); --version is
# listed in --help and accepted after a command.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
B=$(dirname "$NDD")
command -v cmake >/dev/null || { echo "SKIP: cmake not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
v=$("$NDD" --version) || fail "ndd --version"
case "$v" in "ndd "[0-9]*) ;; *) fail "--version printed '$v'" ;; esac
"$NDD" --help | grep -q -- "--version" || fail "--version not listed in ndd --help"
for c in run sig compare signcd eval stats flow; do
  [ "$("$NDD" $c --version)" = "$v" ] || fail "ndd $c --version"
done
[ "$("$NDD" run -q --engine local:1 -o "$tmp/x" --version)" = "$v" ] || fail "--version among options"

cmake --install "$B" --prefix "$tmp/p" >"$tmp/install.log" 2>&1 || fail "cmake --install: $(tail -5 "$tmp/install.log")"
P=$tmp/p
[ -x "$P/bin/ndd" ] || fail "no bin/ndd"
ls "$P"/lib*/ndd/libndd_mpi.so >/dev/null 2>&1 || fail "no lib/ndd/libndd_mpi.so"
for c in ndd ndd-run ndd-sig ndd-compare ndd-signcd ndd-eval ndd-stats ndd-flow; do
  [ -s "$P/share/man/man1/$c.1" ] || fail "no man page $c.1"
done
grep -q -- 'url\\-field\|url-field' "$P/share/man/man1/ndd-run.1" || fail "ndd-run.1 lacks the options of --help"
if command -v man >/dev/null; then
  MANWIDTH=100 man -l "$P/share/man/man1/ndd-run.1" 2>/dev/null | grep -q -- "--write-dedup FILE" ||
    fail "man cannot render ndd-run.1"
fi
[ "$("$P/bin/ndd" --version)" = "$v" ] || fail "installed ndd --version"
printf '{"id":"a","text":"One sentence of the only document, long enough to count."}\n' > "$tmp/a.jsonl"
"$P/bin/ndd" run -q --engine local:1 -o "$tmp/o" "$tmp/a.jsonl" || fail "installed ndd run --engine local"
if command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpirun -n 1 "$P/bin/ndd" run -q -o "$tmp/m" "$tmp/a.jsonl" 2>"$tmp/mpi.err" ||
    fail "installed ndd on the MPI engine: $(cat "$tmp/mpi.err")"
fi
C=$P/share/bash-completion/completions/ndd
[ -s "$C" ] || fail "no bash completion"
out=$(bash -c '. "$1"; COMP_WORDS=("$2" run --url-f); COMP_CWORD=2; _ndd; echo "${COMPREPLY[*]}"' _ "$C" "$P/bin/ndd")
[ "$out" = "--url-field" ] || fail "completion of 'ndd run --url-f': '$out'"
out=$(bash -c '. "$1"; COMP_WORDS=("$2" st); COMP_CWORD=1; _ndd; echo "${COMPREPLY[*]}"' _ "$C" "$P/bin/ndd")
[ "$out" = "stats" ] || fail "completion of 'ndd st': '$out'"
echo "install ok"
