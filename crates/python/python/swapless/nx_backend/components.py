"""Connected, weakly and strongly connected components."""

from __future__ import annotations

import collections
from typing import Any

import swapless as _sl

from ._graph import SwaplessGraph, dispatched

_UNDIRECTED = dict(loops_ignored=True, parallel_ignored=True)
_DIRECTED = dict(loops_ignored=True, parallel_ignored=True, docs="Directed graphs.")


def _components(G: SwaplessGraph) -> list:
    """The (weak) components of ``G``, each a set of nodes."""
    g = G.sl
    labels = _sl.connected_components(g)
    parts: dict = {}
    for label, node in zip(labels.tolist(), g.ids.tolist()):
        parts.setdefault(label, set()).add(node)
    return list(parts.values())


@dispatched(**_UNDIRECTED)
def connected_components(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``connected_components``: a generator of sets of nodes."""
    return iter(_components(G))


@dispatched(**_UNDIRECTED)
def weakly_connected_components(G: SwaplessGraph, *, backend: Any = None,
                                **backend_kwargs: Any) -> Any:
    """networkx's ``weakly_connected_components`` of a directed graph (swapless's cc
    follows arcs both ways)."""
    return iter(_components(G))


@dispatched(**_UNDIRECTED)
def number_connected_components(G: SwaplessGraph, *, backend: Any = None,
                                **backend_kwargs: Any) -> int:
    """networkx's ``number_connected_components``."""
    return len(_components(G))


@dispatched(**_UNDIRECTED)
def number_weakly_connected_components(G: SwaplessGraph, *, backend: Any = None,
                                       **backend_kwargs: Any) -> int:
    """networkx's ``number_weakly_connected_components``."""
    return len(_components(G))


@dispatched(**_UNDIRECTED)
def is_connected(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> bool:
    """networkx's ``is_connected``."""
    return len(_components(G)) == 1


@dispatched(**_UNDIRECTED)
def is_weakly_connected(G: SwaplessGraph, *, backend: Any = None,
                        **backend_kwargs: Any) -> bool:
    """networkx's ``is_weakly_connected``."""
    return len(_components(G)) == 1


def _strong_components(G: SwaplessGraph) -> list:
    """The strongly connected components of ``G``, each a set of nodes, in the order
    networkx yields them where the graph leaves no choice: a component after every
    component it reaches (networkx's own tests read the condensation's numbering so)."""
    g = G.sl
    labels = _sl.strongly_connected_components(g)
    parts: dict = {}
    of_node: dict = {}
    for label, node in zip(labels.tolist(), g.ids.tolist()):
        parts.setdefault(label, set()).add(node)
        of_node[node] = label
    # Kahn's order on the condensation's reversed edges: sinks first.
    reached_by: dict = {label: set() for label in parts}
    left: dict = {label: 0 for label in parts}
    for u, v in G.nx.edges():
        a, b = of_node[u], of_node[v]
        if a != b and a not in reached_by[b]:
            reached_by[b].add(a)
            left[a] += 1
    rank = {label: index for index, label in enumerate(parts)}
    ready = collections.deque(label for label in parts if left[label] == 0)
    ordered = []
    while ready:
        label = ready.popleft()
        ordered.append(parts[label])
        for before in sorted(reached_by[label], key=rank.__getitem__):
            left[before] -= 1
            if left[before] == 0:
                ready.append(before)
    return ordered


@dispatched(**_DIRECTED)
def strongly_connected_components(G: SwaplessGraph, *, backend: Any = None,
                                  **backend_kwargs: Any) -> Any:
    """networkx's ``strongly_connected_components``: a generator of sets of nodes."""
    return iter(_strong_components(G))


@dispatched(**_DIRECTED)
def number_strongly_connected_components(G: SwaplessGraph, *, backend: Any = None,
                                         **backend_kwargs: Any) -> int:
    """networkx's ``number_strongly_connected_components``."""
    return len(_strong_components(G))


@dispatched(**_DIRECTED)
def is_strongly_connected(G: SwaplessGraph, *, backend: Any = None,
                          **backend_kwargs: Any) -> bool:
    """networkx's ``is_strongly_connected``."""
    return len(_strong_components(G)) == 1
