#!/usr/bin/env python3
"""Fill of SuiteSparse AMD (Amestoy, Davis & Duff 1996; cvxopt.amd.order,
Debian's python3-cvxopt) on the matrices of sparse's TestLDLAMDAgainstSuiteSparse:
the 60x60 grid's 5-point pattern, and the 9-point "LLE" pattern of an 80x80
lattice (the union of the cliques of every vertex and its 8 lattice
neighbours). It prints the entries of the Cholesky factor strictly below the
diagonal under SuiteSparse's order, counted by SuperLU with natural column
order and diagonal pivots (the matrices are diagonally dominant).

    /usr/bin/python3 sparse/testdata/make_amd_fill.py
"""
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu
from cvxopt import spmatrix, amd


def grid(r, c):
    rows, cols = [], []
    for i in range(r):
        for j in range(c):
            v = i * c + j
            if i + 1 < r:
                rows += [v, v + c]
                cols += [v + c, v]
            if j + 1 < c:
                rows += [v, v + 1]
                cols += [v + 1, v]
    n = r * c
    a = sp.coo_matrix((-np.ones(len(rows)), (rows, cols)), shape=(n, n)).tocsr()
    return a + sp.identity(n) * 10


def lattice_cliques(r, c):
    rows, cols = [], []
    for i in range(r):
        for j in range(c):
            cl = [(i + di) * c + (j + dj) for di in (-1, 0, 1) for dj in (-1, 0, 1)
                  if 0 <= i + di < r and 0 <= j + dj < c]
            for u in cl:
                for v in cl:
                    rows.append(u)
                    cols.append(v)
    n = r * c
    a = sp.coo_matrix((-np.ones(len(rows)) * 0.01, (rows, cols)), shape=(n, n)).tocsr()
    return a + sp.identity(n) * 10


def fill(a):
    n = a.shape[0]
    coo = a.tocoo()
    low = coo.row >= coo.col
    m = spmatrix(coo.data[low].tolist(), coo.row[low].tolist(), coo.col[low].tolist(), (n, n))
    perm = np.array(list(amd.order(m)), dtype=int)
    p = a[perm][:, perm].tocsc()
    lu = splu(p, permc_spec="NATURAL", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
    assert np.array_equal(lu.perm_r, np.arange(n))
    return lu.L.nnz - n


print("grid 60x60:", fill(grid(60, 60)))
print("lattice cliques 80x80:", fill(lattice_cliques(80, 80)))
