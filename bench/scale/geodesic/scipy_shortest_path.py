#!/usr/bin/python3
"""Times scipy.sparse.csgraph.shortest_path(method='D') on a MatrixMarket graph.

Usage: /usr/bin/python3 scipy_shortest_path.py GRAPH.mtx [--undirected]

The peer of bench/scale/geodesic (run.sh runs both on the same graph under the
timing lock). scipy's Dijkstra runs on one core; --undirected is what
scikit-learn's Isomap calls (directed=False).
"""
import sys
import time

import numpy as np
import scipy
import scipy.io
from scipy.sparse import csgraph

g = scipy.io.mmread(sys.argv[1]).tocsr()
directed = "--undirected" not in sys.argv
t0 = time.perf_counter()
d = csgraph.shortest_path(g, method="D", directed=directed)
sec = time.perf_counter() - t0
print(f"scipy {scipy.__version__} shortest_path(method='D', directed={directed}) "
      f"{d.shape[0]}x{d.shape[1]}: {sec:.3f} s; sum of finite distances {d[np.isfinite(d)].sum():.6e}")
