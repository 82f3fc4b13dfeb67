#!/usr/bin/python3
"""Makes the reference fixtures of the engine/metrics tests.

Run with Debian's python3-sklearn (scikit-learn 1.2.1, numpy 1.24, scipy 1.10):
    /usr/bin/python3 engine/metrics/testdata/make_fixtures.py
It writes engine/metrics/testdata/sklearn_metrics.json: inputs and the values
scikit-learn / scipy / numpy compute from them. Every input is synthetic and
stored in the fixture.
"""
import json, os
import numpy as np
import scipy
import sklearn
from scipy.optimize import linear_sum_assignment
from scipy.spatial import procrustes
from sklearn.datasets import make_blobs, make_swiss_roll
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import LeaveOneOut, cross_val_score
from sklearn.manifold import Isomap, trustworthiness
from sklearn.metrics import normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix
from sklearn.neighbors import KNeighborsClassifier

HERE = os.path.dirname(os.path.abspath(__file__))


def tolist(v):
    return v.tolist() if isinstance(v, np.ndarray) else v


def clustering_accuracy(truth, pred):
    """AC: the best one-to-one map of clusters onto classes (scipy's
    linear_sum_assignment on the contingency table, maximized)."""
    c = contingency_matrix(truth, pred)  # classes x clusters
    r, k = linear_sum_assignment(c, maximize=True)
    return c[r, k].sum() / len(truth)


def main():
    rng = np.random.default_rng(20240611)
    out = {"sklearn": sklearn.__version__, "scipy": scipy.__version__, "numpy": np.__version__}

    # Labelings: random, with different numbers of groups, a permuted copy,
    # a noisy copy, a single group.
    labelings = []
    t = rng.integers(0, 5, 200)
    noisy = t.copy()
    flip = rng.random(200) < 0.3
    noisy[flip] = rng.integers(0, 5, flip.sum())
    perm = np.array([3, 0, 4, 1, 2])
    cases = [
        (t, perm[t]),
        (t, noisy),
        (t, rng.integers(0, 3, 200)),
        (t, rng.integers(0, 8, 200)),
        (rng.integers(10, 13, 57), rng.integers(-4, 2, 57)),
        (t, np.zeros(200, dtype=int)),
        (np.full(9, 7), np.full(9, 2)),
    ]
    for truth, pred in cases:
        labelings.append({
            "truth": tolist(truth), "pred": tolist(pred),
            "nmi": normalized_mutual_info_score(truth, pred),
            "ac": clustering_accuracy(truth, pred),
        })
    out["labelings"] = labelings

    # Assignment problems: scipy's linear_sum_assignment (minimum total).
    assign = []
    for shape in [(12, 12), (8, 15), (15, 8), (30, 30), (1, 4)]:
        c = rng.normal(size=shape) * 10
        r, k = linear_sum_assignment(c)
        assign.append({"cost": tolist(c), "total": float(c[r, k].sum())})
    ints = rng.integers(0, 6, (20, 20)).astype(float)  # many ties
    r, k = linear_sum_assignment(ints)
    assign.append({"cost": tolist(ints), "total": float(ints[r, k].sum())})
    out["assign"] = assign

    # Trustworthiness and continuity (Venna & Kaski), scikit-learn's function
    # with the roles swapped for continuity.
    neigh = []
    X = rng.normal(size=(90, 6))
    Y = X @ rng.normal(size=(6, 2)) + 0.1 * rng.normal(size=(90, 2))
    S, _ = make_swiss_roll(n_samples=300, noise=0.05, random_state=3)
    Yiso = Isomap(n_neighbors=10, n_components=2, eigen_solver="dense").fit_transform(S)
    Ypca = S[:, [0, 2]]
    for name, a, b, ks in [("gauss", X, Y, [1, 5, 10, 30]), ("roll_isomap", S, Yiso, [5, 12]),
                           ("roll_xz", S, Ypca, [5, 12])]:
        neigh.append({
            "name": name, "X": tolist(a), "Y": tolist(b), "k": ks,
            "trustworthiness": [trustworthiness(a, b, n_neighbors=k) for k in ks],
            "continuity": [trustworthiness(b, a, n_neighbors=k) for k in ks],
        })
    out["neighborhood"] = neigh

    # Residual variance 1 - R^2 over all n^2 entries (Tenenbaum et al.'s
    # Isomap.m), with the graph geodesics scikit-learn's Isomap computes.
    R, _ = make_swiss_roll(n_samples=250, noise=0.0, random_state=11)
    iso = Isomap(n_neighbors=8, n_components=2, eigen_solver="dense", path_method="D")
    Yr = iso.fit_transform(R)
    DG = iso.dist_matrix_
    DY = np.sqrt(((Yr[:, None, :] - Yr[None, :, :]) ** 2).sum(-1))
    r = np.corrcoef(DG.ravel(), DY.ravel())[0, 1]
    Y1 = Yr[:, :1]
    DY1 = np.abs(Y1 - Y1.T)
    r1 = np.corrcoef(DG.ravel(), DY1.ravel())[0, 1]
    out["residual"] = {"X": tolist(R), "k": 8, "Y": tolist(Yr), "geodesics": tolist(DG),
                       "residual_variance": 1 - r * r, "residual_variance_1d": 1 - r1 * r1}

    # Procrustes disparity (scipy.spatial.procrustes).
    A = rng.normal(size=(40, 3))
    theta = 0.7
    rot = np.array([[np.cos(theta), -np.sin(theta), 0], [np.sin(theta), np.cos(theta), 0], [0, 0, -1]])
    pairs = [A @ rot * 3 + 5 + 0.05 * rng.normal(size=A.shape), rng.normal(size=A.shape)]
    out["procrustes"] = [{"A": tolist(A), "B": tolist(B), "disparity": procrustes(A, B)[2]} for B in pairs]

    # 1-NN accuracy (KNeighborsClassifier(1)).
    Xb, yb = make_blobs(n_samples=150, centers=4, n_features=5, cluster_std=3.0, random_state=5)
    idx = rng.permutation(150)
    tr, te = np.sort(idx[:60]), np.sort(idx[60:])
    acc = KNeighborsClassifier(n_neighbors=1).fit(Xb[tr], yb[tr]).score(Xb[te], yb[te])
    out["onenn"] = {"X": tolist(Xb), "y": tolist(yb), "train": tolist(tr), "test": tolist(te), "accuracy": acc}

    # FLDA leave-one-out (LinearDiscriminantAnalysis.predict, one fold per
    # sample), on overlapping classes so that some samples are misclassified.
    Xl, yl = make_blobs(n_samples=60, centers=3, n_features=4, cluster_std=4.0, random_state=9)
    loo = cross_val_score(LinearDiscriminantAnalysis(), Xl, yl, cv=LeaveOneOut()).mean()
    out["flda_loo"] = {"X": tolist(Xl), "y": tolist(yl), "accuracy": loo}

    path = os.path.join(HERE, "sklearn_metrics.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
