"""Mutated HLO modules: the parser and the analysis raise nothing but HloParseError."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bound import output_to_inputs
from schedule import hlo
from schedule.xla.hlo_lexer import tokenize

CASES = json.loads((Path(__file__).resolve().parents[1] / "data" / "xla_cases.json").read_text())
SEEDS = [c["hlo"] for c in CASES["op_cases"][::3]]
NOISE = ["(", ")", "{", "}", "[", "]", ",", "=", "->", "ROOT", "ENTRY", "%p0", "0", "-1", "f32[2]", "tuple",
         "fusion", "calls=", "index=7", "dimensions={9}", "()", "s32[]", "<=", "?", "/*", '"']


def _mutant(text: str, rng: random.Random) -> str:
    """*text* with a few token-level edits: deleted, repeated, swapped or inserted tokens,
    numbers changed."""
    tokens = [t for t in tokenize(text) if t.kind != "end"]
    words = [text[t.offset:t.offset + len(t.text)] for t in tokens]
    for _ in range(rng.randint(1, 4)):
        if not words:
            break
        k = rng.randrange(len(words))
        kind = rng.randrange(5)
        if kind == 0:
            del words[k]
        elif kind == 1:
            words.insert(k, words[k])
        elif kind == 2:
            j = rng.randrange(len(words))
            words[k], words[j] = words[j], words[k]
        elif kind == 3:
            words.insert(k, rng.choice(NOISE))
        elif words[k].isdigit():
            words[k] = str(rng.choice([0, 1, 2, 3, 17, 4096, 2**40]))
    return " ".join(words)


def _analyse(mod) -> None:
    for t in mod.instruction_tensors():
        output_to_inputs(t, mod.operands(t))


@pytest.mark.parametrize("seed", range(8))
def test_mutated_modules_raise_only_parse_errors(seed):
    rng = random.Random(seed)
    rejected = 0
    for _ in range(60):
        text = _mutant(rng.choice(SEEDS), rng)
        try:
            mod = hlo.parse(text)
        except hlo.HloParseError as err:
            assert err.line is None or err.line >= 1
            rejected += 1
            continue
        _analyse(mod)
    assert rejected > 0


CORPUS = Path(__file__).resolve().parents[3] / "shared" / "hlo_corpus"
SMALL = sorted(p for p in CORPUS.glob("*.hlo") if p.stat().st_size < 3000) if CORPUS.is_dir() else []


@pytest.mark.skipif(not SMALL, reason="no HLO corpus")
@pytest.mark.parametrize("seed", range(8))
def test_mutated_corpus_modules_raise_only_parse_errors(seed):
    rng = random.Random(1000 + seed)
    for _ in range(40):
        text = _mutant(rng.choice(SMALL).read_text(), rng)
        try:
            mod = hlo.parse(text)
        except hlo.HloParseError:
            continue
        _analyse(mod)


def test_deep_nesting_is_a_parse_error_not_a_recursion_error():
    deep_shape = "(" * 5000 + "f32[]" + ")" * 5000
    with pytest.raises(hlo.HloParseError, match="nested more than"):
        hlo.parse(f"ENTRY e {{\n  ROOT p = {deep_shape} parameter(0)\n}}\n")
    deep_value = "{" * 5000 + "}" * 5000
    mod = hlo.parse(f"ENTRY e {{\n  ROOT p = f32[] parameter(0), metadata={deep_value}\n}}\n")
    assert len(mod.root.shape) == 0
    nested = "f32[] negate(" * 100 + "f32[] parameter(0)" + ")" * 100
    with pytest.raises(hlo.HloParseError, match="nested more than"):
        hlo.parse(f"ENTRY e {{\n  ROOT n = f32[] negate({nested})\n}}\n")


def test_a_computation_that_calls_itself_is_a_parse_error():
    text = ("f {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] fusion(p), kind=kLoop, calls=f\n}\n"
            "ENTRY e {\n  a = f32[2] parameter(0)\n  ROOT r = f32[2] fusion(a), kind=kLoop, calls=f\n}\n")
    with pytest.raises(hlo.HloParseError, match="calls itself"):
        hlo.parse(text)
