#!/bin/sh
# CPU per tm_sampler_read for trees of 1 and 50 processes (see README.md).
#   sh bench/sampler/run.sh [READS]
set -eu
cd "$(dirname "$0")/../.."
make --no-print-directory build/bench-sampler >/dev/null
./build/bench-sampler "${1:-2000}" 1 50
