#!/usr/bin/env bash
# Alternating runs of tapkee and two builds of bench/peers/gorun on the same
# swiss rolls, each run under the timing lock, for ratios on a noisy machine
# (bench/RESULTS.md, peers-tapkee). Prints one line per repetition with the
# fit seconds each tool reports.
#
#   bash bench/peers/alternate.sh TAPKEE GORUN_BEFORE GORUN_NOW [REPS] [SIZES] [METHODS]
#
# TAPKEE: the binary bench/peers/build_tapkee.sh builds; GORUN_*: `go build
# -o FILE ./bench/peers/gorun` at the two commits compared. The inputs are
# make_swiss_roll(N, noise=0.05, random_state=0) written to /tmp/rollN.npy
# (made here when missing; Debian's python3-sklearn). k = 10, d = 2.
set -euo pipefail
TK=$1 BEFORE=$2 NOW=$3
REPS=${4:-4}
SIZES=${5:-"10000 50000"}
METHODS=${6:-"lle ltsa laplacian"}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOCK=/tmp/manifold-bench.lock
secs() { /usr/bin/python3 -c "import json,sys; print('%.3f' % json.loads(sys.stdin.read())['seconds'])"; }
for n in $SIZES; do
	x=/tmp/roll$n.npy
	[ -f "$x" ] || /usr/bin/python3 -c "
import numpy as np
from sklearn.datasets import make_swiss_roll
np.save('$x', make_swiss_roll($n, noise=0.05, random_state=0)[0])"
	for m in $METHODS; do
		for rep in $(seq "$REPS"); do
			# Each output is read whole before it is parsed: a parser started
			# beside a timed fit (as "cmd | secs" does) takes a core from it.
			tk=$(flock $LOCK /usr/bin/python3 "$ROOT/bench/peers/tk_run.py" "$TK" "$m" "$x" /tmp/alt-tk.npy 10 2)
			b=$(flock $LOCK "$BEFORE" -method "$m" -in "$x" -out /tmp/alt-b.npy -k 10 -dim 2)
			a=$(flock $LOCK "$NOW" -method "$m" -in "$x" -out /tmp/alt-a.npy -k 10 -dim 2)
			tk=$(secs <<<"$tk")
			b=$(secs <<<"$b")
			a=$(secs <<<"$a")
			echo "$m $n rep$rep tapkee $tk before $b now $a"
		done
	done
done
