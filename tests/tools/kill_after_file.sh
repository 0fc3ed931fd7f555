#!/usr/bin/env bash
# usage: kill_after_file.sh FILE COMMAND...
# Runs COMMAND (its stderr dropped) in the background and kills it with
# SIGKILL as soon as FILE exists (watched in a tight loop: the stages after a
# checkpoint marker can be a few milliseconds): a run killed right after a
# checkpoint, for the resume tests. Exit 0 when it was killed, 1 when the
# command ended first.
set -u
file=$1
shift
"$@" 2>/dev/null &
job=$!
killed=1
end=$((SECONDS + 120))
while [ "$SECONDS" -lt "$end" ]; do
  if [ -e "$file" ]; then
    kill -9 "$job" 2>/dev/null && killed=0
    break
  fi
  kill -0 "$job" 2>/dev/null || break
done
wait "$job" 2>/dev/null
exit "$killed"
