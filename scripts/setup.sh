#!/usr/bin/env bash
# Installs every Debian package that ndd's build, tests, demo and benchmarks need.
# Idempotent: returns at once when everything is already installed. Run as root
# (or with sudo available) on Debian 12.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git
  openmpi-bin libopenmpi-dev           # MPI
  libzstd-dev zstd                     # compression (shuffles, checkpoints, .zst inputs)
  libxxhash-dev                        # hashing
  libssl-dev                           # MD5 from OpenSSL libcrypto
  zlib1g-dev                           # gzip inputs (JSONL.gz, WARC.gz)
  libcmocka-dev                        # unit tests
  liblapacke-dev libopenblas-dev       # LSI: randomized SVD's small dense factorisations (src/lsi)
  clang libclang-rt-14-dev             # libFuzzer harnesses (scripts/fuzz.sh, fuzz/)
  libgumbo-dev                         # HTML5 reference parser (extractor agreement test)
  diffutils                            # GNU diff --minimal (LCS oracle)
  python3                              # dataset generators and converters
  slurmctld slurmd slurm-client munge iproute2 chromium  # local Slurm tests (scripts/slurm-local.sh), ndd stats --plot check
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
echo "setup.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
