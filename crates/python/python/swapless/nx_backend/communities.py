"""Communities: label propagation and Louvain."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

import swapless as _sl

from ._graph import (SwaplessGraph, argument, dispatched, file_backed, float32_weights,
                     weights_are_one)


@dispatched(docs="Undirected graphs, as networkx's.")
def label_propagation_communities(G: SwaplessGraph, *, backend: Any = None,
                                  **backend_kwargs: Any) -> Any:
    """networkx's ``label_propagation_communities``: the same coloring, order and ties,
    so the same communities, as sets of nodes in the order networkx gives them."""
    g = G.sl
    return _communities(g, _sl.label_propagation(g)).values()


def _communities(g: Any, labels: np.ndarray) -> dict:
    """The sets of nodes sharing a label, by label, in the order of their first node."""
    communities: dict = {}
    for node, label in zip(g.ids.tolist(), labels.tolist()):
        communities.setdefault(label, set()).add(node)
    return communities


def _louvain_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    # networkx has made the seed a random.Random before it dispatches: for none given,
    # the random module's own.
    if argument(args, kwargs, "seed", 5, None) not in (None, random._inst):  # type: ignore[attr-defined]
        return ("networkx's partition for a seed follows that seed's random order of the "
                "nodes; swapless visits them in order")
    max_level = argument(args, kwargs, "max_level", 4, None)
    if max_level is not None and (isinstance(max_level, bool) or not isinstance(max_level, int)):
        return "max_level is not a whole number"
    for name, position in (("resolution", 2), ("threshold", 3)):
        value = argument(args, kwargs, name, position, 1)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not np.isfinite(value) or (name == "resolution" and value < 0):
            return f"{name} must be a finite number{' from 0' if name == 'resolution' else ''}"
    weight = argument(args, kwargs, "weight", 1, "weight")
    if callable(weight):
        return "networkx's louvain_communities reads weights from an edge attribute"
    kept = float32_weights(G, weight)
    if file_backed(G):
        return kept  # a file's weights summing to 0 are found by the run (see below)
    if kept is True and weight is not None and G.number_of_edges() \
            and sum(data.get(weight, 1) for _, _, data in G.edges(data=True)) == 0:
        return "the edges' weights sum to 0 (networkx divides by zero)"
    return kept


@dispatched(_louvain_declines, loops_answered=True, parallel_answered=True,
            docs="Unseeded (networkx's seeded order of the nodes is its own); parallel edges "
                 "weigh their sum, as networkx's.")
def louvain_communities(G: SwaplessGraph, weight: Any = "weight", resolution: float = 1,
                        threshold: float = 1e-7, max_level: Any = None, seed: Any = None, *,
                        backend: Any = None, **backend_kwargs: Any) -> list:
    """networkx's ``louvain_communities``, with its gains, resolution, threshold and
    levels, directed too; nodes visited in order rather than at random (networkx's own
    partition changes with its seed), so the partition is another of the same quality."""
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")  # networkx's
    weighted = G.is_multigraph() or not weights_are_one(G, weight)
    g = G.summed_sl(weight) if weighted else G.sl
    labels = _sl.louvain(g, resolution=float(resolution), threshold=float(threshold),
                         max_level=max_level, weighted=weighted)
    if file_backed(G) and g.m and g.last_report["result"]["sweeps"] == 0:
        # The kernel sweeps at least once unless its edges weigh 0 in all, where
        # networkx divides by zero (a converted graph's check declined that already).
        raise ZeroDivisionError("float division by zero")
    return list(_communities(g, labels).values())
