#!/usr/bin/python3
"""Makes the scikit-learn reference fixtures of the LDA tests.

Run with Debian's python3-sklearn (scikit-learn 1.2.1, numpy 1.24, scipy 1.10):
    /usr/bin/python3 engine/testdata/make_fixtures_lda.py
It writes engine/testdata/sklearn_lda_*.json. The inputs are synthetic and
stored in the fixtures.
"""
import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import LeaveOneOut, cross_val_predict
from fixtures_common import dumper

dump = dumper("sklearn_")


def blobs(rng, sizes, d, spread):
    """Gaussian classes with a shared, anisotropic covariance and spread means."""
    a = rng.normal(size=(d, d))
    xs, ys = [], []
    for c, n in enumerate(sizes):
        mean = rng.normal(scale=spread, size=d)
        xs.append(rng.normal(size=(n, d)) @ a + mean)
        ys += [c * 10 + 1] * n  # labels 1, 11, 21, …: not 0…c−1
    return np.vstack(xs), np.array(ys)


def lda_case(name, sizes, d, seed, spread):
    rng = np.random.default_rng(seed)
    X, y = blobs(rng, sizes, d, spread)
    Xn, yn = blobs(np.random.default_rng(seed), sizes, d, spread)  # same means and covariance
    Xn = Xn[::7] + rng.normal(scale=0.5, size=Xn[::7].shape)
    lda = LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    c = len(sizes)
    loo = cross_val_predict(LinearDiscriminantAnalysis(solver="eigen"), X, y, cv=LeaveOneOut())
    dump(name, X=X, y=y, X_new=Xn, dim=c - 1,
         scalings=lda.scalings_[:, : c - 1], transform=lda.transform(Xn),
         predict=lda.predict(Xn), explained_variance_ratio=lda.explained_variance_ratio_,
         loo_predict=loo)


def main():
    lda_case("lda_blobs3", [40, 50, 60], 5, 1, 1.0)  # unbalanced: priors matter
    lda_case("lda_blobs5", [30, 30, 30, 30, 30], 8, 2, 0.4)


if __name__ == "__main__":
    main()
