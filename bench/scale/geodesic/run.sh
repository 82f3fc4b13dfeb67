#!/usr/bin/env bash
# Side-by-side run: the Go all-pairs geodesics and scipy's Dijkstra on the
# same k=10 OR graph of a 10,000-point swiss roll, each under the timing
# lock of CONTRIBUTING.md. Usage: bash bench/scale/geodesic/run.sh [n] [k]
set -euo pipefail
cd "$(dirname "$0")/../../.."
n=${1:-10000}
k=${2:-10}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/geodesic" ./bench/scale/geodesic
flock /tmp/manifold-bench.lock "$out/geodesic" -n "$n" -k "$k" -reps 3 -mtx "$out/roll.mtx"
flock /tmp/manifold-bench.lock "$out/geodesic" -graph "$out/roll.mtx" -reps 2 -f32 -squared
flock /tmp/manifold-bench.lock /usr/bin/python3 bench/scale/geodesic/scipy_shortest_path.py "$out/roll.mtx"
# What scikit-learn's Isomap calls (directed=False, slower in scipy).
flock /tmp/manifold-bench.lock /usr/bin/python3 bench/scale/geodesic/scipy_shortest_path.py "$out/roll.mtx" --undirected
