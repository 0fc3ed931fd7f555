#!/usr/bin/env bash
# usage: kill_after_map.sh MAPDIR N COMMAND...
# Runs COMMAND (its stderr dropped) in the background and kills it with
# SIGKILL as soon as MAPDIR holds N map-shard markers (*.done): a run killed
# between its map stage and its end, for the resume tests. Exit 0 when it
# was killed, 1 when the command ended first.
set -u
dir=$1 n=$2
shift 2
"$@" 2>/dev/null &
job=$!
killed=1
for _ in $(seq 1 2400); do
  if [ "$(ls "$dir"/*.done 2>/dev/null | wc -l)" -ge "$n" ]; then
    kill -9 "$job" 2>/dev/null && killed=0
    break
  fi
  kill -0 "$job" 2>/dev/null || break
  sleep 0.01
done
wait "$job" 2>/dev/null
exit "$killed"
