#!/usr/bin/env bash
# docs/cli.md must equal what scripts/gen-cli-doc.sh makes from this build's --help texts,
# and every subcommand must answer --help with exit 0 and bad usage with exit 2.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
bash "$NDD_SOURCE_DIR/scripts/gen-cli-doc.sh" "$NDD_BIN" > "$tmp"
if ! cmp -s "$tmp" "$NDD_SOURCE_DIR/docs/cli.md"; then
  diff "$NDD_SOURCE_DIR/docs/cli.md" "$tmp" | head -30
  echo "FAIL: docs/cli.md is out of date: run scripts/gen-cli-doc.sh build/ndd > docs/cli.md"
  exit 1
fi
for cmd in $("$NDD_BIN" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}'); do
  "$NDD_BIN" "$cmd" --help >/dev/null || { echo "FAIL: ndd $cmd --help"; exit 1; }
  set +e
  "$NDD_BIN" "$cmd" --no-such-option >/dev/null 2>&1
  rc=$?
  set -e
  [ "$rc" = 2 ] || { echo "FAIL: ndd $cmd --no-such-option exited $rc, not 2"; exit 1; }
done
set +e
"$NDD_BIN" no-such-command >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL: unknown command must exit 2"; exit 1; }
"$NDD_BIN" >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL: no command must exit 2"; exit 1; }
set -e
echo "cli doc and usage exit codes ok"
