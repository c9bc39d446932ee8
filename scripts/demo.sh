#!/bin/sh
# `make demo`: the main job on the bundled workload.  tidemark bench runs
# examples/churn (a node syncing a chain) under glibc as shipped, one glibc
# arena and jemalloc, three runs each in fresh 512 MiB cgroups, and prints
# which survive, their peaks, what they hold afterwards, time and CPU.
set -eu
cd "$(dirname "$0")/.."
exec sh scripts/demo-bench.sh "$@"
