#!/usr/bin/python3
"""The Python side of knn_peers.py: one tool's k-nearest-neighbour graph of
an .npy file, timed alone (reading the input and compiling numba's kernels
on a small warm-up input are not counted), printed as one JSON line; the
neighbour indices (self excluded, n×k) go to --out.

    /usr/bin/python3 bench/peers/knn_tools.py pynndescent x.npy 15 ind.npy
    /usr/bin/python3 bench/peers/knn_tools.py hnswlib x.npy 15 ind.npy --M 16 --efc 200 --ef 100
"""
import argparse
import json
import time

import numpy as np


def drop_self(ind, k):
    out = np.empty((ind.shape[0], k), dtype=np.int64)
    for i in range(ind.shape[0]):
        row = [j for j in ind[i] if j != i]
        out[i] = row[:k]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool", choices=["pynndescent", "hnswlib"])
    ap.add_argument("x")
    ap.add_argument("k", type=int)
    ap.add_argument("out")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--M", type=int, default=16)
    ap.add_argument("--efc", type=int, default=200)
    ap.add_argument("--ef", type=int, default=100)
    a = ap.parse_args()
    x = np.ascontiguousarray(np.load(a.x), dtype=np.float32)
    n, d = x.shape
    info = {"tool": a.tool, "n": n, "k": a.k}
    if a.tool == "pynndescent":
        import pynndescent
        from pynndescent import NNDescent
        NNDescent(x[:2000], n_neighbors=a.k + 1, n_jobs=a.threads).neighbor_graph  # compile
        t = time.time()
        ind, _ = NNDescent(x, n_neighbors=a.k + 1, n_jobs=a.threads).neighbor_graph
        info["seconds"] = time.time() - t
        info["version"] = getattr(pynndescent, "__version__", "0.5.8")
        info["settings"] = "defaults, n_jobs=%d" % a.threads
    else:
        import hnswlib
        t = time.time()
        p = hnswlib.Index(space="l2", dim=d)
        p.init_index(max_elements=n, ef_construction=a.efc, M=a.M, random_seed=100)
        p.add_items(x, np.arange(n), num_threads=a.threads)
        tb = time.time() - t
        p.set_ef(max(a.ef, a.k + 1))
        ind, _ = p.knn_query(x, k=a.k + 1, num_threads=a.threads)
        info["seconds"] = time.time() - t
        info["build_seconds"] = tb
        info["settings"] = "M=%d, ef_construction=%d, ef=%d, %d threads" % (a.M, a.efc, a.ef, a.threads)
    np.save(a.out, drop_self(np.asarray(ind), a.k).astype(np.float64))
    print(json.dumps(info))


if __name__ == "__main__":
    main()
