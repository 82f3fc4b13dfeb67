#!/usr/bin/python3
"""Make the LARS fixtures of package lars with scikit-learn.

Run with Debian's Python (scikit-learn 1.2.1, numpy 1.24):

    /usr/bin/python3 lars/testdata/make_fixtures.py

It writes lars/testdata/lars_path.json: for each case the design X
(row-major, n x p), the response y, and sklearn.linear_model.lars_path's
alphas, coefficients (one row per breakpoint) and final active set, for
method='lasso' and method='lar'. sklearn's alpha is our lambda divided by
n_samples (its objective is 1/(2n)||y - Xb||^2 + alpha||b||_1).
"""
import json
import os

import numpy as np
import sklearn
from sklearn.linear_model import lars_path


def case(name, X, y):
    out = {"name": name, "n": X.shape[0], "p": X.shape[1],
           "X": X.ravel().tolist(), "y": y.tolist()}
    for method in ("lasso", "lar"):
        alphas, active, coefs = lars_path(X, y, method=method, max_iter=500,
                                          eps=np.finfo(float).eps)
        out[method] = {"alphas": alphas.tolist(),
                       "coefs": coefs.T.tolist(),  # one row per breakpoint
                       "active": [int(a) for a in active]}
    return out


def main():
    rng = np.random.default_rng(20240611)
    cases = []
    # Tall, random: no lasso drops expected.
    X = rng.standard_normal((40, 8))
    beta = np.array([3, 0, -2, 0, 0, 1.5, 0, 0.5])
    cases.append(case("tall", X, X @ beta + 0.3 * rng.standard_normal(40)))
    # Wide: more features than samples; the path ends at an exact fit.
    X = rng.standard_normal((12, 30))
    beta = np.zeros(30)
    beta[[1, 7, 19]] = [2, -3, 1]
    cases.append(case("wide", X, X @ beta + 0.1 * rng.standard_normal(12)))
    # Correlated columns, a search for a lasso path with drops: the first
    # seed whose lasso path removes a variable.
    for seed in range(1000):
        r = np.random.default_rng(seed)
        z = r.standard_normal((30, 3))
        X = z @ r.standard_normal((3, 10)) + 0.3 * r.standard_normal((30, 10))
        y = X @ r.standard_normal(10) + 0.5 * r.standard_normal(30)
        alphas, _, coefs = lars_path(X, y, method="lasso", max_iter=500,
                                     eps=np.finfo(float).eps)
        nz = (coefs != 0).sum(axis=0)
        if np.any(np.diff(nz) < 0):
            c = case("drops", X, y)
            c["seed"] = seed
            cases.append(c)
            break
    # A USPS-like size for the cardinality stop: 100 samples, 20 features.
    X = rng.standard_normal((100, 20))
    X -= X.mean(axis=0)
    y = X @ rng.standard_normal(20) + rng.standard_normal(100)
    y -= y.mean()
    cases.append(case("centered", X, y))
    out = {"sklearn": sklearn.__version__, "numpy": np.__version__,
           "cases": cases}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "lars_path.json")
    with open(path, "w") as f:
        json.dump(out, f)
    for c in cases:
        print(c["name"], "lasso breakpoints:", len(c["lasso"]["alphas"]),
              "lar:", len(c["lar"]["alphas"]))


if __name__ == "__main__":
    main()
