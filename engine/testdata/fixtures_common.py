"""What the fixture scripts of this folder share: where they write, where
the real data are (../shared/data, beside the repository), how a fixture
is written (JSON with the scikit-learn version) and how a dataset is read.
"""
import gzip
import json
import os

import numpy as np
import sklearn

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "shared", "data")


def dumper(prefix):
    """Returns dump(name, **arrays), which writes HERE/<prefix><name>.json."""
    def dump(name, **kw):
        out = {"sklearn": sklearn.__version__}
        for k, v in kw.items():
            out[k] = v.tolist() if isinstance(v, np.ndarray) else v
        with open(os.path.join(HERE, "%s%s.json" % (prefix, name)), "w") as f:
            json.dump(out, f)
        print("wrote", name)
    return dump


def load(tag):
    with gzip.open(os.path.join(DATA, tag, tag + "_X.csv.gz"), "rt") as f:
        return np.loadtxt(f, delimiter=",", dtype=np.float64)


def load_labels(tag):
    return np.loadtxt(os.path.join(DATA, tag, tag + "_y.txt"), dtype=np.int64)
