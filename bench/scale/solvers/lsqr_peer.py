#!/usr/bin/python3
"""Times scipy.sparse.linalg.lsqr on the dense LSQR benchmark problem.

    /usr/bin/python3 bench/scale/solvers/lsqr_peer.py MATDIR [reps] [many]

Prints, per case: damping, tolerances, best seconds over reps, iterations,
istop, and the seconds per iteration. Cases: one right-hand side without
and with damping, and (with "many") ten right-hand sides solved one after
the other (scipy has no block solver).
"""
import os
import sys
import time

import numpy as np
from scipy.sparse.linalg import lsqr


CASES = [(0.0, 1e-8), (1.0, 1e-8)]


def main():
    d = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    a = np.load(os.path.join(d, "lsqr5000x1000.npy"))
    b = np.load(os.path.join(d, "lsqr_b5000.npy"))
    rng = np.random.default_rng(3)
    # Nine more right-hand sides A x + e, as the Go program draws them (the
    # same distribution, not the same numbers).
    b10 = np.column_stack([b] + [a @ rng.standard_normal(a.shape[1]) + 1e-3 * rng.standard_normal(a.shape[0]) for _ in range(9)])
    for damp, tol in CASES:
        best, out = 1e30, None
        for _ in range(reps):
            t0 = time.perf_counter()
            out = lsqr(a, b, damp=damp, atol=tol, btol=tol, conlim=1e8, iter_lim=10000)
            best = min(best, time.perf_counter() - t0)
        x, istop, itn = out[0], out[1], out[2]
        print("scipy lsqr 5000x1000 rhs=1  damp=%g tol=%g: %.4f s  %d iterations  istop=%d  %.3f ms/iteration  r1norm=%.6e" %
              (damp, tol, best, itn, istop, 1e3 * best / itn, out[3]), flush=True)
        if len(sys.argv) > 3 and sys.argv[3] == "many" and damp == 0:
            best, its = 1e30, None
            for _ in range(1):  # 10 solves of about a second each
                t0 = time.perf_counter()
                its = [lsqr(a, b10[:, j], damp=damp, atol=tol, btol=tol, conlim=1e8, iter_lim=10000)[2] for j in range(10)]
                best = min(best, time.perf_counter() - t0)
            print("scipy lsqr 5000x1000 rhs=10 damp=%g tol=%g: %.4f s  iterations %s" % (damp, tol, best, its), flush=True)


if __name__ == "__main__":
    main()
