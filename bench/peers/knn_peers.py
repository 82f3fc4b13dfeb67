#!/usr/bin/python3
"""Side-by-side k-nearest-neighbour graphs: manifold's NN-descent
(engine/neighbors, bench/peers/knnrun), pynndescent 0.5.8 (n_jobs=2) and
hnswlib 0.6.2 (index build plus the query of every point, 2 threads), on
the same .npy file, each in its own process under /usr/bin/time -v and
under the machine's timing lock /tmp/manifold-bench.lock, one after
another. The time is the graph alone, measured inside each process; the
memory is the process's peak. Recall@k of every graph is measured here, on
the same 1000 points drawn with a fixed seed, against their exact
neighbours by brute force (a neighbour at the k-th exact distance counts).

    /usr/bin/python3 bench/peers/knn_peers.py --kind digits --n 100000
    /usr/bin/python3 bench/peers/knn_peers.py --kind roll --dim 784 --n 100000
    /usr/bin/python3 bench/peers/knn_peers.py --kind digits --n 1000000 --hnsw-configs 1 --manifold-float32 --workdir /tmp/knn1m

The data come from go run ./bench/scale/gendata (deformed USPS digits, or a swiss
roll embedded in --dim dimensions); run from the repository root.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import ROOT, run, machine  # noqa: E402


def kth_distances(x, sample, k):
    """The k-th exact neighbour distance of every sampled point (itself
    excluded), by blocks of 100 rows against all points (BLAS 3)."""
    sq = (x * x).sum(1)
    out = np.empty(len(sample))
    for b in range(0, len(sample), 100):
        idx = sample[b:b + 100]
        d2 = sq[idx][:, None] + sq[None, :] - 2 * (x[idx] @ x.T)
        d2[np.arange(len(idx)), idx] = np.inf
        out[b:b + 100] = np.sqrt(np.maximum(np.partition(d2, k - 1, axis=1)[:, k - 1], 0))
    return out


def recall(x, ind, sample, kth, k):
    s = 0.0
    for r, i in enumerate(sample):
        approx = np.sqrt(((x[ind[i].astype(np.int64)] - x[i]) ** 2).sum(1))
        s += np.count_nonzero(approx <= kth[r] * (1 + 1e-6) + 1e-12) / k
    return s / len(sample)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="digits")
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--k", type=int, default=15)
    ap.add_argument("--sample", type=int, default=1000)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--tools", default="manifold,pynndescent,hnswlib")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--manifold-float32", action="store_true",
                    help="also run manifold reading the data as float32 and searching it in place (neighbors.KNNApprox32)")
    ap.add_argument("--manifold-refine", type=int, default=0,
                    help="also run manifold with NN-descent's lists refined by a search a row at this width (-refine)")
    ap.add_argument("--hnsw-configs", type=int, default=2,
                    help="hnswlib settings to run: 1 = M=16 efc=100 ef=50 only (at 10^6 points each takes tens of minutes), 2 = also efc=200 ef=100")
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix="knn-peers-")
    data = os.path.join(work, "%s-%d-%d.npy" % (a.kind, a.n, a.dim))
    if not os.path.exists(data):
        subprocess.run(["go", "run", "./bench/scale/gendata", "-kind", a.kind, "-n", str(a.n), "-dim", str(a.dim), "-out", data],
                       check=True, cwd=ROOT)
    gorun = os.path.join(work, "knnrun")
    subprocess.run(["go", "build", "-o", gorun, "./bench/peers/knnrun"], check=True, cwd=ROOT)
    x = np.load(data)
    rng = np.random.default_rng(1)
    sample = np.sort(rng.choice(x.shape[0], size=min(a.sample, x.shape[0]), replace=False))
    kth = kth_distances(x, sample, a.k)
    runs = []
    for tool in a.tools.split(","):
        if tool == "manifold":
            cfgs = [("defaults", []), ("rho=2", ["-rho", "2"])]
            if a.manifold_float32:
                cfgs.append(("defaults float32", ["-float32"]))
            if a.manifold_refine:
                cfgs.append(("refine=%d" % a.manifold_refine, ["-refine", str(a.manifold_refine)]))
                if a.manifold_float32:
                    cfgs.append(("refine=%d float32" % a.manifold_refine, ["-float32", "-refine", str(a.manifold_refine)]))
        elif tool == "hnswlib":
            cfgs = [("M=16 efc=100 ef=50", ["--M", "16", "--efc", "100", "--ef", "50"]),
                    ("M=16 efc=200 ef=100", ["--M", "16", "--efc", "200", "--ef", "100"])][:a.hnsw_configs]
        else:
            cfgs = [("defaults", [])]
        for name, extra in cfgs:
            out = os.path.join(work, "ind-%s-%s.npy" % (tool, name.replace(" ", "_").replace("=", "")))
            if tool == "manifold":
                cmd = [gorun, "-in", data, "-k", str(a.k), "-out", out] + (["-sample", "200"] if "-float32" not in extra else []) + extra
            else:
                cmd = ["/usr/bin/python3", os.path.join(ROOT, "bench/peers/knn_tools.py"), tool, data, str(a.k), out] + extra
            res = run(cmd, a.timeout)
            res.setdefault("tool", tool)
            res["config"] = name
            if "error" not in res:
                res["recall"] = recall(x, np.load(out), sample, kth, a.k)
            runs.append(res)
            print(json.dumps(res), flush=True)
    print()
    print("%s, %d × %d, k = %d; %s" % (a.kind, x.shape[0], x.shape[1], a.k, machine()))
    print("| tool | settings | time (s) | recall@%d (1000 points) | peak RSS (MiB) |" % a.k)
    print("|---|---|---|---|---|")
    for r in runs:
        if "error" in r:
            print("| %s | %s | %s | – | – |" % (r["tool"], r["config"], r["error"]))
        else:
            print("| %s | %s | %.1f | %.4f | %.0f |" % (r["tool"], r.get("settings", "NN-descent " + r["config"]), r["seconds"], r["recall"], r["rss_mib"]))


if __name__ == "__main__":
    main()
