"""The reshape/broadcast patent's rewrites on group normalization.

``reduce(reshape(image, [B,H,W,C/G,G]), [1,2,3])`` becomes
``reduce(reshape(reduce(image, [1,2]), [B,C/G,G]), [1])``; the mean subtracted back through
``reshape(subtract(reshape(image), broadcast(mean)))`` becomes a subtraction on the image's own
shape. The report shows how many elements the reshapes move before and after.
Run: python tutorials/reshape_rewrites.py
"""

from __future__ import annotations

import numpy as np

import schedule as te
from lower import reference
from schedule import ops, rewrite


def main() -> None:
    B, H, W, C, G = 2, 8, 8, 16, 4
    image = te.placeholder((B, H, W, C), name="image")
    x = np.random.default_rng(0).integers(-8, 9, size=(B, H, W, C)).astype("float32")

    print("==== group sums: reduce(reshape(image, [B,H,W,C/G,G]), [1,2,3])")
    sums = ops.reduce(ops.reshape(image, (B, H, W, C // G, G)), None, [1, 2, 3], "add")
    new, report = rewrite.optimize_reshapes(sums)
    print(report)
    print(f"(B*H*W*C = {B * H * W * C}, B*C = {B * C})")
    same = np.array_equal(reference(sums, {image: x})[sums], reference(new, {image: x})[new])
    print(f"same result: {same}\n")

    print("==== centring by the group sums, reshaped back")
    grouped = ops.reshape(image, (B, H, W, C // G, G))
    total = ops.reduce(grouped, None, [1, 2, 3], "add")
    centred = ops.reshape(ops.subtract(grouped, ops.broadcast(total, (B, H, W, C // G, G), [0, 4])),
                          (B, H, W, C))
    new, report = rewrite.optimize_reshapes(centred)
    print(report)
    same = np.array_equal(reference(centred, {image: x})[centred], reference(new, {image: x})[new])
    print(f"same result: {same}")
    if not same:
        raise SystemExit("a rewrite changed a result")


if __name__ == "__main__":
    main()
