"""TVM's tutorial tedd, written anew: a conv layer with bias and relu from topi (HWCN, as the
tutorial's, with topi's generic schedule, then one split), its dataflow graph,
schedule tree and itervar relation graph drawn to DOT files before and after normalize; the
pictures name every stage and the loops the schedule made, and the build computes what
NumPy computes."""

import os
import re
import tempfile

import numpy as np
import tvm
from tvm import te, topi
from tvm.contrib import tedd

size, channels, filters, kernel = 8, 4, 8, 3
A = te.placeholder((size, size, channels, 1), name="A")
W = te.placeholder((kernel, kernel, channels, filters), name="W")
bias = te.placeholder((1, filters, 1), name="bias")
with tvm.target.Target("llvm"):
    conv = topi.nn.conv2d_hwcn(A, W, 1, "SAME", 1)
    relu = topi.nn.relu(topi.add(conv, bias))
    s = topi.generic.schedule_conv2d_hwcn([relu])
assert len(s.stages) == 7 and all(not st.relations for st in s.stages)  # TVM's default: as created

s[relu.op.input_tensors[0]].compute_inline()  # the tutorial stops at the default schedule; more here
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
for stage in ("A", "W", "bias", "PaddedInput", "Conv2dOutput", "T_add", "compute"):
    assert re.search(rf"\b{stage}\b", texts["dfg"]), stage
for loop in ("i2.outer", "i2.inner"):
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
