"""TVM's test_autotvm_space (v0.14), written anew: split policies and their counts, the
fallback split, and a multi_filter with the index helpers."""

from tvm import te
from tvm.autotvm.task.space import ConfigSpace, FallbackConfigEntity


def matmul_space(cfg, n, filter_y=None, filter_x=None):
    a = te.placeholder((n, n), name="A")
    b = te.placeholder((n, n), name="B")
    r = te.reduce_axis((0, n), name="r")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, r] * b[r, j], axis=[r]), name="C")
    s = te.create_schedule([c.op])
    row, col = s[c].op.axis
    cfg.define_split("tile_y", cfg.axis(row), num_outputs=2, filter=filter_y)
    cfg.define_split("tile_x", cfg.axis(col), num_outputs=2, filter=filter_x)
    return s, [a, b, c]


def fails(thunk):
    try:
        thunk()
    except Exception:
        return True
    return False


def test_split_policies():
    cfg = ConfigSpace()
    matmul_space(cfg, 128)
    assert cfg.range_length == 64 and len(cfg.space_map["tile_y"]) == 8

    cfg = ConfigSpace()
    for name, n, policy, count in [("a", 256, "factors", 45), ("b", 256, "power2", 45), ("c", 256, "verbose", 45),
                                   ("d", 224, "factors", 63), ("e", 224, "power2", 36), ("f", 224, "verbose", 84)]:
        cfg.define_split(name, cfg.axis(n), policy=policy, num_outputs=3)
        assert len(cfg.space_map[name]) == count, (name, len(cfg.space_map[name]))

    # 2**25 in four factors: the non-negative solutions of a + b + c + d = 25
    cfg = ConfigSpace()
    cfg.define_split("x", cfg.axis(2 ** 25), policy="factors", num_outputs=4)
    solutions = sum(25 - a - b + 1 for a in range(26) for b in range(26 - a))
    assert len(cfg.space_map["x"]) == solutions == 3276


def test_fallback_split():
    cfg = FallbackConfigEntity()
    cfg.define_split("tile_n", cfg.axis(128), num_outputs=3)
    cfg.fallback_split("tile_n", [-1, 8, 4])
    cfg.define_split("tile_n", cfg.axis(128), num_outputs=3)  # keeps the fallback's choice
    assert cfg["tile_n"].size == [4, 8, 4]

    cfg = FallbackConfigEntity()
    cfg.define_split("tile_n", cfg.axis(49), num_outputs=3)
    cfg.fallback_split("tile_n", [-1, 8, 4])
    assert cfg["tile_n"].size == [7, 7, 1]

    cfg = FallbackConfigEntity()
    cfg.define_split("tile_n", cfg.axis(49), num_outputs=3)
    try:
        cfg.fallback_split("tile_n", [-1, 1, 0])
    except RuntimeError:
        pass
    else:
        raise AssertionError("an infeasible fallback split must raise RuntimeError")


def in_tile_range(entity, low=32):
    return low <= entity["tile_x"].size[1] * entity["tile_y"].size[1] < 1024


def test_multi_filter_and_index_helpers():
    plain, kept = ConfigSpace(), ConfigSpace()
    matmul_space(plain, 128)
    matmul_space(kept, 128)
    kept.multi_filter(filter=in_tile_range)
    assert (len(plain), len(kept), plain.range_length, kept.range_length) == (64, 34, 64, 64)
    assert plain.dims == kept.dims == [8, 8]
    assert plain.is_index_valid(0) and plain.is_index_valid(15)
    assert not kept.is_index_valid(0) and kept.is_index_valid(15)
    assert not fails(lambda: plain.get(0)) and fails(lambda: kept.get(0)) and not fails(lambda: kept.get(15))

    for space, counts in [(plain, [64, 32, 16, 0]), (kept, [34, 17, 10, 0])]:
        assert [space.subrange_length(a, b) for a, b in [(0, 64), (0, 32), (16, 32), (16, 16)]] == counts
        for a, b in [(0, 128), (-64, 64), (64, 0)]:
            assert fails(lambda a=a, b=b, space=space: space.subrange_length(a, b))
        assert [space.point2knob(p) for p in (0, 4, 8, 12)] == [[0, 0], [4, 0], [0, 1], [4, 1]]
        assert [space.knob2point(k) for k in ([0, 0], [4, 0], [0, 1], [4, 1])] == [0, 4, 8, 12]

        valid = [i for i in range(space.range_length) if space.is_index_valid(i)]
        assert space.get_rand_index() in valid
        assert space.get_rand_index(start=15, end=16) == 15
        assert 10 <= space.get_rand_index(start=10, end=20) < 20
        assert space.get_rand_index(to_exclude=valid[:-1]) == valid[-1]
        sample = space.sample_ints(5)
        assert len(sample) == 5 and set(sample) <= set(valid)
        step = space.random_walk(15)
        assert step != 15 and step in valid

    assert [plain.get_next_index(0, n) for n in (1, 2, -1, -2)] == [1, 2, None, None]
    assert [plain.get_next_index(63, n) for n in (1, 2, -1, -2)] == [None, None, 62, 61]
    assert plain.get_next_index(60, 1, end=63) == 61 and plain.get_next_index(63, -1, start=60) == 62
    assert [kept.get_next_index(0, n) for n in (1, 2, -1, -2)] == [5, 6, None, None]
    assert [kept.get_next_index(63, n) for n in (1, 2, -1, -2)] == [None, None, 58, 57]
    assert kept.get_next_index(60, 1, end=63) is None and kept.get_next_index(63, -1, start=60) is None


def test_knob_filter_then_multi_filter_and_back():
    cfg = ConfigSpace()
    matmul_space(cfg, 128, filter_y=lambda y: y.size[-1] < 64)
    assert (len(cfg), cfg.range_length) == (48, 48)
    cfg.multi_filter(filter=in_tile_range)
    assert (len(cfg), cfg.range_length) == (27, 48)

    cfg = ConfigSpace()
    s, (a, b, c) = matmul_space(cfg, 128)
    cfg.multi_filter(filter=in_tile_range)
    assert (len(cfg), cfg.range_length) == (34, 64)
    row, _ = s[c].op.axis
    cfg.define_split("tile_y", cfg.axis(row), num_outputs=2, filter=lambda y: y.size[-1] < 64)
    assert (len(cfg), cfg.range_length) == (27, 48)


if __name__ == "__main__":
    test_split_policies()
    test_fallback_split()
    test_multi_filter_and_index_helpers()
    test_knob_filter_then_multi_filter_and_back()
