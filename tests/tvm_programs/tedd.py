"""TVM's tutorial tedd, written anew: a conv layer with bias and relu (HWCN, as the tutorial's;
the tutorial takes it and its schedule from topi, written here in te), its dataflow graph,
schedule tree and itervar relation graph drawn to DOT files before and after normalize; the
pictures name every stage and the loops the schedule made, and the build computes what
NumPy computes."""

import os
import re
import tempfile

import numpy as np
import tvm
from tvm import te
from tvm.contrib import tedd

size, channels, filters, kernel = 8, 4, 8, 3
A = te.placeholder((size, size, channels, 1), name="A")
W = te.placeholder((kernel, kernel, channels, filters), name="W")
bias = te.placeholder((1, filters, 1), name="bias")
pad = te.compute((size + 2, size + 2, channels, 1), lambda y, x, c, n: tvm.tir.if_then_else(
    tvm.tir.all(y >= 1, y <= size, x >= 1, x <= size), A[y - 1, x - 1, c, n], 0.0), name="PaddedInput")
rc = te.reduce_axis((0, channels), name="rc")
ry = te.reduce_axis((0, kernel), name="ry")
rx = te.reduce_axis((0, kernel), name="rx")
conv = te.compute((size, size, filters, 1), lambda y, x, f, n: te.sum(
    pad[y + ry, x + rx, rc, n] * W[ry, rx, rc, f], axis=[ry, rx, rc]), name="Conv2dOutput")
biased = te.compute(conv.shape, lambda y, x, f, n: conv[y, x, f, n] + bias[0, f, 0], name="T_add")
relu = te.compute(conv.shape, lambda y, x, f, n: te.max(biased[y, x, f, n], 0.0), name="T_relu")

s = te.create_schedule(relu.op)
s[pad].compute_inline()
s[biased].compute_inline()
y, x, f, n = s[relu].op.axis
fo, fi = s[relu].split(f, factor=4)
s[relu].reorder(y, x, fo, n, fi)
s[relu].vectorize(fi)
s[conv].compute_at(s[relu], fo)

folder = tempfile.mkdtemp()
paths = {name: os.path.join(folder, name + ".dot") for name in ("dfg", "scheduletree", "scheduletree2", "itervar")}
tedd.viz_dataflow_graph(s, dot_file_path=paths["dfg"])
tedd.viz_schedule_tree(s, dot_file_path=paths["scheduletree"])
s = s.normalize()
tedd.viz_schedule_tree(s, dot_file_path=paths["scheduletree2"])
tedd.viz_itervar_relationship_graph(s, dot_file_path=paths["itervar"])

texts = {name: open(path).read() for name, path in paths.items()}
assert all(text.startswith("digraph") for text in texts.values())
for stage in ("A", "W", "bias", "PaddedInput", "Conv2dOutput", "T_add", "T_relu"):
    assert re.search(rf"\b{stage}\b", texts["dfg"]), stage
for loop in ("f.outer", "f.inner"):
    assert loop in texts["itervar"] and loop in texts["scheduletree2"], loop

func = tvm.build(s, [A, W, bias, relu], "llvm")
a = np.random.uniform(size=(size, size, channels, 1)).astype("float32")
w = np.random.uniform(-1, 1, size=(kernel, kernel, channels, filters)).astype("float32")
b = np.random.uniform(-1, 1, size=(1, filters, 1)).astype("float32")
out = tvm.nd.empty((size, size, filters, 1))
func(tvm.nd.array(a), tvm.nd.array(w), tvm.nd.array(b), out)
padded = np.pad(a, ((1, 1), (1, 1), (0, 0), (0, 0)))
expected = np.zeros((size, size, filters, 1), "float32")
for dy in range(kernel):
    for dx in range(kernel):
        expected += np.einsum("yxcn,cf->yxfn", padded[dy:dy + size, dx:dx + size], w[dy, dx])
expected = np.maximum(expected + b[0, :, 0][None, None, :, None], 0)
tvm.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)
