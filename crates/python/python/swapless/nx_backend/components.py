"""Connected, weakly and strongly connected components."""

from __future__ import annotations

import collections
from typing import Any

import networkx as nx

import swapless as _sl

from ._graph import SwaplessGraph, dispatched, file_backed

_UNDIRECTED = dict(loops_answered=True, parallel_answered=True)
_DIRECTED = dict(loops_answered=True, parallel_answered=True, docs="Directed graphs.")
# Attracting components are those no arc leaves: swapless finds the arcs between
# components in networkx's edges.
_ATTRACTING = dict(_DIRECTED, file_declined="the arcs between components are read from "
                                             "networkx's edges, which a file-backed graph lacks")


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
    _connectivity_defined(G)
    return len(_components(G)) == 1


@dispatched(**_UNDIRECTED)
def is_weakly_connected(G: SwaplessGraph, *, backend: Any = None,
                        **backend_kwargs: Any) -> bool:
    """networkx's ``is_weakly_connected``."""
    _connectivity_defined(G)
    return len(_components(G)) == 1


def _connectivity_defined(G: SwaplessGraph) -> None:
    """Raises as networkx does for the null graph, whose connectivity it leaves undefined."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")


def _strong_parts(G: SwaplessGraph) -> dict:
    """The strongly connected components of ``G``, sets of nodes by label, in the order
    their first node comes in ``G``."""
    g = G.sl
    labels = _sl.strongly_connected_components(g)
    parts: dict = {}
    for label, node in zip(labels.tolist(), g.ids.tolist()):
        parts.setdefault(label, set()).add(node)
    return parts


def _condensation(G: SwaplessGraph) -> tuple:
    """The strongly connected components of ``G`` (sets of nodes, in the order their
    first node comes in ``G``) and, for each, the other components it has arcs into."""
    parts = _strong_parts(G)
    of_node = {node: label for label, part in parts.items() for node in part}
    reaches: dict = {label: set() for label in parts}
    for u, v in G.nx.edges():
        a, b = of_node[u], of_node[v]
        if a != b:
            reaches[a].add(b)
    return parts, reaches


def _strong_components(G: SwaplessGraph) -> list:
    """The strongly connected components of ``G``, each a set of nodes, in the order
    networkx yields them where the graph leaves no choice: a component after every
    component it reaches (networkx's own tests read the condensation's numbering so).
    A file-backed graph's, whose arcs between components swapless does not read, come in
    the order of their first node (networkx promises no order)."""
    if file_backed(G):
        return list(_strong_parts(G).values())
    parts, reaches = _condensation(G)
    # Kahn's order on the condensation's reversed edges: sinks first.
    reached_by: dict = {label: set() for label in parts}
    for label, targets in reaches.items():
        for target in targets:
            reached_by[target].add(label)
    left = {label: len(targets) for label, targets in reaches.items()}
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


def _attracting(G: SwaplessGraph) -> list:
    """The strongly connected components no arc leaves."""
    parts, reaches = _condensation(G)
    return [parts[label] for label in parts if not reaches[label]]


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
    _connectivity_defined(G)
    return len(_strong_components(G)) == 1


def _every_node(G: Any, args: tuple, kwargs: dict) -> Any:
    # From a source, networkx's Kosaraju yields what its search order happens to gather.
    if kwargs.get("source", args[1] if len(args) > 1 else None) is not None:
        return "swapless finds the components of every node, not of a source's search"
    return True


@dispatched(_every_node, **_DIRECTED)
def kosaraju_strongly_connected_components(G: SwaplessGraph, source: Any = None, *,
                                           backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``kosaraju_strongly_connected_components`` of every node: swapless's
    components, as sets of nodes."""
    return iter(_strong_components(G))


@dispatched(**_ATTRACTING)
def attracting_components(G: SwaplessGraph, *, backend: Any = None,
                          **backend_kwargs: Any) -> Any:
    """networkx's ``attracting_components``: the strongly connected components that no
    arc leaves, a generator of sets of nodes."""
    return iter(_attracting(G))


@dispatched(**_ATTRACTING)
def number_attracting_components(G: SwaplessGraph, *, backend: Any = None,
                                 **backend_kwargs: Any) -> int:
    """networkx's ``number_attracting_components``."""
    return len(_attracting(G))


@dispatched(**_ATTRACTING)
def is_attracting_component(G: SwaplessGraph, *, backend: Any = None,
                            **backend_kwargs: Any) -> bool:
    """networkx's ``is_attracting_component``: whether the whole graph is one."""
    attracting = _attracting(G)
    return len(attracting) == 1 and len(attracting[0]) == len(G)
