#!/bin/sh
# Side-by-side runs of packages lanczos and lsqr against scipy (eigsh,
# lsqr) on the same dense matrices, on this machine, alternating the peers
# for ROUNDS rounds under the shared benchmark lock (compare the best of
# each). Run from the repository root:
#
#   sh bench/scale/solvers/run.sh [MATDIR] [ROUNDS]
#
# Needs Debian's /usr/bin/python3 (numpy, scipy, sklearn) and, for the
# OpenBLAS build, libopenblas-dev and liblapacke-dev (build/install-openblas.sh).
set -eu
DIR=${1:-/tmp/manifold-solvers-bench}
ROUNDS=${2:-3}
LOCK=/tmp/manifold-bench.lock
PY=/usr/bin/python3
HERE=bench/scale/solvers

$PY $HERE/make_matrices.py "$DIR"
go build -o "$DIR/solvers-purego" ./$HERE
go build -tags openblas -o "$DIR/solvers-openblas" ./$HERE

echo "# $(date -u) $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	echo "## round $r"
	flock $LOCK $PY $HERE/eigs_peer.py "$DIR" 1
	for bin in solvers-purego solvers-openblas; do
		flock $LOCK "$DIR/$bin" -dir "$DIR" -mode eigs -case tau5000 -k 2 -reps 3
		flock $LOCK "$DIR/$bin" -dir "$DIR" -mode eigs -case tau5000 -k 10 -reps 3
		flock $LOCK "$DIR/$bin" -dir "$DIR" -mode eigs -case random5000 -k 10 -reps 1
	done
	flock $LOCK $PY $HERE/lsqr_peer.py "$DIR" 3 many
	for bin in solvers-purego solvers-openblas; do
		flock $LOCK "$DIR/$bin" -dir "$DIR" -mode lsqr -rhs 1 -reps 3
		flock $LOCK "$DIR/$bin" -dir "$DIR" -mode lsqr -rhs 1 -damp 1 -reps 3
		flock $LOCK "$DIR/$bin" -dir "$DIR" -mode lsqr -rhs 10 -reps 1
	done
	r=$((r + 1))
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
