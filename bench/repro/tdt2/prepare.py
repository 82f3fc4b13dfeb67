#!/usr/bin/env python3
"""Prepare TDT2 (NIST Topic Detection and Tracking corpus, phase 2) as a
second text corpus for the Isometric Projection Table 1 protocol
(bench/repro/isoproj-table1 -corpus tdt2), in the layout of ../shared/data:

    OUT/tdt2/tdt2_X.mtx.gz   documents x terms, term frequencies,
                             MatrixMarket coordinate, 1-based
    OUT/tdt2/tdt2_y.txt      category of each document, one per line
    OUT/tdt2/tdt2_meta.json  shape, source, category sizes

The input is Deng Cai's preprocessed TDT2 (9394 documents of the 30
largest categories, 36771 terms, documents with several categories
removed; used by Cai, He & Han's papers on document clustering), as a
MATLAB file. The copy this project used is the public repository
jiangelle/Mat-data-time (commit 1125d509f310a11cdcc690e4d2c669ed453bb568),
whose TDT2.mat holds one sparse matrix `fea` of 9394 x 36773: the 36771
term frequencies, then the category (1..30), then a time stamp. A file
with Deng Cai's own layout (`fea` 9394 x 36771 and `gnd`) is read too.
The corpus is not part of this repository; nothing here copies it.

    git -C <mirror of jiangelle/Mat-data-time> show HEAD:TDT2.mat > /tmp/TDT2.mat
    /usr/bin/python3 bench/repro/tdt2/prepare.py /tmp/TDT2.mat /tmp/corpora
    MANIFOLD_DATA=/tmp/corpora go run ./bench/repro/isoproj-table1 -corpus tdt2 ...
"""
import gzip
import json
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

TERMS = 36771


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: prepare.py TDT2.mat OUTDIR")
    src, out = sys.argv[1], sys.argv[2]
    m = scipy.io.loadmat(src)
    fea = sp.csr_matrix(m["fea"], dtype=np.float64)
    if "gnd" in m:
        y = np.asarray(m["gnd"]).astype(int).ravel()
        x = fea
        layout = "fea (documents x terms) and gnd"
    elif fea.shape[1] == TERMS + 2:
        y = fea[:, TERMS].toarray().astype(int).ravel()
        x = fea[:, :TERMS]
        layout = "fea with the category in column 36772 and a time stamp in column 36773"
    else:
        sys.exit(f"{src}: fea is {fea.shape[0]} x {fea.shape[1]} without gnd: not a TDT2 layout this script knows")
    x.eliminate_zeros()
    if x.shape[0] != len(y):
        sys.exit(f"{src}: {x.shape[0]} documents, {len(y)} labels")
    if x.data.size and (x.data.min() < 0 or not np.all(np.isfinite(x.data))):
        sys.exit(f"{src}: term frequencies must be finite and non-negative")
    empty = np.flatnonzero(np.diff(x.indptr) == 0)
    d = os.path.join(out, "tdt2")
    os.makedirs(d, exist_ok=True)
    with gzip.open(os.path.join(d, "tdt2_X.mtx.gz"), "wb") as f:
        scipy.io.mmwrite(f, x.tocoo(), field="real", comment="TDT2, Deng Cai's term frequencies, rows = documents")
    np.savetxt(os.path.join(d, "tdt2_y.txt"), y, fmt="%d")
    cats, counts = np.unique(y, return_counts=True)
    meta = {
        "name": "tdt2",
        "shape": list(x.shape),
        "nnz": int(x.nnz),
        "format": "MatrixMarket coordinate real general, 1-based indices, rows=documents",
        "labels": {"n": int(len(y)), "classes": int(len(cats)),
                   "sizes": {str(int(c)): int(n) for c, n in zip(cats, counts)}},
        "empty_documents": int(len(empty)),
        "source": f"{os.path.basename(src)}: {layout}",
        "values": "term frequencies",
    }
    with open(os.path.join(d, "tdt2_meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"tdt2: {x.shape[0]} x {x.shape[1]}, {x.nnz} non-zeros, {len(cats)} categories "
          f"(sizes {counts.max()}..{counts.min()}), {len(empty)} empty documents -> {d}", file=sys.stderr)


if __name__ == "__main__":
    main()
