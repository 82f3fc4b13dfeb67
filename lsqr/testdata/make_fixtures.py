#!/usr/bin/python3
"""Makes scipy_lsqr.json: scipy.sparse.linalg.lsqr on Paige and Saunders'
test problems, the reference for the iteration counts and estimates of
package lsqr.

Run from the repository root with Debian's /usr/bin/python3 (scipy 1.10.1):

    /usr/bin/python3 lsqr/testdata/make_fixtures.py

The problems follow Paige and Saunders, "LSQR: An algorithm for sparse
linear equations and sparse least squares", ACM TOMS 8(1), 1982, section 8:
A = Y D Z with Householder reflections Y = I - 2yy^T, Z = I - 2zz^T
(y_i = sin(4 pi i/m), z_j = cos(4 pi j/n), normalized) and D diagonal with
singular values d_k = (floor((k-1)/ndup) + 1)^npow, k = 1..min(m,n)
(each repeated ndup times; cond(A) = (min(m,n)/ndup)^npow). The right-hand
side is b = A x0 + r with x0_j = (n - j + 1)/n and, for an incompatible
system (m > n), r = Y c with c_i = 0 for i <= n and (-1)^i i/m after, so
that r is orthogonal to the range of A. The Go test builds the same A and b
and knows the exact (damped) solution x = Z_p diag(d/(d^2 + damp^2)) (Y^T b)_p.
"""
import json
import os

import numpy as np
from scipy.sparse.linalg import lsqr


def ps_problem(m, n, ndup, npow, compatible):
    i = np.arange(1, m + 1)
    j = np.arange(1, n + 1)
    y = np.sin(4 * np.pi * i / m)
    y /= np.linalg.norm(y)
    z = np.cos(4 * np.pi * j / n)
    z /= np.linalg.norm(z)
    Y = np.eye(m) - 2 * np.outer(y, y)
    Z = np.eye(n) - 2 * np.outer(z, z)
    p = min(m, n)
    d = (np.floor(np.arange(p) / ndup) + 1) ** npow
    D = np.zeros((m, n))
    D[np.arange(p), np.arange(p)] = d
    A = Y @ D @ Z
    x0 = (n - np.arange(n)) / n
    b = A @ x0
    if not compatible and m > n:
        c = np.zeros(m)
        k = np.arange(n + 1, m + 1)
        c[n:] = (-1.0) ** k * k / m
        b = b + Y @ c
    return A, b


# name, m, n, ndup, npow, compatible, damp, atol, btol, conlim, iter_lim
CASES = [
    ("square", 20, 20, 1, 1, True, 0.0, 1e-10, 1e-10, 1e8, None),
    ("overdetermined", 40, 20, 1, 1, False, 0.0, 1e-10, 1e-10, 1e8, None),
    ("cond100", 60, 30, 2, 2, False, 0.0, 1e-10, 1e-10, 1e8, None),
    ("cond100-compatible", 60, 30, 2, 2, True, 0.0, 1e-10, 1e-10, 1e8, None),
    ("clustered", 80, 40, 4, 1, False, 0.0, 1e-10, 1e-10, 1e8, None),
    ("damped", 60, 30, 2, 2, False, 0.5, 1e-10, 1e-10, 1e8, None),
    ("damped-strong", 40, 20, 1, 1, False, 5.0, 1e-10, 1e-10, 1e8, None),
    ("underdetermined", 20, 40, 1, 2, True, 0.0, 1e-10, 1e-10, 1e8, None),
    ("cond1e3", 100, 50, 5, 3, False, 0.0, 1e-8, 1e-8, 1e8, None),
    ("loose", 60, 30, 1, 2, False, 0.0, 1e-4, 1e-4, 1e8, None),
    ("conlim", 60, 30, 1, 2, False, 0.0, 1e-12, 1e-12, 50.0, None),
    ("iterlim", 60, 30, 1, 2, False, 0.0, 1e-12, 1e-12, 1e8, 7),
    ("eps", 40, 20, 1, 1, True, 0.0, 1e-20, 1e-20, 1e8, None),
]


def main():
    out = []
    for name, m, n, ndup, npow, compatible, damp, atol, btol, conlim, iter_lim in CASES:
        A, b = ps_problem(m, n, ndup, npow, compatible)
        x, istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm, _ = lsqr(
            A, b, damp=damp, atol=atol, btol=btol, conlim=conlim, iter_lim=iter_lim)
        out.append(dict(name=name, m=m, n=n, ndup=ndup, npow=npow, compatible=compatible,
                        damp=damp, atol=atol, btol=btol, conlim=conlim, iter_lim=iter_lim or 0,
                        istop=int(istop), itn=int(itn), r1norm=r1norm, r2norm=r2norm, anorm=anorm,
                        acond=acond, arnorm=arnorm, xnorm=xnorm, x=list(x)))
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "scipy_lsqr.json"), "w") as f:
        json.dump(dict(scipy=__import__("scipy").__version__, cases=out), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
