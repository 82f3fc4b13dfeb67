#!/usr/bin/python3
"""Recall@k of k-nearest-neighbour graphs against brute force, scored as
knn_peers.py scores them (the same 1000 points, drawn with seed 1, their
k-th exact distances by blocks; a neighbour at the k-th distance counts):
for graphs made by other runs — `manifold neighbors` MatrixMarket files
(row i holds point i's neighbours, 1-based) or .npy index arrays (n × k,
0-based, as knnrun -out and knn_tools.py write them).

    /usr/bin/python3 bench/peers/graph_recall.py DATA.npy K GRAPH.mtx|IND.npy ...
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from knn_peers import kth_distances, recall  # noqa: E402


def read_graph(path, n, k):
    if path.endswith(".npy"):
        return np.load(path)
    ind = np.empty((n, k), dtype=np.int64)
    fill = np.zeros(n, dtype=np.int64)
    with open(path) as f:
        size_seen = False
        for line in f:
            if line.startswith("%"):
                continue
            if not size_seen:  # "rows cols entries"
                size_seen = True
                continue
            i, j, _ = line.split()
            i, j = int(i) - 1, int(j) - 1
            ind[i, fill[i]] = j
            fill[i] += 1
    if (fill != k).any():
        raise SystemExit(f"{path}: rows with other than {k} neighbours")
    return ind


def main():
    data, k, graphs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    x = np.load(data, mmap_mode="r")
    x = np.asarray(x, dtype=np.float64)
    rng = np.random.default_rng(1)
    sample = np.sort(rng.choice(x.shape[0], size=min(1000, x.shape[0]), replace=False))
    kth = kth_distances(x, sample, k)
    for g in graphs:
        ind = read_graph(g, x.shape[0], k)
        print(f"{g}: recall@{k} {recall(x, ind, sample, kth, k):.4f} on {len(sample)} points")


if __name__ == "__main__":
    main()
