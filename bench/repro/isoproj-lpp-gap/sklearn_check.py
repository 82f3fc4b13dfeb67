#!/usr/bin/env python3
"""Why does IsoProjection cluster below LPP on text, where Cai, He & Han
(AAAI 2007, Table 1) find them on a par? An independent check with
scikit-learn (Debian's python3-sklearn), outside the engine.

IsoProjection is the linear (spectral-regression) approximation of Isomap
on the same graph, LPP that of Laplacian eigenmaps. If Isomap's own
coordinates cluster below Laplacian eigenmaps' on the same documents and
graph, the gap is in the objective the two linear methods approximate, not
in the engine's linearisation. For k = 2..10 and --draws random choices of
k of the 30 largest categories (uniform, as bench/repro/isoproj-table1):

  graph    5 nearest neighbours by Euclidean distance of the unit-length
           documents, an edge when either is among the other's (OR rule);
           its connected components are counted (IsoP.m sets the geodesic
           between components to 1000 x the largest distance, the engine's
           reproduction joins them at their closest pairs)
  Isomap   sklearn.manifold.Isomap(n_neighbors=5): geodesics, classical MDS
           (a disconnected graph joined at its closest pairs by sklearn)
  LE       sklearn.manifold.SpectralEmbedding on the same graph with cosine
           weights (the engine's reproduction weights LPP by cosine)

k-means (sklearn KMeans, 10 restarts, lowest objective) on the first d
coordinates, d = k, 2k, 4k (at most 50), the best d per method and k as in
the engine's table; clustering accuracy with the Kuhn-Munkres map.

Run from the repository root, beside ../shared/data (or --data PATH for a
corpus in that layout, e.g. TDT2 from bench/repro/tdt2/prepare.py):

    /usr/bin/python3 bench/repro/isoproj-lpp-gap/sklearn_check.py [--tag tdt2 --data /tmp/corpora/tdt2]

It prints a Markdown table.
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.cluster import KMeans
from sklearn.manifold import Isomap, SpectralEmbedding
from sklearn.neighbors import kneighbors_graph
from sklearn.preprocessing import normalize

# Clustering accuracy with the Kuhn-Munkres map: the baseline check's.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reuters-baseline"))
from baseline import accuracy  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tag", default="reuters21578")
    ap.add_argument("--data", default=None, help="the corpus folder (default ../shared/data/<tag>)")
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--k", type=int, default=5, help="graph neighbours")
    ap.add_argument("--restarts", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kmax", type=int, default=10)
    a = ap.parse_args()
    data = a.data or os.path.join("..", "shared", "data", a.tag)

    x = scipy.io.mmread(os.path.join(data, a.tag + "_X.mtx.gz")).tocsr().astype(np.float64)
    y = np.loadtxt(os.path.join(data, a.tag + "_y.txt"), dtype=int).ravel()
    x = normalize(x)
    cats, counts = np.unique(y, return_counts=True)
    top = cats[np.argsort(-counts, kind="stable")[:30]]
    print(f"{a.tag}: {x.shape[0]} x {x.shape[1]}, 30 largest categories: {np.isin(y, top).sum()} documents", file=sys.stderr)

    rng = np.random.RandomState(a.seed)
    rows = []
    avg = {"Isomap": 0.0, "LE": 0.0}
    t0 = time.time()
    ks = list(range(2, a.kmax + 1))
    for k in ks:
        res = {"Isomap": {}, "LE": {}}
        comps, docs = [], []
        for d in range(a.draws):
            chosen = rng.choice(top, k, replace=False)
            idx = np.flatnonzero(np.isin(y, chosen))
            xs, ys = x[idx], y[idx]
            n = xs.shape[0]
            docs.append(n)
            g = kneighbors_graph(xs, a.k, mode="distance")
            g = g.maximum(g.T).tocsr()
            nc, _ = connected_components(g, directed=False)
            comps.append(nc)
            dmax = min(4 * k, 50, n - 2)
            # Cosine weights on the graph's edges (unit-length rows).
            w = g.copy()
            w.data = np.clip(1 - w.data ** 2 / 2, 0, None)
            w = w.maximum(w.T)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                emb = {
                    "Isomap": Isomap(n_neighbors=a.k, n_components=dmax, eigen_solver="dense" if n <= 500 else "arpack").fit_transform(xs),
                    "LE": SpectralEmbedding(n_components=dmax, affinity="precomputed", random_state=a.seed).fit_transform(w),
                }
            for m, z in emb.items():
                for mult in (1, 2, 4):
                    dim = min(mult * k, 50, dmax)
                    pred = KMeans(n_clusters=k, n_init=a.restarts, random_state=a.seed + 1000 * k + d).fit_predict(z[:, :dim])
                    res[m].setdefault(mult, []).append(accuracy(ys, pred))
            print(f"k={k} draw {d} ({n} docs, {nc} components): "
                  + ", ".join(f"{m} " + "/".join(f"{100 * res[m][mu][-1]:.1f}" for mu in (1, 2, 4)) for m in res)
                  + f" ({time.time() - t0:.0f}s)", file=sys.stderr)
        row = [str(k), f"{np.mean(docs):.0f}", f"{np.mean(comps):.1f} ({min(comps)}–{max(comps)})"]
        for m in ("Isomap", "LE"):
            mu = max(res[m], key=lambda v: np.mean(res[m][v]))
            acs = np.array(res[m][mu])
            avg[m] += acs.mean() / len(ks)
            row.append(f"{100 * acs.mean():.1f} ± {100 * acs.std():.1f} ({min(mu * k, 50)})")
        rows.append(row)
    print(f"\n{a.tag}, {a.draws} draws per k (seed {a.seed}), {time.time() - t0:.0f} s:\n")
    print("| k | docs (mean) | graph components (mean, range) | Isomap AC (%) | LE AC (%) |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"| Ave. |  |  | {100 * avg['Isomap']:.1f} | {100 * avg['LE']:.1f} |")


if __name__ == "__main__":
    main()
