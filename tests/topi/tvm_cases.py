"""Operator cases run by TVM (``make_tvm_outputs.py``, by hand, in a virtual environment with
``apache-tvm``) and by us (``test_tvm_outputs.py``): name, input shapes, and the call that builds
the output from the placeholders. The same text builds on both, TVM's topi and ours."""


def cases():
    """(name, input shapes, build(topi, te, *placeholders)) for each case."""
    return [
        ("conv_s2_p4_d2", [(1, 4, 9, 8), (6, 4, 3, 3)], lambda topi, te, A, W: topi.nn.conv2d_nchw(A, W, 2, (0, 1, 2, 1), 2)),
        ("conv_same", [(1, 4, 9, 8), (6, 4, 3, 3)], lambda topi, te, A, W: topi.nn.conv2d_nchw(A, W, 2, "SAME", 1)),
        ("conv_same_even", [(1, 3, 7, 8), (4, 3, 2, 4)], lambda topi, te, A, W: topi.nn.conv2d_nchw(A, W, 1, "SAME", 1)),
        ("conv1d_same_even", [(2, 3, 11), (4, 3, 4)], lambda topi, te, A, W: topi.nn.conv1d_ncw(A, W, 2, "SAME", 2)),
        ("group_conv1d_nwc", [(1, 10, 6), (3, 2, 6)], lambda topi, te, A, W: topi.nn.group_conv1d_nwc(A, W, 1, (2, 1), 1, 3)),
        ("conv3d_ncdhw", [(1, 2, 5, 6, 4), (3, 2, 3, 2, 2)], lambda topi, te, A, W: topi.nn.conv3d_ncdhw(A, W, (1, 2, 1), (1, 0, 1), (1, 1, 2), 1)),
        ("conv3d_ndhwc_group", [(1, 4, 5, 3, 4), (2, 3, 2, 2, 6)], lambda topi, te, A, W: topi.nn.conv3d_ndhwc(A, W, 1, "SAME", 1, 2)),
        ("group_conv2d_nhwc", [(1, 7, 6, 4), (3, 3, 2, 6)], lambda topi, te, A, W: topi.nn.group_conv2d_nhwc(A, W, 2, 1, 1, 2)),
        ("conv1d_transpose", [(1, 3, 7), (3, 4, 3)], lambda topi, te, A, W: topi.nn.conv1d_transpose_ncw(A, W, 2, 1, "float32", 1)),
        ("conv3d_transpose", [(1, 2, 3, 4, 3), (2, 3, 2, 3, 2)], lambda topi, te, A, W: topi.nn.conv3d_transpose_ncdhw(A, W, (2, 1, 2), (0, 1, 1), "float32", (1, 0, 0))),
        ("group_transpose", [(1, 4, 5, 4), (4, 3, 3, 2)], lambda topi, te, A, W: topi.nn.group_conv2d_transpose_nchw(A, W, (2, 1), (1, 0), "float32", (1, 0), 2)),
        ("group", [(1, 4, 9, 8), (6, 2, 3, 3)], lambda topi, te, A, W: topi.nn.group_conv2d_nchw(A, W, 1, 1, 1, 2)),
        ("nhwc", [(1, 9, 8, 4), (3, 3, 4, 6)], lambda topi, te, A, W: topi.nn.conv2d_nhwc(A, W, 2, 1, 1)),
        ("depthwise", [(1, 4, 9, 8), (4, 2, 3, 3)], lambda topi, te, A, W: topi.nn.depthwise_conv2d_nchw(A, W, 2, 1, 1)),
        ("transpose", [(1, 4, 9, 8), (4, 5, 3, 3)], lambda topi, te, A, W: topi.nn.conv2d_transpose_nchw(A, W, (2, 2), (1, 1), "float32", (1, 0))),
        ("pool_max_ceil", [(1, 3, 9, 8)], lambda topi, te, A: topi.nn.pool2d(A, (3, 2), (2, 2), (1, 2), (1, 0, 1, 1), "max", True, "NCHW", True)),
        ("pool_avg", [(1, 3, 9, 8)], lambda topi, te, A: topi.nn.pool2d(A, (3, 2), (2, 2), (1, 2), (1, 0, 1, 1), "avg", False, "NCHW", True)),
        ("pool_avg_ceil", [(1, 3, 9, 8)], lambda topi, te, A: topi.nn.pool2d(A, (3, 2), (2, 2), (1, 2), (1, 0, 1, 1), "avg", True, "NCHW", True)),
        ("pool_avg_ceil_nopad", [(1, 3, 9, 8)], lambda topi, te, A: topi.nn.pool2d(A, (3, 2), (2, 2), (1, 2), (1, 0, 1, 1), "avg", True, "NCHW", False)),
        ("pool_avg_nhwc", [(1, 9, 8, 3)], lambda topi, te, A: topi.nn.pool2d(A, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "avg", False, "NHWC", False)),
        ("adaptive_max", [(1, 3, 9, 8)], lambda topi, te, A: topi.nn.adaptive_pool(A, (4, 3), "max")),
        ("adaptive_avg", [(1, 3, 9, 8)], lambda topi, te, A: topi.nn.adaptive_pool(A, (4, 3), "avg")),
        ("global_avg", [(1, 3, 9, 8)], lambda topi, te, A: topi.nn.global_pool(A, "avg")),
        ("softmax", [(3, 5, 4)], lambda topi, te, A: topi.nn.softmax(A, 1)),
        ("log_softmax", [(3, 5)], lambda topi, te, A: topi.nn.log_softmax(A)),
        ("lrn", [(1, 6, 3, 4)], lambda topi, te, A: topi.nn.lrn(A, 3, 1, 0.1, 0.75, 2.0)),
        ("layer_norm", [(3, 5, 4), (5, 4), (5, 4)], lambda topi, te, A, G, B: topi.nn.layer_norm(A, G, B, (1, 2))),
        ("up_nn", [(1, 2, 5, 4)], lambda topi, te, A: topi.nn.upsampling(A, 2, 1.5)),
        ("up_bilinear", [(1, 2, 5, 4)], lambda topi, te, A: topi.nn.upsampling(A, 2, 1.5, method="bilinear")),
        ("up_bilinear_ac", [(1, 2, 5, 4)], lambda topi, te, A: topi.nn.upsampling(A, 2, 1.5, method="bilinear", align_corners=True)),
        ("up_nn_ac", [(1, 2, 5, 4)], lambda topi, te, A: topi.nn.upsampling(A, 2, 1.5, align_corners=True)),
        ("dilate", [(2, 3, 4)], lambda topi, te, A: topi.nn.dilate(A, (1, 2, 3))),
        ("strided_slice", [(4, 6, 5)], lambda topi, te, A: topi.strided_slice(A, [1, -1, 0], [3, 0, 5], [1, -2, 2])),
        ("layout", [(1, 6, 3, 4)], lambda topi, te, A: topi.layout_transform(A, "NCHW", "NCHW4c")),
        ("tile", [(2, 3)], lambda topi, te, A: topi.tile(A, (2, 1, 3))),
        ("batch_matmul", [(2, 5, 7), (1, 3, 7)], lambda topi, te, A, B: topi.nn.batch_matmul(A, B)),
        ("prelu", [(2, 3, 4)], lambda topi, te, A: topi.nn.prelu(A, te.compute((3,), lambda i: A[0, i, 0] * 0.5), 1)),
        ("argmax", [(3, 4, 5)], lambda topi, te, A: topi.argmax(A, axis=(0, 2), keepdims=True)),
    ]
