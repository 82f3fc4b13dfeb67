#!/usr/bin/python3
"""Make the lasso / elastic-net fixtures of package admm with scikit-learn.

Run with Debian's Python (scikit-learn 1.2.1, numpy 1.24):

    /usr/bin/python3 admm/testdata/make_fixtures.py

It writes admm/testdata/enet.json: for each case the design A (row-major,
m x n), b, and sklearn.linear_model.ElasticNet solutions (coordinate
descent, tol 1e-14, no intercept) at several (lambda, l1_ratio).
scikit-learn minimizes 1/(2m)||b - Ax||^2 + alpha*r*||x||_1
+ alpha*(1-r)/2*||x||^2; package admm minimizes
1/2||Ax - b||^2 + lambda*(r*||x||_1 + (1-r)/2*||x||^2), so alpha = lambda/m.
"""
import json
import os

import numpy as np
import sklearn
from sklearn.linear_model import ElasticNet


def case(name, A, b, fits):
    m = A.shape[0]
    lmax = np.max(np.abs(A.T @ b))
    out = {"name": name, "m": A.shape[0], "n": A.shape[1],
           "A": A.ravel().tolist(), "b": b.tolist(), "fits": []}
    for frac, ratio in fits:
        lam = frac * lmax / ratio
        model = ElasticNet(alpha=lam / m, l1_ratio=ratio, fit_intercept=False,
                           tol=1e-14, max_iter=1000000)
        model.fit(A, b)
        out["fits"].append({"lambda": lam, "l1_ratio": ratio,
                            "x": model.coef_.tolist(),
                            "n_iter": int(model.n_iter_)})
    return out


def main():
    rng = np.random.default_rng(7)
    cases = []
    A = rng.standard_normal((50, 15))
    x0 = np.zeros(15)
    x0[[0, 4, 9]] = [2.0, -1.5, 1.0]
    b = A @ x0 + 0.2 * rng.standard_normal(50)
    cases.append(case("tall", A, b, [(0.5, 1.0), (0.05, 1.0), (0.2, 0.5),
                                     (0.02, 0.25)]))
    A = rng.standard_normal((20, 60))
    x0 = np.zeros(60)
    x0[[3, 30, 44, 59]] = [1.0, -2.0, 0.5, 1.5]
    b = A @ x0 + 0.05 * rng.standard_normal(20)
    cases.append(case("wide", A, b, [(0.3, 1.0), (0.01, 1.0), (0.1, 0.7)]))
    out = {"sklearn": sklearn.__version__, "numpy": np.__version__,
           "cases": cases}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "enet.json")
    with open(path, "w") as f:
        json.dump(out, f)
    for c in cases:
        print(c["name"], [(round(f["lambda"], 4), f["l1_ratio"],
                           int(np.count_nonzero(f["x"])), f["n_iter"])
                          for f in c["fits"]])


if __name__ == "__main__":
    main()
