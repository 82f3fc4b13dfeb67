#!/usr/bin/python3
"""Side-by-side runs of manifold and scikit-learn on the same inputs.

    /usr/bin/python3 bench/peers/peers.py                 # everything (~1 h on 2 cores)
    /usr/bin/python3 bench/peers/peers.py --sizes 1000,2000 --methods isomap,pca --no-stages

Run it from the repository root with Debian's python3 (scikit-learn 1.2.1,
scipy 1.10, numpy 1.24). It builds the Go runner (bench/peers/gorun) twice —
pure Go and `-tags openblas` — then, for every size N and method, runs
scikit-learn (bench/peers/sk_run.py) and both Go builds one after another on
the same input file, alternating their order from one repetition to the
next, each in its own process under /usr/bin/time -v (peak resident memory)
and under the machine's timing lock /tmp/manifold-bench.lock (taken here, per
run, with flock(2), as flock(1) does). The time compared is the fit alone,
measured inside each process (reading the input and importing scikit-learn
are not counted); the memory is the whole process's peak. Quality: the
Procrustes disparity between manifold's and scikit-learn's embeddings and the
trustworthiness (k = 10) of each (engine/metrics, computed by the Go runner
outside the timed runs). The stages alone: the k-nearest-neighbour search
(scikit-learn's NearestNeighbors against engine/neighbors) and all-pairs
shortest paths on the same graph (scipy.sparse.csgraph.shortest_path,
method='D', directed=False as Isomap calls it, against
sparse.AllPairsShortestPaths).

Inputs: make_swiss_roll(N, noise=0.05, random_state=0) (3 features); PCA runs
on the same roll lifted to 100 features (a random orthonormal 3→100 map plus
noise 0.01), where it has work to do. A scikit-learn run predicted (from the
previous size) to take more than --max-seconds or more memory than
--max-gib (or than the machine has free) is not started, and the table says so.

The table goes into bench/RESULTS.md (section "peers") and is printed.
"""
import argparse
import fcntl
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.io
import sklearn
from sklearn.datasets import make_swiss_roll
from sklearn.neighbors import kneighbors_graph

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOCK = "/tmp/manifold-bench.lock"
METHODS = ["isomap", "lle", "ltsa", "laplacian", "pca", "mds"]
NAMES = {"isomap": "Isomap", "lle": "LLE", "ltsa": "LTSA", "laplacian": "Laplacian eigenmaps",
         "pca": "PCA (D = 100)", "mds": "classical MDS", "knn": "kNN search (k = 10)",
         "paths": "all-pairs shortest paths"}
# Methods whose scikit-learn memory grows as N² (a dense N×N matrix).
QUADRATIC = {"isomap", "mds", "paths"}
TAPKEE_METHODS = {"lle", "ltsa", "laplacian", "isomap"}


def mem_available_gib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2**20
    return float("inf")


NO_LOCK = False


def run(cmd, timeout):
    """Runs cmd under /usr/bin/time -v holding the timing lock; returns the
    JSON it printed plus rss_mib, or {'error': ...}."""
    with open(LOCK, "a") as lock:
        if not NO_LOCK:
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            p = subprocess.Popen(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, cwd=ROOT, start_new_session=True)
            try:
                out, err = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)  # the process group this call started
                p.communicate()
                return {"error": "killed after %d s" % timeout}
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if p.returncode != 0:
        return {"error": (err.strip().splitlines() or ["exit %d" % p.returncode])[0][:200]}
    res = json.loads(out.strip().splitlines()[-1])
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    res["rss_mib"] = int(m.group(1)) / 1024 if m else float("nan")
    return res


