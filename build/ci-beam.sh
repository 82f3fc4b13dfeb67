#!/usr/bin/env bash
# CI for the separate Go module beam/ (Apache Beam transforms and the manifold-beam command):
# vet and test it on the in-process prism runner (offline; the module cache comes from the Go
# module proxy). The Beam SDK's first compile is long (about 7 min on 2 busy cores; cached after);
# the tests use small data and take about a minute once compiled.
# Usage: bash build/ci-beam.sh    (BEAM_RACE=unit or full: more of the module under -race, below)
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
timed go vet -tags beam_unit .   # the test files that build without prism (the race step's)

step "beam: tests on the prism runner"
timed go test ./...

# The race detector. The module's one piece of state shared between goroutines (the per-process
# model cache of Project, internal/modelcache) imports nothing of Beam: its test runs under -race
# in seconds. The rest is not in the default CI: the prism tests of a failed or cancelled job trip
# data races inside the Beam SDK (beam/README.md, "Race detector"), and a race build of anything
# that imports the SDK compiles it again with -race (about 4.5 min on 2 busy cores, cold).
# BEAM_RACE=unit adds the tests that call the DoFns and CombineFns directly (-tags beam_unit, no
# prism: race-clean); BEAM_RACE=full adds every test but the four that run failing jobs.
step "beam: race detector (internal/modelcache${BEAM_RACE:+; $BEAM_RACE})"
timed go test -race -count=1 ./internal/...
case "${BEAM_RACE:-}" in
  "") ;;
  unit) timed go test -race -count=1 -tags beam_unit . ;;
  full) timed go test -race -short -count=1 \
          -skip 'TestFailedPipelineLeavesNoCompleteOutput|TestCancelledPipelineLeavesNoCompleteOutput|TestFitLSITooWide|TestFitLSIWideCommand' ./... ;;
  *) echo "BEAM_RACE=$BEAM_RACE: want unit or full"; exit 1 ;;
esac
echo
echo "ci-beam: all steps passed"
