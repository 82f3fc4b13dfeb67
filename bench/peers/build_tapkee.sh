#!/usr/bin/env bash
# Builds tapkee (Lisitsyn, Widmer & Iglesias Garcia, "Tapkee: an efficient
# dimension reduction library", JMLR 14, 2013; https://github.com/lisitsyn/tapkee)
# from its public source OUTSIDE this repository, for the side-by-side runs
# of bench/peers/peers.py --tapkee. Nothing of tapkee is committed here.
#
#   bash bench/peers/build_tapkee.sh [SRC] [BUILD]
#
# SRC: a checkout of lisitsyn/tapkee (default /work/tapkee-src; cloned from
# GitHub when absent and the network allows); BUILD: the build folder
# (default /work/tapkee-build). The binary is SRC/bin/tapkee (tapkee's
# CMakeLists.txt puts it there).
# Needs Debian's cmake libeigen3-dev libfmt-dev libcxxopts-dev libarpack2-dev
# (installed when missing and apt-get is allowed). Release build, -O3
# -march=native, OpenMP and ARPACK found by tapkee's own CMake files.
set -euo pipefail
SRC=${1:-/work/tapkee-src}
BUILD=${2:-/work/tapkee-build}
need=()
for p in cmake libeigen3-dev libfmt-dev libcxxopts-dev libarpack2-dev; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
	apt-get install -y "${need[@]}"
fi
if [ ! -f "$SRC/CMakeLists.txt" ]; then
	git clone --depth 1 https://github.com/lisitsyn/tapkee "$SRC"
fi
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-O3 -march=native" -DBUILD_TESTS=OFF
cmake --build "$BUILD" -j "$(nproc)" --target tapkee
echo "built $SRC/bin/tapkee (source $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown))"
