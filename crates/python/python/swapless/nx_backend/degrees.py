"""What a node's degree says: degree centrality and isolated nodes."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._graph import SwaplessGraph, as_dict, dispatched, nodes_present


def _degrees(G: SwaplessGraph) -> np.ndarray:
    """Each vertex's degree as networkx counts it (in and out summed when directed)."""
    g = G.sl
    if G.is_directed():
        return g.degrees("out") + g.degrees("in")
    return g.degrees("out")


def _degree_centrality(G: SwaplessGraph, directions: tuple) -> dict:
    g = G.sl
    if g.n <= 1:
        return {node: 1 for node in G.nx}
    degrees = sum(g.degrees(direction).astype(np.float64) for direction in directions)
    return as_dict(degrees / (g.n - 1), g)


@dispatched()
def degree_centrality(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``degree_centrality``: each node's degree (in and out summed on a
    directed graph) over the other nodes."""
    return _degree_centrality(G, ("out", "in") if G.is_directed() else ("out",))


@dispatched(docs="Directed graphs.")
def in_degree_centrality(G: SwaplessGraph, *, backend: Any = None,
                         **backend_kwargs: Any) -> dict:
    """networkx's ``in_degree_centrality``."""
    return _degree_centrality(G, ("in",))


@dispatched(docs="Directed graphs.")
def out_degree_centrality(G: SwaplessGraph, *, backend: Any = None,
                          **backend_kwargs: Any) -> dict:
    """networkx's ``out_degree_centrality``."""
    return _degree_centrality(G, ("out",))


def _isolated(G: SwaplessGraph) -> list:
    """The nodes without neighbors, in ``G``'s order."""
    labels = G.sl.ids.tolist()
    return [labels[v] for v in np.flatnonzero(_degrees(G) == 0).tolist()]


# A self-loop makes a node no isolate in networkx; parallel edges change nothing.
@dispatched(parallel_ignored=True)
def isolates(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``isolates``: a generator of the nodes without neighbors."""
    return iter(_isolated(G))


@dispatched(parallel_ignored=True)
def number_of_isolates(G: SwaplessGraph, *, backend: Any = None,
                       **backend_kwargs: Any) -> int:
    """networkx's ``number_of_isolates``."""
    return int((_degrees(G) == 0).sum())


@dispatched(nodes_present(("n", 1)), parallel_ignored=True)
def is_isolate(G: SwaplessGraph, n: Any, *, backend: Any = None,
               **backend_kwargs: Any) -> bool:
    """networkx's ``is_isolate``: whether ``n`` has no neighbors."""
    return bool(_degrees(G)[G.sl.vertex(n)] == 0)
