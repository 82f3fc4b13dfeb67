#!/usr/bin/python3
"""Makes the scikit-learn reference of LDA's default (svd) solver on
rank-deficient data (engine TestLDASVDAgainstSklearn).

Run with Debian's python3-sklearn (scikit-learn 1.2.1, numpy 1.24):
    /usr/bin/python3 engine/testdata/make_fixtures_lda_svd.py
It writes engine/testdata/sklearn_lda_svd_*.json. The inputs are synthetic
and stored in the fixture: digits-like data with constant pixels, a pixel
that is the sum of two others and duplicated images, so that the
within-class scatter is singular (the engine's Fisherfaces solver refuses
it) while N − c exceeds the rank of the data.
"""
import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from fixtures_common import dumper

dump = dumper("sklearn_")


def case(name, c, per, d, nconst, ndup, seed):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 1.5, (c, d))
    y = np.repeat(np.arange(c), per)
    X = centres[y] + rng.normal(0, 1, (c * per, d)) * rng.uniform(0.3, 2, d)
    X[:, :nconst] = 7.0                      # constant pixels
    X[:, nconst] = X[:, nconst + 1] + X[:, nconst + 2]  # a dependent pixel
    # duplicated images: the first ndup of every class copied over its last ndup
    for k in range(c):
        lo = k * per
        X[lo + per - ndup: lo + per] = X[lo: lo + ndup]
    Xn = centres[np.arange(40) % c] + rng.normal(0, 1, (40, d))
    Xn[:, :nconst] = 7.0
    Xn[:, nconst] = Xn[:, nconst + 1] + Xn[:, nconst + 2]
    lda = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    dump(name, X=X, y=y.tolist(), X_new=Xn, dim=c - 1,
         transform=lda.transform(Xn)[:, : c - 1], predict=lda.predict(Xn),
         explained_variance_ratio=lda.explained_variance_ratio_)


def main():
    case("lda_svd_digits", 4, 30, 24, 5, 6, 3)
    case("lda_svd_wide", 3, 40, 60, 12, 10, 4)


if __name__ == "__main__":
    main()
