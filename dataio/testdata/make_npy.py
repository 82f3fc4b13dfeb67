#!/usr/bin/python3
"""Writes the .npy fixtures of dataio's tests with numpy (Debian's
/usr/bin/python3, numpy 1.24). Run from this directory:

    /usr/bin/python3 make_npy.py

Every numeric array holds base = arange(12).reshape(3, 4) - 5 (the values
-5 … 6), base + 5 for unsigned dtypes and base > 0 for bool, so the Go test
knows the expected values without reading anything else.
"""
import numpy as np

base = np.arange(12).reshape(3, 4) - 5


def values(dt):
    if dt.kind == "u":
        return (base + 5).astype(dt)
    if dt.kind == "b":
        return base > 0
    return base.astype(dt)


for code in ["b1", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8"]:
    for endian in ["<", ">"]:
        dt = np.dtype(endian + code)
        if dt.itemsize == 1 and endian == ">":
            continue
        a = values(dt)
        tag = {"<": "le", ">": "be"}[endian]
        np.save(f"{code}_{tag}_c.npy", np.ascontiguousarray(a))
        np.save(f"{code}_{tag}_f.npy", np.asfortranarray(a))

# Shapes other than 2-D: 3-D stacks (rows, then the rest flattened in C
# order), 1-D, 0-D.
cube = np.arange(24, dtype="<f8").reshape(2, 3, 4)
np.save("cube_c.npy", cube)
np.save("cube_f.npy", np.asfortranarray(cube))
np.save("vector.npy", np.arange(5, dtype="<i4"))
np.save("scalar.npy", np.float64(2.5))

# Format versions 2.0 and 3.0.
for v in [(2, 0), (3, 0)]:
    with open(f"version{v[0]}.npy", "wb") as f:
        np.lib.format.write_array(f, base.astype("<f8"), version=v)

# What numpy writes for arange(6.).reshape(2, 3): the Go writer must produce
# the same bytes.
np.save("written_by_numpy.npy", np.arange(6.0).reshape(2, 3))

# Refused: complex, strings, structured, extended precision, empty.
np.save("complex.npy", np.ones((2, 2), dtype="<c16"))
np.save("strings.npy", np.array(["a", "bc"]))
np.save("structured.npy", np.zeros(2, dtype=[("x", "<f8"), ("y", "<i4")]))
np.save("longdouble.npy", np.ones(2, dtype=np.longdouble))
np.save("empty.npy", np.zeros((0, 3)))
np.save("nan.npy", np.array([[1.0, 2.0], [np.nan, 4.0]]))
