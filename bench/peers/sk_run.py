#!/usr/bin/python3
"""scikit-learn's side of the peer comparison (bench/peers/peers.py): one fit,
or one stage, per process, so that the driver measures this process's peak
memory. Prints one JSON line with the seconds of the fit (or stage) alone —
reading the input and importing scikit-learn are not counted.

    sk_run.py METHOD X.npy Y.npy [K] [DIM]
    sk_run.py --stage knn X.npy [K]
    sk_run.py --stage paths G.mtx

Methods, with the settings that match manifold's (bench/peers/gorun):
  isomap     Isomap(n_neighbors=K, n_components=DIM) — defaults otherwise
             (eigen_solver 'auto' = ARPACK here, path_method 'auto')
  lle        LocallyLinearEmbedding(method='standard', reg=1e-3)
  ltsa       LocallyLinearEmbedding(method='ltsa')
  laplacian  SpectralEmbedding(affinity='nearest_neighbors',
             n_neighbors=K+1: scikit-learn counts the point itself)
  pca        PCA(n_components=DIM)
  mds        classical MDS: KernelPCA(kernel='precomputed') of -1/2 D^2, the
             squared distances by euclidean_distances (timed too).
             scikit-learn's own sklearn.manifold.MDS is SMACOF, an iterative
             method for a different objective (stress): 'smacof' runs it.
Run with Debian's /usr/bin/python3 (scikit-learn 1.2.1, scipy 1.10, numpy 1.24).
"""
import json
import sys
import time

import numpy as np
import scipy
import scipy.io
import sklearn
from scipy.sparse import csgraph
from sklearn.decomposition import PCA, KernelPCA
from sklearn.manifold import MDS, Isomap, LocallyLinearEmbedding, SpectralEmbedding
from sklearn.metrics import euclidean_distances
from sklearn.neighbors import NearestNeighbors


def fit(method, X, k, dim):
    if method == "isomap":
        return Isomap(n_neighbors=k, n_components=dim).fit_transform(X)
    if method == "lle":
        return LocallyLinearEmbedding(n_neighbors=k, n_components=dim, method="standard", reg=1e-3,
                                      random_state=0).fit_transform(X)
    if method == "ltsa":
        return LocallyLinearEmbedding(n_neighbors=k, n_components=dim, method="ltsa",
                                      random_state=0).fit_transform(X)
    if method == "laplacian":
        return SpectralEmbedding(n_components=dim, affinity="nearest_neighbors", n_neighbors=k + 1,
                                 random_state=0).fit_transform(X)
    if method == "pca":
        return PCA(n_components=dim).fit_transform(X)
    if method == "mds":
        D2 = euclidean_distances(X, squared=True)
        D2 *= -0.5
        return KernelPCA(n_components=dim, kernel="precomputed").fit_transform(D2)
    if method == "smacof":
        return MDS(n_components=dim, random_state=0).fit_transform(X)
    raise SystemExit("unknown method " + method)


def main():
    out = {"sklearn": sklearn.__version__, "scipy": scipy.__version__, "numpy": np.__version__}
    if sys.argv[1] == "--stage":
        stage = sys.argv[2]
        if stage == "knn":
            X = np.load(sys.argv[3])
            k = int(sys.argv[4]) if len(sys.argv) > 4 else 10
            t0 = time.perf_counter()
            NearestNeighbors(n_neighbors=k).fit(X).kneighbors()
            out["seconds"] = time.perf_counter() - t0
        elif stage == "paths":
            g = scipy.io.mmread(sys.argv[3]).tocsr()
            t0 = time.perf_counter()
            csgraph.shortest_path(g, method="D", directed=False)  # as Isomap calls it
            out["seconds"] = time.perf_counter() - t0
        else:
            raise SystemExit("unknown stage " + stage)
    else:
        method, xp, yp = sys.argv[1], sys.argv[2], sys.argv[3]
        k = int(sys.argv[4]) if len(sys.argv) > 4 else 10
        dim = int(sys.argv[5]) if len(sys.argv) > 5 else 2
        X = np.load(xp)
        t0 = time.perf_counter()
        Y = fit(method, X, k, dim)
        out["seconds"] = time.perf_counter() - t0
        np.save(yp, np.ascontiguousarray(Y, dtype=np.float64))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
