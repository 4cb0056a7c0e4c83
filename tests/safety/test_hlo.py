"""HLO that XLA refuses is refused here too, with its line; the indexing command answers bad
input in one line and prints maps simplified; a concatenate of thousands of operands is read
in time proportional to them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from schedule.xla import hlo
from schedule.xla.hlo_lexer import HloParseError

from .isolated import ROOT

REFUSED = {
    "gather slice_sizes beyond the operand": ("""
        ENTRY e {
          p0 = f32[4,6] parameter(0)
          p1 = s32[2,1] parameter(1)
          ROOT g = f32[2,4,7] gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0},
            index_vector_dim=1, slice_sizes={4,7}
        }""", r"line 6, column 33: gather 'g': slice size 7 of dimension 1 is outside \[0, 6\]"),
    "a to_apply parameter out of range": ("""
        add {
          x = f32[] parameter(0)
          y = f32[] parameter(5)
          ROOT s = f32[] add(x, y)
        }
        ENTRY e {
          p0 = f32[8] parameter(0)
          z = f32[] constant(0)
          ROOT r = f32[] reduce(p0, z), dimensions={0}, to_apply=add
        }""", r"line 4, .*parameter\(5\) is out of range in computation 'add', which has 2 parameter\(s\)"),
    "a to_apply of the wrong arity": ("""
        add3 {
          x = f32[] parameter(0)
          y = f32[] parameter(1)
          w = f32[] parameter(2)
          ROOT s = f32[] add(x, y)
        }
        ENTRY e {
          p0 = f32[8] parameter(0)
          z = f32[] constant(0)
          ROOT r = f32[] reduce(p0, z), dimensions={0}, to_apply=add3
        }""", r"reduce 'r': to_apply=add3 takes 3 parameter\(s\), but reduce gives it 2"),
    "two parameter(0)": ("""
        ENTRY e {
          p0 = f32[4] parameter(0)
          q0 = f32[4] parameter(0)
          ROOT a = f32[4] add(p0, q0)
        }""", r"line 4, .*parameter\(0\) is given twice in computation 'e' \('p0' on line 3 and 'q0'\)"),
    "a bitcast between widths": ("""
        ENTRY e {
          p0 = f32[4] parameter(0)
          ROOT b = s16[4] bitcast(p0)
        }""", r"bitcast 'b' turns f32\[4\] \(16 bytes\) into s16\[4\] \(8 bytes\)"),
    "an unknown opcode": ("""
        ENTRY e {
          p0 = f32[4] parameter(0)
          ROOT a = f32[4] addd(p0, p0)
        }""", r"line 4, .*unknown opcode 'addd' in 'a'"),
    "a shape of more elements than 64 bits count": ("""
        ENTRY e {
          ROOT p0 = f32[99999999999999999999999] parameter(0)
        }""", r"line 3, column 25: a shape of 99999999999999999999999 elements does not fit"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_what_xla_refuses_is_refused(case):
    text, message = REFUSED[case]
    with pytest.raises(HloParseError, match=message):
        hlo.parse(text)


def test_asynchronous_forms_of_known_opcodes_parse():
    mod = hlo.parse("""
        mul {
          x = f32[5] parameter(0)
          ROOT m = f32[5] multiply(x, x)
        }
        ENTRY e {
          p = f32[5] parameter(0)
          start = ((f32[5]), f32[5]) call-start(p), to_apply=mul
          ROOT done = f32[5] call-done(start)
        }""")
    assert mod.root is not None


def test_a_bitcast_of_the_same_bytes_between_widths_parses():
    mod = hlo.parse("""
        ENTRY e {
          p0 = f32[4] parameter(0)
          ROOT b = f16[8] bitcast(p0)
        }""")
    assert mod.root is not None


def _indexing(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bound.indexing", *args], capture_output=True, cwd=ROOT,
                          timeout=120)


@pytest.mark.parametrize("content, message", [
    (b"\x89PNG\x00\xff\xfe", "not HLO text: byte 0 (0x89) is not UTF-8"),
    (b"ENTRY e {\n  ROOT p0 = f32[99999999999999999999999] parameter(0)\n}\n", "line 2, column 17: a shape of"),
])
def test_the_indexing_command_answers_bad_input_in_one_line(tmp_path, content, message):
    path = tmp_path / "bad.hlo"
    path.write_bytes(content)
    done = _indexing(str(path))
    err = done.stderr.decode()
    assert done.returncode == 1 and err.count("\n") == 1 and message in err and "Traceback" not in err


def test_the_indexing_command_prints_maps_simplified(tmp_path):
    path = tmp_path / "reshape.hlo"
    path.write_text("""
        ENTRY e {
          p0 = f32[4,1,4096] parameter(0)
          ROOT r = f32[4,4096] reshape(p0)
        }""")
    simplified, raw = _indexing(str(path)).stdout.decode(), _indexing("--no-simplify", str(path)).stdout.decode()
    line = next(x for x in simplified.splitlines() if "operand 0" in x)
    assert "(d0, d1) -> (d0, 0, d1)" in line, line
    assert simplified != raw or "(d0, 0, d1)" in raw


def test_a_concatenate_of_two_thousand_operands_has_each_operands_map():
    n = 2000
    params = "\n".join(f"  p{i} = f32[2] parameter({i})" for i in range(n))
    mod = hlo.parse(f"ENTRY e {{\n{params}\n  ROOT c = f32[{2 * n}] concatenate({', '.join(f'p{i}' for i in range(n))}), "
                    "dimensions={0}\n}\n")
    from bound.indexing.analysis import output_to_inputs

    xs = mod.operands(mod.root)
    maps = output_to_inputs(mod.root, xs)
    for k in (0, 1, 999, 1999):
        (m,) = maps[xs[k]]
        assert str(m) == (f"(d0) -> (d0{f' - {2 * k}' if k else ''}), domain: d0 in [{2 * k}, {2 * k + 1}]")
