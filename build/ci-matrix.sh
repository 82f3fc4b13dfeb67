#!/usr/bin/env bash
# The CI tag matrix: vet both builds, run the README's full test command (MANIFOLD_TEST=full go test
# ./..., a superset of its quick `go test ./...`) for the pure-Go build with CGO_ENABLED=0 (and
# engine's assembly-free form, -tags noasm), again with -tags openblas (-short beyond backend/),
# then -race -short on the packages that start goroutines. -short is the quick tier whatever
# MANIFOLD_TEST says (internal/testmode).
# Usage: bash build/ci-matrix.sh   (the OpenBLAS packages must be installed: build/install-openblas.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }
timed() { local t0=$SECONDS; "$@"; echo "   ($((SECONDS - t0)) s)"; }

step "gofmt"
bad=$(gofmt -l $(git ls-files '*.go') 2>/dev/null || true)
[ -z "$bad" ] || { echo "gofmt would change:"; echo "$bad"; exit 1; }

step "go vet (pure Go and openblas)"
timed go vet ./...
# Only the packages with files of their own under the tag: every other package's files are the
# same in both builds (and the OpenBLAS test step below compiles them all against the cgo backend).
timed go vet -tags openblas $(grep -rl --include='*.go' -E '^//go:build.*openblas' --exclude-dir=beam . | xargs -n1 dirname | sort -u)
# The noasm and OpenBLAS test steps below run -vet=off: go test's own vet pass (a subset of the
# analyzers above, about 25 s of CPU a step) would check again files vetted here. The pure-Go step
# keeps it (the README's test command as written), and so does the race step: it is the one vet of
# the files built only under the race detector.

step "-tags openblas without cgo must not build"
if CGO_ENABLED=0 go build -tags openblas ./backend/ 2>/dev/null; then
  echo "the openblas tag built without cgo: it must fail"; exit 1
fi

step "tests, pure Go (CGO_ENABLED=0), the full tier (MANIFOLD_TEST=full)"
timed env CGO_ENABLED=0 MANIFOLD_TEST=full go test ./...

step "the assembly kernels' Go forms (-tags noasm): vet, and the tests that run them"
timed go vet -tags noasm ./engine/ ./engine/neighbors/ ./engine/internal/geodesic/
timed env CGO_ENABLED=0 MANIFOLD_TEST=full go test -vet=off -tags noasm -run 'SqDist8|MinPlus2|ExactSearch|GeodesicTable|Dots4|Index' ./engine/ ./engine/neighbors/ ./engine/internal/geodesic/

step "tests, OpenBLAS backend (-tags openblas): backend/ in full (MANIFOLD_TEST=full), the rest -short"
# The two backends differ in the dense kernels alone: backend/ (its conformance suite) runs in
# full; every other package runs -short, which skips or shrinks the tests that check results on
# large inputs (real-data protocols, reliability sweeps over every method) and says so in each
# skip message. The pure-Go step above runs them all; run them on this backend with
# `MANIFOLD_TEST=full go test -tags openblas ./...` (about 5 minutes on 2 cores with ../shared/data).
# Tests that check each backend in a subtest named after it (TestConformance, the TestEigRange ones)
# skip the pure-Go one here: the pure-Go step ran it.
timed env MANIFOLD_TEST=full go test -vet=off -tags openblas -skip '/^purego$' ./backend/...
# The rest, -short: every package but backend/, which the line above ran in full.
timed go test -vet=off -short -tags openblas $(go list ./... | grep -v -E '/backend(/|$)')

step "race detector on the packages that start goroutines"
# Packages whose non-test code starts goroutines or runs parallel loops (beam/ is its own module:
# build/ci-beam.sh tests it).
# Listed by the size of their tests, largest first: go test starts them in about that order, so the
# longest (engine: about 220 s under -race) starts first, not sixth behind short ones (this step alone,
# warm cache, -count=1, alternating, twice each: 329 and 316 s in name order, 311 and 305 s in this one).
race_pkgs=$(for d in $(grep -rl --include='*.go' -E 'go func|ParallelFor|sync\.WaitGroup' --exclude='*_test.go' --exclude-dir=beam . \
  | xargs -n1 dirname | sort -u); do echo "$(cat "$d"/*_test.go 2>/dev/null | wc -l) $d"; done \
  | sort -rn | awk '{print $2}' | sed 's|^\.|github.com/manifoldlab/manifold|')
# -short: tests that check results on large inputs (not concurrency) skip or shrink under it, each
# saying so; the pure-Go step above runs them in full.
timed go test -race -short $race_pkgs
echo
echo "ci-matrix: all steps passed"
