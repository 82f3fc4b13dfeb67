#!/usr/bin/env python3
"""Per-row costs and rates from BenchmarkProject's output (beam/bench_test.go).

Usage: go test -c -o /tmp/beambench . && /tmp/beambench -test.run XXX \\
           -test.bench BenchmarkProject -test.benchtime 3x -test.count 3 -test.cpu 1,2 > out.txt
       python3 bench_rates.py out.txt

Each sub-benchmark runs at n and at 5·n rows. For every model, variant (inprocess,
inprocess-par, gen, pipeline) and GOMAXPROCS it prints the median time at both sizes and the
marginal cost of a row, (T(5n) − T(n)) / (4n): the steady-state cost without the runner's fixed
cost of a job. Then the ratios the issue's target is about: pipeline over inprocess, pipeline over
inprocess-par, and (pipeline − gen) over inprocess-par, each of the marginal costs.
"""
import re
import statistics
import sys
from collections import defaultdict

NAME = re.compile(r"^BenchmarkProject/([^/]+)/([^/]+)/rows=(\d+)(?:-(\d+))?\s")
RESULT = re.compile(r"\s(\d+)\s+([\d.]+) ns/op")


def main(path):
    times = defaultdict(list)  # (model, variant, procs, rows) -> [ns/op]
    pending = None  # the benchmark whose result is still to come (the runner's log lines come between)
    for line in open(path):
        m = NAME.match(line)
        if m:
            model, variant, rows, procs = m.groups()
            pending = (model, variant, int(procs or 1), int(rows))
        r = RESULT.search(line)
        if r and pending:
            times[pending].append(float(r.group(2)))
            pending = None
    med = {k: statistics.median(v) for k, v in times.items()}
    marginal = {}  # (model, variant, procs) -> ns a row
    for model, variant, procs in sorted({k[:3] for k in med}):
        sizes = sorted(r for (mo, va, p, r) in med if (mo, va, p) == (model, variant, procs))
        if len(sizes) != 2:
            continue
        lo, hi = sizes
        t_lo, t_hi = med[(model, variant, procs, lo)], med[(model, variant, procs, hi)]
        marginal[(model, variant, procs)] = (t_hi - t_lo) / (hi - lo)
        print(f"{model:16s} {variant:14s} procs {procs}: {t_lo / 1e6:8.1f} ms at {lo:7d} rows, "
              f"{t_hi / 1e6:8.1f} ms at {hi:7d}; marginal {marginal[(model, variant, procs)] / 1e3:6.2f} µs a row "
              f"(runs: {len(times[(model, variant, procs, lo)])}, {len(times[(model, variant, procs, hi)])})")
    print()
    for model, procs in sorted({(k[0], k[2]) for k in marginal}):
        g = lambda v: marginal.get((model, v, procs))
        ip, ipp, gen, pipe = g("inprocess"), g("inprocess-par"), g("gen"), g("pipeline")
        if None in (ip, ipp, gen, pipe):
            continue
        print(f"{model:16s} procs {procs}: pipeline / inprocess {pipe / ip:5.2f}, "
              f"pipeline / inprocess-par {pipe / ipp:5.2f}, (pipeline − gen) / inprocess-par {(pipe - gen) / ipp:5.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
