"""Core numbers and the cores, shells and crusts they define; the k-truss."""

from __future__ import annotations

from typing import Any, Callable

import networkx as nx
import numpy as np

import swapless as _sl

from ._graph import SwaplessGraph, argument, as_dict, dispatched, self_loops

_SELF_LOOPS = ("Input graph has self loops which is not permitted; "
               "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")
# The cores, shells and crusts are subgraphs of networkx's graph.
_SUBGRAPH = dict(loops_answered=True, file_declined="it returns a networkx graph, which a "
                                                    "file-backed graph does not have")


def _cores(G: SwaplessGraph) -> dict:
    """Each node's core number, refusing self-loops as networkx does."""
    if self_loops(G):
        raise nx.NetworkXNotImplemented(_SELF_LOOPS)
    g = G.sl
    return as_dict(_sl.core_number(g), g)


def _given_cores(G: Any, args: tuple, kwargs: dict) -> Any:
    # A caller's own core numbers are networkx's to use.
    given = kwargs.get("core_number", args[2] if len(args) > 2 else None)
    return True if given is None else "the caller gave the core numbers"


@dispatched(loops_answered=True)
def core_number(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``core_number`` (of the undirected view; in- and out-degree summed
    for a directed graph, as networkx counts)."""
    return _cores(G)


def _core_subgraph(G: SwaplessGraph, keep: Callable[[int, int], bool], k: Any,
                   default: Callable[[int], int]) -> Any:
    """The subgraph of ``G.nx`` induced by the nodes whose core number ``keep``s
    beside ``k`` (``default`` of the largest core number when ``k`` is None)."""
    cores = _cores(G)
    if k is None:
        k = default(max(cores.values()))
    return G.nx.subgraph([node for node, core in cores.items() if keep(core, k)]).copy()


@dispatched(_given_cores, **_SUBGRAPH)
def k_core(G: SwaplessGraph, k: Any = None, core_number: Any = None, *, backend: Any = None,
           **backend_kwargs: Any) -> Any:
    """networkx's ``k_core``: the nodes of core number at least ``k`` (the largest)."""
    return _core_subgraph(G, lambda core, k: core >= k, k, lambda top: top)


@dispatched(_given_cores, **_SUBGRAPH)
def k_shell(G: SwaplessGraph, k: Any = None, core_number: Any = None, *, backend: Any = None,
            **backend_kwargs: Any) -> Any:
    """networkx's ``k_shell``: the nodes of core number exactly ``k`` (the largest)."""
    return _core_subgraph(G, lambda core, k: core == k, k, lambda top: top)


@dispatched(_given_cores, **_SUBGRAPH)
def k_crust(G: SwaplessGraph, k: Any = None, core_number: Any = None, *, backend: Any = None,
            **backend_kwargs: Any) -> Any:
    """networkx's ``k_crust``: the nodes of core number at most ``k`` (one below the
    largest)."""
    return _core_subgraph(G, lambda core, k: core <= k, k, lambda top: top - 1)


def _integral_order(G: Any, args: tuple, kwargs: dict) -> Any:
    # networkx compares triangle counts with k - 2, whatever number k is.
    k = argument(args, kwargs, "k", 1, None)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        return f"k={k!r} is not an integer"
    return True


@dispatched(_integral_order, **_SUBGRAPH)
def k_truss(G: SwaplessGraph, k: Any, *, backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``k_truss``: the subgraph of the edges that each lie in at least
    ``k - 2`` of its triangles, with their ends (isolated nodes left out)."""
    if self_loops(G):
        raise nx.NetworkXNotImplemented(_SELF_LOOPS)
    g = G.sl
    edges = _sl.k_truss(g, int(min(max(k, 0), 2**32 - 1)))
    kept = {(u, v) for u, v in g.ids[edges].tolist()}
    kept |= {(v, u) for u, v in kept}
    ends = {u for u, _ in kept}
    # As networkx's: a copy of the graph, its other edges and then its isolates removed,
    # so that nodes and neighbors keep their order.
    original = G.nx
    truss = original.__class__()
    truss.graph.update(original.graph)
    truss.add_nodes_from((node, data.copy()) for node, data in original.nodes.items()
                         if node in ends)
    truss.add_edges_from((u, v, data.copy()) for u, neighbors in original.adj.items()
                         for v, data in neighbors.items() if (u, v) in kept)
    return truss
