"""Maximal independent sets."""

from __future__ import annotations

import random
from typing import Any

import networkx as nx
import numpy as np

import swapless as _sl

from ._graph import SwaplessGraph, argument, converted, dispatched, file_backed


def _unseeded(G: Any, args: tuple, kwargs: dict) -> Any:
    # networkx hands an unseeded call Python's global generator.
    if argument(args, kwargs, "seed", 2, None) not in (None, random._inst):
        return "networkx's seeded choice is its random generator's; swapless's is its own"
    if file_backed(G) and argument(args, kwargs, "nodes", 1, None):
        return ("the given nodes' neighbors are read from networkx's edges, which a "
                "file-backed graph lacks")
    return True


def _independent(g: Any) -> list:
    """swapless's maximal independent set of ``g``, as labels."""
    members = _sl.maximal_independent_set(g)
    labels = g.ids.tolist()
    return [labels[v] for v in np.flatnonzero(members).tolist()]


@dispatched(_unseeded, loops_answered=True, parallel_answered=True, docs="Unseeded.")
def maximal_independent_set(G: SwaplessGraph, nodes: Any = None, seed: Any = None, *,
                            backend: Any = None, **backend_kwargs: Any) -> list:
    """networkx's ``maximal_independent_set``, unseeded: swapless's set, the one the
    greedy algorithm picks in its fixed pseudo-random order of the nodes. With
    ``nodes``, those nodes and swapless's set of what they leave (the graph without
    them and their neighbors)."""
    if not nodes:
        return _independent(G.sl)
    required = set(nodes)
    if not required.issubset(G.nx):
        raise nx.NetworkXUnfeasible(f"{required} is not a subset of the nodes of G")
    neighbors = set().union(*(set(G.nx.adj[v]) for v in required))
    if neighbors & required:
        raise nx.NetworkXUnfeasible(f"{required} is not an independent set of G")
    rest = G.nx.subgraph(set(G.nx) - required - neighbors)
    if rest.number_of_edges() == 0:
        return list(required) + list(rest)
    return list(required) + _independent(converted(rest))
