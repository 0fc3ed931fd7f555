#!/usr/bin/env bash
# Writes man pages from the --help texts of the ndd binary (as docs/cli.md is
# written by gen-cli-doc.sh), so that they cannot drift from the program:
# OUTDIR/ndd.1 and OUTDIR/ndd-COMMAND.1 for every command. Run by the build
# (target ndd_man) and installed by cmake --install.
#   scripts/gen-man.sh [NDD_BIN] [OUTDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/ndd}
out=${2:-$root/build/man}
mkdir -p "$out"
version=$("$bin" --version | awk '{print $2}')
# roff: backslashes doubled, a leading . or ' made literal, the text kept as written
body() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }
page() { # NAME SUMMARY HELPTEXT-COMMAND...
  local name=$1 summary=$2
  shift 2
  local upper
  upper=$(echo "$name" | tr '[:lower:]' '[:upper:]')
  {
    echo ".TH $upper 1 \"\" \"ndd $version\" \"ndd manual\""
    echo ".SH NAME"
    echo "$name \\- $summary"
    echo ".SH DESCRIPTION"
    echo "The text of \\fB$(echo "$name" | sed 's/-/ /') --help\\fR (generated from it):"
    echo ".PP"
    echo ".nf"
    "$@" | body
    echo ".fi"
    echo ".SH SEE ALSO"
    echo "docs/cli.md, README.md and docs/ of the ndd sources."
  } > "$out/$name.1.tmp"
  mv "$out/$name.1.tmp" "$out/$name.1"
}
page ndd "near-duplicate detection for archive-scale web crawls" "$bin" --help
"$bin" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print} on && /^$/{on=0}' |
  while read -r cmd summary; do
    page "ndd-$cmd" "$(echo "$summary" | sed 's/\\/\\e/g')" "$bin" "$cmd" --help
  done
