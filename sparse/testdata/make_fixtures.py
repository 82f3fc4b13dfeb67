#!/usr/bin/python3
"""Fixtures for the sparse package's tests, made with Debian's scipy.

Run from this folder:  /usr/bin/python3 make_fixtures.py
Writes small files only (a few kB each):

  graph_directed.mtx     random weighted directed graph, 60 vertices, with
                         unreachable pairs and three weak components
  sp_directed.txt        scipy.sparse.csgraph.shortest_path(g, method='D')
  sp_undirected.txt      ... with directed=False
  cc_labels.txt          connected_components(g, connection='weak') labels
  mm_general.mtx         scipy.io.mmwrite of a general real sparse matrix
  mm_symmetric.mtx       ... of a symmetric one (scipy writes the lower triangle)
  mm_integer.mtx         ... of an integer one
  mm_pattern.mtx         ... with field='pattern'
  mm_array.mtx           ... of a dense array (array format)
  mm_general.mtx.gz      gzip of mm_general.mtx
  mm_*.dense.txt         the dense matrices, for comparison
  tfidf_counts.mtx       a small document-term count matrix
  tfidf_sklearn.txt      sklearn's TfidfTransformer() (defaults) of it, dense
"""
import gzip
import shutil

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp
from scipy.sparse import csgraph

rng = np.random.default_rng(20261121)

# A directed graph in three blocks (weakly connected inside each block),
# about 8% of the pairs, integer-plus-half weights (exact in binary) and a
# few explicit ties.
n = 60
blocks = [range(0, 25), range(25, 45), range(45, 60)]
rows, cols, vals = [], [], []
for b in blocks:
    b = list(b)
    # A directed path keeps the block weakly connected.
    for u, v in zip(b[:-1], b[1:]):
        if rng.random() < 0.5:
            u, v = v, u
        rows.append(u); cols.append(v); vals.append(float(rng.integers(1, 20)) / 2)
    for _ in range(len(b) * 2):
        u, v = rng.choice(b, 2, replace=False)
        rows.append(u); cols.append(v); vals.append(float(rng.integers(1, 20)) / 2)
g = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
g.sum_duplicates()
g.data = np.minimum(g.data, 12.0)  # summed duplicates stay small
scipy.io.mmwrite("graph_directed.mtx", g, comment="random directed test graph")
g = scipy.io.mmread("graph_directed.mtx").tocsr()
np.savetxt("sp_directed.txt", csgraph.shortest_path(g, method="D", directed=True), fmt="%.17g")
np.savetxt("sp_undirected.txt", csgraph.shortest_path(g, method="D", directed=False), fmt="%.17g")
_, labels = csgraph.connected_components(g, directed=True, connection="weak")
np.savetxt("cc_labels.txt", labels, fmt="%d")

# MatrixMarket files as scipy writes them.
a = sp.random(7, 5, density=0.4, random_state=1, format="csr")
a.data = a.data * 10 - 3
a.data = np.round(a.data, 6)
scipy.io.mmwrite("mm_general.mtx", a)
np.savetxt("mm_general.dense.txt", a.toarray(), fmt="%.17g")
s = sp.random(6, 6, density=0.4, random_state=2, format="csr")
s = s + s.T
scipy.io.mmwrite("mm_symmetric.mtx", s)
np.savetxt("mm_symmetric.dense.txt", s.toarray(), fmt="%.17g")
i = sp.csr_matrix(rng.integers(-3, 4, size=(4, 6)) * (rng.random((4, 6)) < 0.5))
scipy.io.mmwrite("mm_integer.mtx", i)
np.savetxt("mm_integer.dense.txt", i.toarray(), fmt="%.17g")
p = sp.random(5, 5, density=0.3, random_state=3, format="csr")
scipy.io.mmwrite("mm_pattern.mtx", p, field="pattern")
np.savetxt("mm_pattern.dense.txt", (p.toarray() != 0).astype(float), fmt="%.17g")
d = np.round(rng.standard_normal((3, 4)), 4)
d[1, 2] = 0
scipy.io.mmwrite("mm_array.mtx", d)
np.savetxt("mm_array.dense.txt", d, fmt="%.17g")
with open("mm_general.mtx", "rb") as src, gzip.open("mm_general.mtx.gz", "wb") as dst:
    shutil.copyfileobj(src, dst)

from sklearn.feature_extraction.text import TfidfTransformer

counts = sp.csr_matrix(rng.integers(0, 4, size=(6, 8)) * (rng.random((6, 8)) < 0.4))
counts[5, :] = 0  # an empty document
counts = sp.csr_matrix(counts)
counts.eliminate_zeros()
scipy.io.mmwrite("tfidf_counts.mtx", counts)
np.savetxt("tfidf_sklearn.txt", TfidfTransformer().fit_transform(counts).toarray(), fmt="%.17g")
print("scipy", scipy.__version__, "numpy", np.__version__)
