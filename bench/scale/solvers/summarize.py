#!/usr/bin/python3
"""Summarizes the output of run.sh: per case, the best time of every peer
over the rounds, and the speed-up of each Go build over scipy as the median
of the per-round ratios (the peers of one round ran minutes apart, so
their ratio suffers less from the load of a shared machine than the ratio
of bests).

    /usr/bin/python3 bench/scale/solvers/summarize.py run-output.txt
"""
import re
import statistics
import sys
from collections import defaultdict

EIG = re.compile(r"^(scipy eigsh|go lanczos) (\S+)\s+k=(\d+)\s+tol=(\S+)\s+([\d.]+) s\s+(\d+) matvecs\s+max rel residual (\S+)")
LSQ = re.compile(r"^(scipy lsqr|go lsqr) 5000x1000 rhs=(\d+)\s+damp=(\S+) tol=\S+: ([\d.]+) s")
BACKEND = re.compile(r"backend=(\w+)")


def peer(line, name):
    if name.startswith("scipy"):
        return "scipy"
    b = BACKEND.search(line)
    return "go-" + (b.group(1) if b else "?")


def main():
    rounds = []
    cur = None
    for line in open(sys.argv[1]):
        line = line.rstrip("\n")
        if line.startswith("## round"):
            cur = {}
            rounds.append(cur)
            continue
        if cur is None:
            continue
        m = EIG.match(line)
        if m:
            who = peer(line, m.group(1))
            key = ("eigs %s k=%s" % (m.group(2), m.group(3)), who, m.group(4) if who == "scipy" else "")
            cur[key] = (float(m.group(5)), int(m.group(6)), m.group(7))
            continue
        m = LSQ.match(line)
        if m:
            who = peer(line, m.group(1))
            key = ("lsqr rhs=%s damp=%s" % (m.group(2), m.group(3)), who, "")
            cur[key] = (float(m.group(4)), 0, "")
    best = defaultdict(lambda: (1e30, 0, ""))
    for r in rounds:
        for k, v in r.items():
            if v[0] < best[k][0]:
                best[k] = v
    cases = sorted({k[0] for k in best})
    for case in cases:
        print(case)
        for k in sorted(kk for kk in best if kk[0] == case):
            t, mv, res = best[k]
            extra = ("  %d matvecs, residual %s" % (mv, res)) if mv else ""
            print("   %-14s %-9s best %.3f s%s" % (k[1], k[2], t, extra))
        scipy_keys = [kk for kk in best if kk[0] == case and kk[1] == "scipy"]
        for sk in scipy_keys:
            for gk in sorted(kk for kk in best if kk[0] == case and kk[1] != "scipy"):
                ratios = [r[sk][0] / r[gk][0] for r in rounds if sk in r and gk in r]
                if ratios:
                    print("   speed-up %s vs scipy %s: median %.2f× over %d rounds (range %.2f–%.2f)" %
                          (gk[1], sk[2] or "", statistics.median(ratios), len(ratios), min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
