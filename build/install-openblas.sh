#!/usr/bin/env bash
# Installs what the OpenBLAS backend (-tags openblas) needs on Debian/Ubuntu and checks the
# toolchain: Go ≥ 1.24, a C compiler for cgo, pkg-config finding openblas and lapacke.
# Usage: bash build/install-openblas.sh        (as root, or with sudo available)
set -euo pipefail

SUDO=
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "install-openblas: need root or sudo to run apt-get" >&2; exit 1
  fi
fi

if ! pkg-config --exists openblas lapacke 2>/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends libopenblas-dev liblapacke-dev pkg-config gcc >/dev/null
fi

fail() { echo "install-openblas: $*" >&2; exit 1; }
command -v go >/dev/null || fail "go not found on PATH (need Go ≥ 1.24)"
gover=$(go env GOVERSION | sed 's/^go//')
major=${gover%%.*}; rest=${gover#*.}; minor=${rest%%.*}
{ [ "$major" -gt 1 ] || [ "$minor" -ge 24 ]; } || fail "Go $gover is too old (need ≥ 1.24)"
command -v "$(go env CC)" >/dev/null || fail "C compiler $(go env CC) not found (cgo needs gcc)"
pkg-config --exists openblas || fail "pkg-config cannot find openblas (libopenblas-dev)"
pkg-config --exists lapacke || fail "pkg-config cannot find lapacke (liblapacke-dev)"
echo "install-openblas: go $gover, $(go env CC), openblas $(pkg-config --modversion openblas), lapacke $(pkg-config --modversion lapacke)"
