"""Concrete loop states from sketches, and their evolution (TVM's ``sample_initial_population``
and ``evolutionary_search``): each open split of a sketch filled with a random factorization
of its extent; a state mutated by moving a factor of one split between two of its levels; a
population scored by a cost model, the best kept."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from tune.auto_scheduler.loop_state import State, replay_on_state
from tune.auto_scheduler.steps import Step
from tune.autotvm.knobs import get_factors


def _factorization(extent: int, parts: int, rng: random.Random) -> list[int]:
    """*parts* lengths (inner levels) whose product divides *extent*, drawn at random."""
    out, rest = [], extent
    for _ in range(parts):
        choice = rng.choice(get_factors(rest))
        out.append(choice)
        rest //= choice
    rng.shuffle(out)
    return out


def fill(dag: Any, sketch: State, rng: random.Random) -> State:
    """*sketch* with each open split length drawn (its extent known from the sketch)."""
    steps = []
    for step in sketch.transform_steps:
        f = step.fields
        if step.kind == "SP" and any(x is None for x in f[3]):
            extent = int(f[2]) if f[2] else 1
            step = Step("SP", (f[0], f[1], f[2], tuple(_factorization(extent, len(f[3]), rng)), f[4]))
        steps.append(step)
    return replay_on_state(dag.get_init_state(), steps)


def sample_initial_population(dag: Any, sketches: Sequence[State], size: int, seed: int | None = None) -> list[State]:
    """*size* states, sketches taken in turn and filled at random."""
    rng = random.Random(seed)
    return [fill(dag, sketches[k % len(sketches)], rng) for k in range(size)] if sketches else []


def mutate_tile_size(dag: Any, state: State, rng: random.Random) -> State | None:
    """*state* with one factor of one split moved between two of its levels (the outermost
    level is what remains), or None when no split can change."""
    candidates = [k for k, s in enumerate(state.transform_steps)
                  if s.kind == "SP" and s.fields[2] and all(x is not None for x in s.fields[3])]
    rng.shuffle(candidates)
    for k in candidates:
        f = state.transform_steps[k].fields
        lengths = list(f[3])
        extent = int(f[2])
        outer = extent
        for x in lengths:
            outer //= x
        levels = [outer, *lengths]
        src = rng.choice([i for i, x in enumerate(levels) if x > 1] or [0])
        if levels[src] == 1:
            continue
        factor = rng.choice([d for d in get_factors(levels[src]) if d > 1])
        dst = rng.choice([i for i in range(len(levels)) if i != src])
        levels[src] //= factor
        levels[dst] *= factor
        steps = list(state.transform_steps)
        steps[k] = Step("SP", (f[0], f[1], f[2], tuple(levels[1:]), f[4]))
        return replay_on_state(dag.get_init_state(), steps)
    return None


def evolutionary_search(dag: Any, task: Any, model: Any, init: Sequence[State], out_size: int,
                        generations: int = 4, seed: int | None = None) -> list[State]:
    """The *out_size* best states (by *model*'s ``predict``) of *init* and what mutation made of
    it over *generations*."""
    rng = random.Random(seed)
    population = list(init)
    seen = {str(s.transform_steps) for s in population}
    for _ in range(generations):
        children = []
        for state in population:
            child = mutate_tile_size(dag, state, rng)
            if child is not None and str(child.transform_steps) not in seen:
                seen.add(str(child.transform_steps))
                children.append(child)
        population += children
        scores = list(model.predict(task, population))
        ranked = sorted(range(len(population)), key=lambda i: -scores[i])
        population = [population[i] for i in ranked[:max(out_size, len(init))]]
    return population[:out_size]
