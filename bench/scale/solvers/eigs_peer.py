#!/usr/bin/python3
"""Times scipy.sparse.linalg.eigsh (ARPACK) on the dense benchmark matrices.

    /usr/bin/python3 bench/scale/solvers/eigs_peer.py MATDIR [reps]

For each case prints one line: case, k, tol, best seconds over reps, matrix
products, and the largest relative residual max ||A y - theta y|| / ||A||_2
of the eigenpairs returned (computed after timing). ARPACK's test is
||r|| <= tol*|theta| with tol = machine epsilon when tol = 0.
"""
import os
import sys
import time

import numpy as np
from scipy.sparse.linalg import LinearOperator, eigsh

def run(name, a, k, tol, reps):
    n = a.shape[0]
    count = [0]

    def mv(x):
        count[0] += 1
        return a @ x

    op = LinearOperator((n, n), matvec=mv, dtype=np.float64)
    best, w, v = 1e30, None, None
    for r in range(reps):
        count[0] = 0
        v0 = np.random.default_rng(r).standard_normal(n)
        t0 = time.perf_counter()
        w, v = eigsh(op, k=k, which="LA", tol=tol, v0=v0)
        best = min(best, time.perf_counter() - t0)
    anorm = np.max(np.abs(eigsh(a, k=1, which="LM", return_eigenvectors=False)))
    res = np.linalg.norm(a @ v - v * w, axis=0) / anorm
    print("scipy eigsh %-10s k=%-3d tol=%-8.2g %.3f s  %4d matvecs  max rel residual %.2e  min eig %.6g" %
          (name, k, tol, best, count[0], res.max(), w.min()), flush=True)


def main():
    d = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    only = sys.argv[3:]  # optional case names
    # eigsh's default tol = 0 (machine precision, relative to |theta|),
    # tol = 3.7e-11, the number package lanczos uses by default (relative
    # to ||A||, so never stricter than eigsh at the same number), and for
    # tau tol = 1e-9, where eigsh's residuals (9e-11) are about lanczos'
    # (3e-11) and it needs as many products.
    cases = [("tau5000", 2, 0.0), ("tau5000", 10, 0.0), ("tau5000", 10, 3.7e-11), ("tau5000", 10, 1e-9),
             ("random5000", 10, 0.0), ("random5000", 10, 3.7e-11)]
    loaded = {}
    for name, k, tol in cases:
        if only and name not in only:
            continue
        if name not in loaded:
            loaded = {name: np.load(os.path.join(d, name + ".npy"))}
        run(name, loaded[name], k, tol, reps)


if __name__ == "__main__":
    main()