def quality(gorun, x, y, ref):
    p = subprocess.run([gorun, "-quality", "-in", x, "-y", y, "-ref", ref, "-k", "10"],
                       capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        return {}
    return json.loads(p.stdout.strip().splitlines()[-1])


def update_section(path, name, body):
    begin, end = "<!-- begin %s -->" % name, "<!-- end %s -->" % name
    s = open(path).read() if os.path.exists(path) else ""
    block = begin + "\n" + body.rstrip("\n") + "\n" + end
    i, j = s.find(begin), s.find(end)
    if i >= 0 and j > i:
        s = s[:i] + block + s[j + len(end):]
    elif i >= 0 or j >= 0:
        raise SystemExit("%s: unmatched markers of section %s" % (path, name))
    else:
        if not s:
            s = "# Results\n"
        s = s.rstrip("\n") + "\n\n" + block
    with open(path, "w") as f:
        f.write(s.rstrip("\n") + "\n")


def fmt_s(v):
    if v is None:
        return "–"
    return "%.3g" % v if v < 100 else "%.0f" % v


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            mem = int(line.split()[1]) / 2**20
    return "%s, %d cores, %.0f GiB, %s" % (cpu, os.cpu_count(), mem, platform.platform())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,2000,5000,10000,20000")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--reps", type=int, default=2, help="repetitions for N <= 2000 (--reps-large above); the best time is kept")
    ap.add_argument("--reps-large", type=int, default=1,
                    help="repetitions above N = 2000 of every tool but scikit-learn (its fits there take seconds to minutes: once); the best time is kept")
    ap.add_argument("--no-stages", action="store_true")
    ap.add_argument("--no-openblas", action="store_true")
    ap.add_argument("--max-seconds", type=float, default=600)
    ap.add_argument("--max-gib", type=float, default=24)
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "RESULTS.md"), help="'' for none")
    ap.add_argument("--no-lock", action="store_true", help="smoke tests only: do not take the timing lock")
    ap.add_argument("--tapkee", default="", help="tapkee binary (bench/peers/build_tapkee.sh): adds tapkee to lle, ltsa, laplacian, isomap")
    ap.add_argument("--section", default="peers", help="the section of --results to write")
    args = ap.parse_args()
    global NO_LOCK
    NO_LOCK = args.no_lock
    sizes = [int(s) for s in args.sizes.split(",")]
    methods = [m for m in args.methods.split(",") if m]
    tmp = tempfile.mkdtemp(prefix="manifold-peers-")
    start = time.time()
    load0 = os.getloadavg()

    tools = {}
    for tag, flags in [("purego", []), ("openblas", ["-tags", "openblas"])]:
        if tag == "openblas" and args.no_openblas:
            continue
        exe = os.path.join(tmp, "gorun-" + tag)
        subprocess.run(["go", "build"] + flags + ["-o", exe, "./bench/peers/gorun"], cwd=ROOT, check=True)
        tools[tag] = exe
    gorun = tools["purego"]
    sk = [sys.executable, os.path.join(ROOT, "bench", "peers", "sk_run.py")]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    goversion = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()

    rows = []      # (kind, name, N, {tool: result}, quality)
    capped = []
    last = {}      # (name, tool) -> (N, seconds, rss)
    order = ["sklearn"] + (["tapkee"] if args.tapkee else []) + list(tools)
    tk = [sys.executable, os.path.join(ROOT, "bench", "peers", "tk_run.py"), args.tapkee]

    def sk_guard(name, n):
        prev = last.get((name, "sklearn"))
        if not prev:
            return None
        n0, t0, m0 = prev
        r = n / n0
        t_pred = t0 * r * r * 1.1
        m_pred = m0 * (r * r if name in QUADRATIC else r * 1.5) / 1024
        limit = min(args.max_gib, mem_available_gib() - 2)
        if t_pred > args.max_seconds:
            return "predicted %.0f s (> %.0f s) from %.0f s at N = %d" % (t_pred, args.max_seconds, t0, n0)
        if m_pred > limit:
            return "predicted %.1f GiB (> %.1f GiB available) from %.0f MiB at N = %d" % (m_pred, limit, m0, n0)
        return None

    for n in sizes:
        X, _ = make_swiss_roll(n_samples=n, noise=0.05, random_state=0)
        xpath = os.path.join(tmp, "X%d.npy" % n)
        np.save(xpath, X)
        rng = np.random.default_rng(n)
        Q, _ = np.linalg.qr(rng.normal(size=(100, 3)))
        X100 = X @ Q.T + 0.01 * rng.normal(size=(n, 100))
        x100 = os.path.join(tmp, "X100_%d.npy" % n)
        np.save(x100, X100)
        reps = args.reps if n <= 2000 else args.reps_large
        for method in methods:
            inp = x100 if method == "pca" else xpath
            best = {}
            for rep in range(reps):
                seq = order if rep % 2 == 0 else order[::-1]
                for tool in seq:
                    if tool == "sklearn" and n > 2000 and rep > 0:
                        continue
                    ypath = os.path.join(tmp, "Y_%s_%s_%d.npy" % (method, tool, n))
                    if tool == "sklearn":
                        why = sk_guard(method, n)
                        if why:
                            best[tool] = {"error": "capped: " + why}
                            continue
                        res = run(sk + [method, inp, ypath, "10", "2"], args.max_seconds + 300)
                    elif tool == "tapkee":
                        if method not in TAPKEE_METHODS:
                            continue
                        res = run(tk + [method, inp, ypath, "10", "2"], 1800)
                    else:
                        res = run([tools[tool], "-method", method, "-in", inp, "-out", ypath, "-k", "10", "-dim", "2"], 1800)
                    old = best.get(tool)
                    if "error" in res:
                        best.setdefault(tool, res)
                    elif old is None or "error" in old or res["seconds"] < old["seconds"]:
                        best[tool] = res
                    print("N=%d %-10s %-9s %s" % (n, method, tool,
                          res.get("error") or "%.3f s, %.0f MiB" % (res["seconds"], res["rss_mib"])), file=sys.stderr, flush=True)
            for tool, res in best.items():
                if "error" not in res:
                    last[(method, tool)] = (n, res["seconds"], res["rss_mib"])
                elif tool == "sklearn":
                    capped.append("%s N = %d: %s" % (NAMES[method], n, res["error"]))
            q = {}
            ysk = os.path.join(tmp, "Y_%s_sklearn_%d.npy" % (method, n))
            ygo = os.path.join(tmp, "Y_%s_purego_%d.npy" % (method, n))
            if "error" not in best.get("sklearn", {"error": 1}) and "error" not in best.get("purego", {"error": 1}):
                q = quality(gorun, inp, ygo, ysk)
            ytk = os.path.join(tmp, "Y_%s_tapkee_%d.npy" % (method, n))
            if "error" not in best.get("tapkee", {"error": 1}) and "error" not in best.get("purego", {"error": 1}):
                q["trustworthiness_tapkee"] = quality(gorun, inp, ytk, ygo).get("trustworthiness")
            rows.append(("method", method, n, best, q))
        if not args.no_stages:
            # kNN search alone, on the 3-D roll.
            best = {}
            for tool in order:
                if tool == "tapkee":
                    continue
                if tool == "sklearn":
                    res = run(sk + ["--stage", "knn", xpath, "10"], args.max_seconds)
                else:
                    res = run([tools[tool], "-stage", "knn", "-in", xpath, "-k", "10"], 1800)
                best[tool] = res
                print("N=%d knn        %-9s %s" % (n, tool, res.get("error") or "%.3f s" % res["seconds"]), file=sys.stderr, flush=True)
            rows.append(("stage", "knn", n, best, {}))
            # Shortest paths alone, on the symmetrized k = 10 graph.
            g = kneighbors_graph(X, 10, mode="distance")
            g = g.maximum(g.T).tocsr()
            gpath = os.path.join(tmp, "G%d.mtx" % n)
            scipy.io.mmwrite(gpath, g)
            best = {}
            for tool in order[::-1]:
                if tool == "tapkee":
                    continue
                if tool == "sklearn":
                    why = sk_guard("paths", n)
                    res = {"error": "capped: " + why} if why else run(sk + ["--stage", "paths", gpath], args.max_seconds + 300)
                    if "error" not in res:
                        last[("paths", "sklearn")] = (n, res["seconds"], res["rss_mib"])
                    else:
                        capped.append("%s N = %d: %s" % (NAMES["paths"], n, res["error"]))
                else:
                    res = run([tools[tool], "-stage", "paths", "-graph", gpath], 1800)
                best[tool] = res
                print("N=%d paths      %-9s %s" % (n, tool, res.get("error") or "%.3f s, %.0f MiB" % (res["seconds"], res["rss_mib"])),
                      file=sys.stderr, flush=True)
            rows.append(("stage", "paths", n, best, {}))

    elapsed = time.time() - start
    load1 = os.getloadavg()
    gotools = list(tools)

    def cell(res, key, f):
        if res is None:
            return "–"
        if "error" in res:
            return "capped" if res["error"].startswith("capped") else "failed"
        return f(res[key])

    head = ["method", "N", "scikit-learn s"] + ["%s s" % t for t in gotools] + ["speed-up %s" % t for t in gotools] + \
           ["scikit-learn MiB"] + ["%s MiB" % t for t in gotools] + ["memory %s / sklearn" % t for t in gotools] + \
           ["Procrustes", "T sklearn", "T manifold"]
    if args.tapkee:
        head += ["tapkee s"] + ["speed-up %s vs tapkee" % t for t in gotools] + ["tapkee MiB", "T tapkee"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    shead = ["stage", "N", "scikit-learn / scipy s"] + ["%s s" % t for t in gotools] + ["speed-up %s" % t for t in gotools] + \
            ["scipy MiB"] + ["%s MiB" % t for t in gotools]
    slines = ["| " + " | ".join(shead) + " |", "|" + "---|" * len(shead)]
    headline = {}
    for kind, name, n, best, q in rows:
        s = best.get("sklearn")
        cells = [NAMES[name], str(n), cell(s, "seconds", fmt_s)]
        cells += [cell(best.get(t), "seconds", fmt_s) for t in gotools]
        for t in gotools:
            g = best.get(t)
            ok = s and g and "error" not in s and "error" not in g
            cells.append("%.1f×" % (s["seconds"] / g["seconds"]) if ok else "–")
            if ok:
                headline[(name, n, t, "speed")] = s["seconds"] / g["seconds"]
        cells += [cell(s, "rss_mib", lambda v: "%.0f" % v)] + [cell(best.get(t), "rss_mib", lambda v: "%.0f" % v) for t in gotools]
        if kind == "method":
            for t in gotools:
                g = best.get(t)
                ok = s and g and "error" not in s and "error" not in g
                cells.append("%.0f %%" % (100 * g["rss_mib"] / s["rss_mib"]) if ok else "–")
                if ok:
                    headline[(name, n, t, "mem")] = g["rss_mib"] / s["rss_mib"]
            cells += ["%.1e" % q["procrustes"] if "procrustes" in q else "–",
                      "%.4f" % q["trustworthiness_ref"] if "trustworthiness_ref" in q else "–",
                      "%.4f" % q["trustworthiness"] if "trustworthiness" in q else "–"]
            if args.tapkee:
                tkr = best.get("tapkee")
                cells.append(cell(tkr, "seconds", fmt_s))
                for t in gotools:
                    g = best.get(t)
                    ok = tkr and g and "error" not in tkr and "error" not in g
                    cells.append("%.1f×" % (tkr["seconds"] / g["seconds"]) if ok else "–")
                cells += [cell(tkr, "rss_mib", lambda v: "%.0f" % v),
                          "%.4f" % q["trustworthiness_tapkee"] if q.get("trustworthiness_tapkee") is not None else "–"]
            lines.append("| " + " | ".join(cells) + " |")
        else:
            slines.append("| " + " | ".join(cells) + " |")

    body = []
    body.append("## Peers: manifold against scikit-learn on the same inputs\n")
    body.append("Command: `/usr/bin/python3 bench/peers/peers.py %s` (%.0f min in all).  " % (" ".join(sys.argv[1:]), elapsed / 60))
    body.append("Machine: %s; load average %.1f at the start, %.1f at the end (the machine is shared: other processes ran beside, "
                "so absolute times carry noise; both sides were measured in the same run, alternating).  " % (machine(), load0[0], load1[0]))
    body.append("Software: scikit-learn %s, scipy %s, numpy %s (Debian python3, OpenBLAS threads: its default); %s; manifold commit %s; "
                "Go runs with GOMAXPROCS = %d.\n" % (sklearn.__version__, scipy.__version__, np.__version__, goversion, commit, os.cpu_count()))
    body.append("Protocol: `make_swiss_roll(N, noise=0.05, random_state=0)`, k = 10 neighbours, 2 output dimensions; PCA on the roll lifted to "
                "100 features. Settings matched (see bench/peers/sk_run.py): Isomap and LLE/LTSA defaults of scikit-learn with n_neighbors = 10 "
                "(ARPACK eigensolvers), SpectralEmbedding with n_neighbors = 11 against manifold's Laplacian eigenmaps with K = 10 and "
                "connectivity weights (scikit-learn counts the point itself), classical MDS as scikit-learn's KernelPCA of −½·D² "
                "(scikit-learn's `MDS` is SMACOF, an iterative stress minimization, a different method). Time: the fit inside each process "
                "(best of %d repetitions for N ≤ 2000, of %d above but one for scikit-learn); memory: the process's peak resident set (/usr/bin/time -v), which "
                "includes the Python interpreter and libraries (about 100 MiB) or the Go runtime. Speed-up = scikit-learn's time / manifold's; "
                "memory = manifold's peak / scikit-learn's. Procrustes = disparity between manifold's (pure Go) and scikit-learn's "
                "embeddings (0 = equal up to rotation, reflection and scale); T = trustworthiness (k = 10) of each.\n" % (args.reps, args.reps_large))
    if args.tapkee:
        tkc = subprocess.run(["git", "-C", os.path.dirname(os.path.dirname(os.path.abspath(args.tapkee))), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip() or "unknown"
        body.append("tapkee: built from its public source (lisitsyn/tapkee commit %s) outside the repository by "
                    "bench/peers/build_tapkee.sh (Release, -O3 -march=native, Eigen 3.4, ARPACK, OpenMP on both cores), run by "
                    "bench/peers/tk_run.py with vp-tree neighbours and the ARPACK eigensolver; its time is the embedding time it reports "
                    "itself (reading its CSV input is not counted). Its Laplacian eigenmaps use its default heat kernel (width 1). "
                    "Speed-up vs tapkee = tapkee's time / manifold's.\n" % tkc)
    body += lines
    if not args.no_stages:
        body.append("\nThe stages alone (same inputs): the kNN search (scikit-learn NearestNeighbors(10).kneighbors(), k-d tree "
                    "on 3 features, against engine/neighbors.KNN) and all-pairs shortest paths on the symmetrized k = 10 graph "
                    "(scipy shortest_path(method='D', directed=False), as Isomap calls it, against sparse.AllPairsShortestPaths):\n")
        body += slines
    if capped:
        body.append("\nscikit-learn runs not made or not finished: " + "; ".join(capped) + ".")
    targets = []
    for n in (5000, 10000):
        for t, goal in (("openblas", 5), ("purego", 4)):
            v = headline.get(("isomap", n, t, "speed"))
            if v is not None:
                targets.append("Isomap N = %d %s: %.1f× (target ≥ %d×) %s" % (n, t, v, goal, "met" if v >= goal else "NOT met"))
            m = headline.get(("isomap", n, t, "mem"))
            if m is not None:
                targets.append("memory %.0f %% of scikit-learn's (target ≤ 35 %%) %s" % (100 * m, "met" if m <= 0.35 else "NOT met"))
    if targets:
        body.append("\nTargets: " + "; ".join(targets) + ".")
    text = "\n".join(body) + "\n"
    if args.results:
        update_section(args.results, args.section, text)
    print(text)
    for f in os.listdir(tmp):
        if f.endswith((".npy", ".mtx")) or f.startswith("gorun-"):
            os.remove(os.path.join(tmp, f))
    with open(os.path.join(tmp, "rows.json"), "w") as f:
        json.dump([[k, nm, n, b, q] for k, nm, n, b, q in rows], f)
    print("raw results in", os.path.join(tmp, "rows.json"), file=sys.stderr)


if __name__ == "__main__":
    main()
