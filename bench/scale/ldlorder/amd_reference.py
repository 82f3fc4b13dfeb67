#!/usr/bin/env python3
"""Independent check of the orderings measured by bench/scale/ldlorder.

For every matrix A.mtx that `ldlorder -write DIR` wrote, and every ordering
A.<name>.perm beside it (0-based, new -> old), it counts the entries of the
Cholesky factor of P A P^T strictly below the diagonal with SuperLU
(scipy.sparse.linalg.splu: natural column order, diagonal pivots, symmetric
mode; the matrices are diagonally dominant, so no pivot moves), and does
the same for SuiteSparse's AMD (Amestoy, Davis & Duff; cvxopt.amd.order,
Debian's python3-cvxopt) on the same pattern. Our symbolic count
(sparse.LDLAnalysis.NNZ) should equal the SuperLU count of our own
permutations, and our AMD's fill should be close to SuiteSparse's.

    /usr/bin/python3 bench/scale/ldlorder/amd_reference.py DIR
"""
import glob
import os
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.sparse.linalg import splu
from cvxopt import spmatrix, amd


def fill(a, perm):
    p = a[perm][:, perm].tocsc()
    lu = splu(p, permc_spec="NATURAL", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
    if not np.array_equal(lu.perm_r, np.arange(a.shape[0])):
        raise SystemExit("SuperLU moved a pivot: the count is not the Cholesky fill")
    return lu.L.nnz - a.shape[0]


def main():
    d = sys.argv[1]
    print("| matrix | n | ordering | nnz(L), SuperLU count | time of the ordering (s) |")
    print("|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(d, "*.mtx"))):
        a = scipy.io.mmread(path).tocsr()
        n = a.shape[0]
        name = os.path.basename(path)[:-4]
        for pp in sorted(glob.glob(os.path.join(d, name + ".*.perm"))):
            perm = np.loadtxt(pp, dtype=int)
            print(f"| {name} | {n} | manifold {pp.split('.')[-2]} | {fill(a, perm)} | |", flush=True)
        coo = a.tocoo()
        low = coo.row >= coo.col
        m = spmatrix(coo.data[low].tolist(), coo.row[low].tolist(), coo.col[low].tolist(), (n, n))
        t0 = time.time()
        perm = np.array(list(amd.order(m)), dtype=int)
        t = time.time() - t0
        print(f"| {name} | {n} | SuiteSparse AMD (cvxopt) | {fill(a, perm)} | {t:.3f} |", flush=True)


if __name__ == "__main__":
    main()
