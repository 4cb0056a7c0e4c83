"""XLA's own HLO modules (``../shared/hlo_corpus``): each parses, every instruction's operand
maps are computed (or undefined for an op whose reads are unknown), and where both directions
are defined the inverse maps are the forward maps reversed, as isl relations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bound import input_to_output, output_to_inputs
from schedule import hlo

from ..relations import index_box, isl_union

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "hlo_corpus"
MODULES = sorted(CORPUS.glob("*.hlo")) if CORPUS.is_dir() else []

#: Modules XLA's parser rejects too, with the line and column the error must name.
INVALID = {
    # One part of a file split at '// -----': its reducer is defined in another part.
    "0666_while.hlo": (29, 80, "to_apply= of 'reduce.1' names no computation: 'reduce_helper_add'"),
}


def test_the_corpus_is_there_and_listed():
    if not MODULES:
        pytest.skip("../shared/hlo_corpus is not beside this checkout")
    listed = {m["file"] for m in json.loads((CORPUS / "manifest.json").read_text())["modules"]}
    assert {p.name for p in MODULES} == listed
    assert len(MODULES) == 716


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name[:4])
def test_module_parses_and_its_maps_agree(path):
    text = path.read_text()
    if path.name in INVALID:
        line, column, message = INVALID[path.name]
        with pytest.raises(hlo.HloParseError, match=message) as info:
            hlo.parse(text)
        assert (info.value.line, info.value.column) == (line, column)
        return
    mod = hlo.parse(text)
    assert mod.root is not None and mod.parsed.entry.name in mod.computations
    for t in mod.instruction_tensors():
        xs = mod.operands(t)
        forward = output_to_inputs(t, xs)
        # One output of a multi-output fusion may read only some of its operands.
        assert forward and set(map(id, forward)) <= set(map(id, xs)), t.name
        for x, maps in forward.items():
            assert maps
            if any(m.is_undefined or m.rts for m in maps):
                continue  # some path crosses an opaque op, or a runtime offset: no inverse
            inverse = input_to_output(t, x, stop_at=xs)
            if any(m.is_undefined for m in inverse):
                continue
            # XLA's maps may reach past the operand (a dynamic-update-slice's update);
            # within its bounds both directions are one relation.
            want = isl_union(maps, reverse=True).intersect_domain(index_box(x.shape))
            assert want.is_equal(isl_union(inverse)), (t.name, x.name, maps, inverse)
