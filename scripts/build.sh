#!/usr/bin/env bash
# Configures and builds ndd. Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
# Default BUILD_DIR: build/. Warnings are errors.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
cmake -S "$root" -B "$build" -DNDD_WERROR=ON "$@" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
