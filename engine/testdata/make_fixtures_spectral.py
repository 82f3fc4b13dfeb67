#!/usr/bin/python3
"""Makes the scikit-learn fixtures of Laplacian eigenmaps with binary edge
weights (engine/spectral_fixture_test.go).

Run with Debian's python3-sklearn (scikit-learn 1.2.1, numpy 1.24, scipy 1.10):
    /usr/bin/python3 engine/testdata/make_fixtures_spectral.py
It writes engine/testdata/graphmethods_spectral_binary_*.json.

The reference is scikit-learn's SpectralEmbedding(affinity='precomputed',
eigen_solver='arpack') of the binary kNN graph: k neighbours other than the
point, symmetrized by the OR rule, weight 1 on every edge (Belkin & Niyogi's
"simple-minded" weights; the engine's WeightBinary). Cases: a 400-point
swiss roll (the engine's dense path), a 1500-point one and the first 1000
usps9298 digits (the certified shift-invert path). Real data are not stored:
the Go test reads the first rows of ../shared/data/usps9298 and skips when
they are absent.
"""
import os
import sys

import numpy as np
import scipy.sparse.csgraph as csgraph
from sklearn.datasets import make_swiss_roll
from sklearn.manifold import SpectralEmbedding
from sklearn.neighbors import kneighbors_graph

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures_common import DATA, dumper, load  # noqa: E402

dump = dumper("graphmethods_")


def binary_graph(X, k):
    G = kneighbors_graph(X, k, mode="connectivity", include_self=False)
    W = G.maximum(G.T).tocsr()
    ncomp, _ = csgraph.connected_components(W, directed=False)
    assert ncomp == 1, "the graph must be connected"
    return W


def embed(W, dim):
    se = SpectralEmbedding(n_components=dim, affinity="precomputed", eigen_solver="arpack", random_state=0)
    return se.fit_transform(W)


def main():
    for n, seed in ((400, 11), (1500, 12)):
        X, _ = make_swiss_roll(n_samples=n, noise=0.05, random_state=seed)
        dump("spectral_binary_swiss%d" % n, X=X, k=10, dim=2, embedding=embed(binary_graph(X, 10), 2))
    if not os.path.isdir(DATA):
        print("no ../shared/data: real-data fixture skipped", file=sys.stderr)
        return
    U = load("usps9298")[:1000]
    dump("spectral_binary_usps1000", tag="usps9298", rows=1000, k=10, dim=3, embedding=embed(binary_graph(U, 10), 3))


if __name__ == "__main__":
    main()
