#!/usr/bin/python3
"""The bottom of LLE's matrix M = (I - W)^T (I - W) on deformed digits, measured with scikit-learn and scipy.

Why LLE on 10^6 deformed USPS digits has no eigensolver here that meets issue 13's 10 minutes: this script
builds scikit-learn's reconstruction weights (barycenter_kneighbors_graph, reg * trace(G) as the engine does),
then reports

  spectrum: lambda_max and the six smallest eigenvalues of M (scipy's eigsh in shift-invert mode, SuperLU),
            each relative to lambda_max, and the gap ratio (lambda_3 - lambda_2) / lambda_max that sets how many
            Krylov steps a factorization-free eigensolver needs;
  lobpcg:   scipy's LOBPCG for the 5 smallest pairs orthogonal to the constant vector, with and without a
            preconditioner: a smoothed-aggregation multigrid V-cycle built here (aggregates of the symmetrized
            kNN graph on the first level, of the strength graph of M below; damped Jacobi scaled by
            rho(D^-1 A); a pseudo-inverse on the coarsest level). pyamg is not packaged in Debian 12.
  landmarks: the engine's EigenLOBPCG in scipy: LOBPCG for a block of --block pairs started from locally linear
            landmarks' solution (--landmarks L random rows, each point from its 3 nearest, LLE weights) and
            preconditioned by T = Z (Z^T M Z)^+ Z^T + diag(M)^-1 (--prec twolevel) or not at all (--prec none);
            prints the iteration at which the first two residuals fall below each threshold (absolute: scipy's
            residual of a unit vector; the engine's 1e-9 * ||M|| is about 7e-9 on the digits).

Usage (Debian's /usr/bin/python3 with python3-sklearn):
  /usr/bin/python3 bench/scale/llespectrum/llespectrum.py spectrum --in /tmp/d20k.npy --n 5000 --k 10,20,40
  /usr/bin/python3 bench/scale/llespectrum/llespectrum.py lobpcg --in /tmp/d100k.npy --n 100000
  /usr/bin/python3 bench/scale/llespectrum/llespectrum.py landmarks --in /tmp/d100k.npy --n 100000 [--prec none]
where the input is gendata's deformed digits (`go run ./bench/scale/gendata -kind digits -n 100000 -dim 256`).
"""
import argparse
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, eigsh, lobpcg
from sklearn.manifold._locally_linear import barycenter_kneighbors_graph


def lle_matrix(x, k, reg):
    w = barycenter_kneighbors_graph(x, k, reg=reg, n_jobs=2)
    a = sp.identity(x.shape[0], format="csr") - w
    return (a.T @ a).tocsr(), w


def spectrum(x, ks, regs):
    for k in ks:
        for reg in regs:
            m, _ = lle_matrix(x, k, reg)
            lmax = eigsh(m, k=1, which="LM", return_eigenvectors=False)[0]
            t = time.time()
            low = np.sort(eigsh(m.tocsc(), k=6, sigma=-1e-6 * lmax, which="LM", return_eigenvectors=False))
            print(f"n={x.shape[0]} k={k} reg={reg:g} lambda_max={lmax:.3g} "
                  f"bottom/lambda_max={' '.join(f'{v / lmax:.2g}' for v in low)} "
                  f"gap ratio={(low[2] - low[1]) / lmax:.2g} ({time.time() - t:.1f} s)", flush=True)


def aggregate(s):
    """Greedy aggregation: roots whose neighbours are all free, then the rest joins a neighbour's aggregate."""
    n = s.shape[0]
    agg = -np.ones(n, dtype=np.int64)
    count = 0
    for i in range(n):
        nb = s.indices[s.indptr[i]:s.indptr[i + 1]]
        if agg[i] < 0 and np.all(agg[nb] < 0):
            agg[i] = count
            agg[nb] = count
            count += 1
    for i in range(n):
        if agg[i] >= 0:
            continue
        nb = agg[s.indices[s.indptr[i]:s.indptr[i + 1]]]
        nb = nb[nb >= 0]
        if len(nb):
            agg[i] = nb[0]
        else:
            agg[i] = count
            count += 1
    return agg, count


def hierarchy(m, graph, theta=0.25, coarsest=300):
    levels, a = [], m
    while a.shape[0] > coarsest:
        d = a.diagonal()
        if graph is not None:
            s, graph = graph, None
        else:
            c = a.tocoo()
            keep = (c.row != c.col) & (np.abs(c.data) >= theta * np.sqrt(np.abs(d[c.row] * d[c.col])))
            s = sp.csr_matrix((np.ones(keep.sum()), (c.row[keep], c.col[keep])), shape=a.shape)
        agg, count = aggregate(s)
        if count >= a.shape[0]:
            break
        t = sp.csr_matrix((np.ones(a.shape[0]), (np.arange(a.shape[0]), agg)), shape=(a.shape[0], count))
        t = t.multiply(1 / np.sqrt(np.asarray(t.sum(0)).ravel())).tocsr()
        dinv = 1 / d
        rho = abs(eigsh(sp.diags(dinv) @ a, k=1, which="LM", return_eigenvectors=False, tol=1e-2)[0])
        p = (t - (4 / 3 / rho) * sp.diags(dinv) @ (a @ t)).tocsr()
        coarse = (p.T @ a @ p).tocsr()
        print(f"level {a.shape[0]} rows, {a.nnz} entries -> {count} rows, {coarse.nnz} entries", flush=True)
        levels.append((a, p, dinv / rho))
        a = coarse
    return levels, np.linalg.pinv(a.toarray())


