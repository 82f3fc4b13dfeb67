#!/usr/bin/python3
"""tapkee's side of the peer comparison (bench/peers/peers.py --tapkee): one
fit per process. tapkee is built outside the repository
(bench/peers/build_tapkee.sh); this wrapper writes the input as CSV (not
timed), runs the tapkee command with --benchmark, and prints one JSON line
with the seconds tapkee itself reports for the whole embedding ("[+]
embedding with … took S seconds", wall clock by omp_get_wtime; reading the
CSV and writing the result are not counted), as the other runners do.

    tk_run.py TAPKEE METHOD X.npy Y.npy [K] [DIM]

Methods (manifold's names → tapkee's), with tapkee's defaults otherwise:
vp-tree neighbours (--nm vptree), ARPACK eigensolver (--em arpack):
  lle        locally_linear_embedding
  ltsa       local_tangent_space_alignment
  laplacian  laplacian_eigenmaps (heat kernel of width 1, tapkee's default)
  isomap     isomap
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

METHODS = {"lle": "locally_linear_embedding", "ltsa": "local_tangent_space_alignment",
           "laplacian": "laplacian_eigenmaps", "isomap": "isomap"}


def main():
    tapkee, method, xpath, ypath = sys.argv[1:5]
    k = sys.argv[5] if len(sys.argv) > 5 else "10"
    dim = sys.argv[6] if len(sys.argv) > 6 else "2"
    if method not in METHODS:
        print(json.dumps({"error": "tapkee runner: no method " + method}))
        return
    x = np.load(xpath)
    with tempfile.TemporaryDirectory() as tmp:
        xin, yout = os.path.join(tmp, "x.csv"), os.path.join(tmp, "y.csv")
        np.savetxt(xin, x, delimiter=",", fmt="%.17g")
        p = subprocess.run([tapkee, "--input-file", xin, "--output-file", yout, "--method", METHODS[method],
                            "--neighbors-method", "vptree", "--eigen-method", "arpack",
                            "--num-neighbors", k, "--target-dimension", dim, "--benchmark"], capture_output=True, text=True)
        out = p.stdout + p.stderr
        m = re.search(r"embedding with .* took ([0-9.eE+-]+) seconds", out)
        if p.returncode != 0 or not m:
            print(json.dumps({"error": "tapkee exit %d: %s" % (p.returncode, out.strip()[-300:])}))
            return
        y = np.loadtxt(yout, delimiter=",", ndmin=2)
        if y.shape[0] != x.shape[0] and y.shape[1] == x.shape[0]:
            y = y.T
        np.save(ypath, y)
    print(json.dumps({"seconds": float(m.group(1))}))


if __name__ == "__main__":
    main()
