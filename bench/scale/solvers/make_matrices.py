#!/usr/bin/python3
"""Writes the dense test matrices of the solver benchmarks as .npy files.

Run with Debian's /usr/bin/python3 (numpy 1.24, scipy 1.10.1, sklearn 1.2.1):

    /usr/bin/python3 bench/scale/solvers/make_matrices.py OUTDIR [N]

OUTDIR/tau{N}.npy     tau(D_G) = -1/2 H S H, S the squared geodesic distances
                      of the first N USPS digits (../shared/data/usps9298) on
                      their 10-nearest-neighbour graph (OR rule), as Isomap
                      and Isometric Projection build it.
OUTDIR/random{N}.npy  (G + G^T)/2 with G standard normal, numpy seed 42.
OUTDIR/lsqr{M}x{K}.npy and lsqr_b{M}.npy for the LSQR benchmark: a dense
                      M x K Gaussian matrix with a geometric column scaling
                      (column scales from 1 to 10^-1.5) and a right-hand side b = A x + e.
The matrices are not part of the repository (200 MB each at N = 5000).
"""
import os
import sys

import numpy as np
from scipy.sparse.csgraph import shortest_path, connected_components
from sklearn.neighbors import kneighbors_graph

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "..", "shared", "data", "usps9298")
if not os.path.isdir(DATA):
    DATA = "/work/shared/data/usps9298"


def tau(n, k=10):
    x = np.load(os.path.join(DATA, "usps9298_X.npy")).astype(np.float64)[:n]
    g = kneighbors_graph(x, k, mode="distance")
    g = g.maximum(g.T)  # OR rule
    ncomp, _ = connected_components(g, directed=False)
    if ncomp != 1:
        raise SystemExit("kNN graph has %d components" % ncomp)
    d = shortest_path(g, method="D", directed=False)
    s = d * d
    r = s.mean(axis=1)
    return -0.5 * (s - r[:, None] - r[None, :] + r.mean())


def random_sym(n):
    rng = np.random.default_rng(42)
    g = rng.standard_normal((n, n))
    return 0.5 * (g + g.T)


def lsqr_problem(m, k):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)) * np.logspace(0, -1.5, k)[None, :]
    x = rng.standard_normal(k)
    b = a @ x + 1e-3 * rng.standard_normal(m)
    return a, b


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    os.makedirs(out, exist_ok=True)
    p = os.path.join(out, "tau%d.npy" % n)
    if not os.path.exists(p):
        np.save(p, tau(n))
    p = os.path.join(out, "random%d.npy" % n)
    if not os.path.exists(p):
        np.save(p, random_sym(n))
    m, k = 5000, 1000
    p = os.path.join(out, "lsqr%dx%d.npy" % (m, k))
    if not os.path.exists(p):
        a, b = lsqr_problem(m, k)
        np.save(p, a)
        np.save(os.path.join(out, "lsqr_b%d.npy" % m), b)


if __name__ == "__main__":
    main()
