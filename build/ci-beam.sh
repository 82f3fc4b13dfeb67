#!/usr/bin/env bash
# CI for the separate Go module beam/ (Apache Beam transforms and the manifold-beam command):
# vet and test it on the in-process prism runner (offline; the module cache comes from the Go
# module proxy). The Beam SDK's first compile is long (about 7 min on 2 busy cores; cached after);
# the tests use small data and take about a minute once compiled.
# Usage: bash build/ci-beam.sh
set -euo pipefail
cd "$(dirname "$0")/../beam"

step() { printf '\n== %s\n' "$*"; }
timed() { local t0=$SECONDS; "$@"; echo "   ($((SECONDS - t0)) s)"; }

step "beam: gofmt"
bad=$(gofmt -l . 2>/dev/null || true)
[ -z "$bad" ] || { echo "gofmt would change:"; echo "$bad"; exit 1; }

step "beam: go mod verify, go vet"
timed go mod verify
timed go vet ./...

step "beam: tests on the prism runner"
timed go test ./...
echo
echo "ci-beam: all steps passed"
