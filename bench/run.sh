#!/bin/sh
# make bench: every benchmark in bench/, one after the other (about 15 min;
# root for the cgroups).  Each prints its own table; bench/README.md has the
# figures and what they mean.
set -eu
cd "$(dirname "$0")/.."
echo "== recorder vs atop"; python3 bench/record/run.py --seconds 20
echo "== sampler"; sh bench/sampler/run.sh
echo "== heap shim"; sh bench/heap/run.sh 3000000 7
echo "== bench rig"; sh bench/rig/run.sh 8
echo "== server"; sh bench/serve/run.sh
echo "== scrape"; sh bench/scrape/run.sh 30
