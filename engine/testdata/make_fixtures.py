#!/usr/bin/python3
"""Makes the scikit-learn reference fixtures of the engine tests.

Run with Debian's python3-sklearn (scikit-learn 1.2.1, numpy 1.24, scipy 1.10):
    /usr/bin/python3 engine/testdata/make_fixtures.py
It writes engine/testdata/sklearn_*.json. Synthetic inputs are stored in the
fixture; real data (../shared/data) is not: the Go test reads it from there
and skips when it is absent, and only the reference embedding is stored.
"""
import os, sys
import numpy as np
from sklearn.datasets import make_swiss_roll
from sklearn.decomposition import PCA, KernelPCA
from sklearn.manifold import Isomap, LocallyLinearEmbedding, SpectralEmbedding
from sklearn.metrics import euclidean_distances
from fixtures_common import DATA, dumper, load

dump = dumper("sklearn_")


def classical_mds(X, dim):
    """Classical MDS as scikit-learn computes it: KernelPCA of the double-centred
    -1/2 D^2 (sklearn.manifold.MDS is SMACOF, a different method)."""
    D2 = euclidean_distances(X, squared=True)
    kp = KernelPCA(n_components=dim, kernel="precomputed", eigen_solver="dense")
    return kp.fit_transform(-0.5 * D2)


def main():
    X, t = make_swiss_roll(n_samples=400, noise=0.05, random_state=7)
    dump("swiss_pca", X=X, dim=2, embedding=PCA(n_components=2, svd_solver="full").fit_transform(X),
         explained_variance_ratio=PCA(n_components=2, svd_solver="full").fit(X).explained_variance_ratio_)
    dump("swiss_mds", X=X, dim=2, embedding=classical_mds(X, 2))
    iso = Isomap(n_neighbors=10, n_components=2, eigen_solver="dense", path_method="D")
    Y = iso.fit_transform(X)
    Xnew, _ = make_swiss_roll(n_samples=20, noise=0.05, random_state=8)
    dump("swiss_isomap", X=X, k=10, dim=2, embedding=Y, X_new=Xnew, transform=iso.transform(Xnew))
    lle = LocallyLinearEmbedding(n_neighbors=10, n_components=2, reg=1e-3, eigen_solver="dense", method="standard")
    dump("swiss_lle", X=X, k=10, dim=2, reg=1e-3, embedding=lle.fit_transform(X))

    if not os.path.isdir(DATA):
        print("no ../shared/data: real-data fixtures skipped", file=sys.stderr)
        return
    Y = load("yale32")  # 165 x 1024, uint8 pixels
    dump("yale_pca", tag="yale32", dim=5, embedding=PCA(n_components=5, svd_solver="full").fit_transform(Y),
         explained_variance_ratio=PCA(n_components=5, svd_solver="full").fit(Y).explained_variance_ratio_)
    dump("yale_mds", tag="yale32", dim=3, embedding=classical_mds(Y, 3))
    iso = Isomap(n_neighbors=8, n_components=3, eigen_solver="dense", path_method="D")
    dump("yale_isomap", tag="yale32", k=8, dim=3, embedding=iso.fit_transform(Y))
    lle = LocallyLinearEmbedding(n_neighbors=12, n_components=3, reg=1e-3, eigen_solver="dense")
    dump("yale_lle", tag="yale32", k=12, dim=3, reg=1e-3, embedding=lle.fit_transform(Y))


if __name__ == "__main__":
    main()