def vcycle(levels, coarse_inv, b, level=0):
    if level == len(levels):
        return coarse_inv @ b
    a, p, wd = levels[level]
    wd = wd[:, None] if b.ndim == 2 else wd
    x = wd * b
    x = x + wd * (b - a @ x)
    x = x + p @ vcycle(levels, coarse_inv, p.T @ (b - a @ x), level + 1)
    for _ in range(2):
        x = x + wd * (b - a @ x)
    return x


def run_lobpcg(x, k, reg, tol, maxiter, plain):
    t = time.time()
    m, w = lle_matrix(x, k, reg)
    n = m.shape[0]
    print(f"M: {n} rows, {m.nnz} entries ({time.time() - t:.1f} s)", flush=True)
    t = time.time()
    g = ((w != 0) + (w != 0).T).tocsr()
    g.setdiag(0)
    g.eliminate_zeros()
    levels, coarse_inv = hierarchy(m, g)
    print(f"hierarchy {time.time() - t:.1f} s", flush=True)
    prec = LinearOperator(m.shape, matvec=lambda v: vcycle(levels, coarse_inv, v),
                          matmat=lambda v: vcycle(levels, coarse_inv, v))
    y0 = np.random.default_rng(0).standard_normal((n, 5))
    constant = np.ones((n, 1)) / np.sqrt(n)
    for name, pre in [("multigrid", prec)] + ([("none", None)] if plain else []):
        t = time.time()
        vals, _, hist = lobpcg(m, y0, M=pre, Y=constant, largest=False, tol=tol, maxiter=maxiter,
                               retResidualNormsHistory=True)
        print(f"LOBPCG, preconditioner {name}: {len(hist)} iterations, eigenvalues {np.array2string(vals, precision=4)}, "
              f"last residuals {np.array2string(hist[-1], precision=2)} ({time.time() - t:.1f} s)", flush=True)


def run_landmarks(x, k, reg, landmarks, block, prec, maxiter):
    from sklearn.neighbors import NearestNeighbors
    from sklearn.manifold._locally_linear import barycenter_weights
    import scipy.linalg as sl
    t = time.time()
    m, _ = lle_matrix(x, k, reg)
    n = m.shape[0]
    lm = np.sort(np.random.default_rng(0).choice(n, landmarks, replace=False))
    ind = NearestNeighbors(n_neighbors=3).fit(x[lm]).kneighbors(x, return_distance=False)
    z = sp.csr_matrix((barycenter_weights(x, x[lm], ind, reg=reg).ravel(), ind.ravel(), np.arange(0, 3 * n + 1, 3)),
                      shape=(n, landmarks))
    ac, bc = (z.T @ (m @ z)).toarray(), (z.T @ z).toarray()
    y0 = z @ sl.eigh(ac, bc)[1][:, 1:block + 1]
    acp, dinv = np.linalg.pinv(ac, hermitian=True), 1 / m.diagonal()

    def apply(r):
        r2 = r if r.ndim == 2 else r[:, None]
        out = z @ (acp @ (z.T @ r2)) + dinv[:, None] * r2
        return out if r.ndim == 2 else out[:, 0]
    t_prec = LinearOperator(m.shape, matvec=apply, matmat=apply) if prec == "twolevel" else None
    print(f"M and the landmarks: {time.time() - t:.1f} s", flush=True)
    t = time.time()
    vals, _, hist = lobpcg(m, y0, M=t_prec, Y=np.ones((n, 1)) / np.sqrt(n), largest=False, tol=1e-14,
                           maxiter=maxiter, retResidualNormsHistory=True)
    res = np.array([np.asarray(r)[:2] for r in hist]).max(1)
    print(f"LOBPCG, block {block}, preconditioner {prec}: {len(hist)} iterations ({time.time() - t:.1f} s), "
          f"eigenvalues {np.array2string(np.sort(vals)[:2], precision=6)}", flush=True)
    for thr in [1e-4, 1e-6, 1e-8, 7e-9, 1e-9]:
        below = np.where(res < thr)[0]
        print(f"  first two residuals < {thr:g}: iteration {below[0] if len(below) else None}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["spectrum", "lobpcg", "landmarks"])
    ap.add_argument("--in", dest="path", required=True)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--k", default="10")
    ap.add_argument("--reg", default="1e-3")
    ap.add_argument("--tol", type=float, default=1e-7)
    ap.add_argument("--maxiter", type=int, default=500)
    ap.add_argument("--plain", action="store_true", help="also run LOBPCG without a preconditioner")
    ap.add_argument("--landmarks", type=int, default=1000)
    ap.add_argument("--block", type=int, default=6)
    ap.add_argument("--prec", choices=["twolevel", "none"], default="twolevel")
    args = ap.parse_args()
    x = np.ascontiguousarray(np.load(args.path, mmap_mode="r")[:args.n])
    ks = [int(v) for v in args.k.split(",")]
    regs = [float(v) for v in args.reg.split(",")]
    if args.what == "spectrum":
        spectrum(x, ks, regs)
    elif args.what == "lobpcg":
        run_lobpcg(x, ks[0], regs[0], args.tol, args.maxiter, args.plain)
    else:
        run_landmarks(x, ks[0], regs[0], args.landmarks, args.block, args.prec, args.maxiter)


if __name__ == "__main__":
    main()
