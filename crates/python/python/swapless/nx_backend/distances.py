"""Exact measures of every node's hop distances: closeness and harmonic centrality,
eccentricity and what it defines (diameter, radius, center, periphery). One swapless
kernel (``closeness``) searches from every node, 64 at a time."""

from __future__ import annotations

from typing import Any

import networkx as nx

import swapless as _sl

from ._graph import SwaplessGraph, argument, as_dict, dispatched, nodes_present, weights_are_one

# Self-loops and parallel edges change no hop distance.
_HOPS = dict(loops_ignored=True, parallel_ignored=True)


def _measured(G: SwaplessGraph, measure: str) -> dict:
    """``measure`` of every node (by label), from swapless's closeness kernel."""
    g = G.sl
    return as_dict(_sl.closeness(g, measure=measure), g)


def _unweighted(name: str, position: int) -> Any:
    """A check that the edge weights named by argument ``name`` are all one."""

    def check(G: Any, args: tuple, kwargs: dict) -> Any:
        if not weights_are_one(G, argument(args, kwargs, name, position, None)):
            return "swapless counts hops, not weights"
        return True

    return check


def _closeness_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    present = nodes_present(("u", 1))(G, args, kwargs)
    return present if present is not True else _unweighted("distance", 2)(G, args, kwargs)


@dispatched(_closeness_declines, docs="Unweighted.", **_HOPS)
def closeness_centrality(G: SwaplessGraph, u: Any = None, distance: Any = None,
                         wf_improved: bool = True, *, backend: Any = None,
                         **backend_kwargs: Any) -> Any:
    """networkx's ``closeness_centrality``: from the hops to each node (along arcs, so
    inward on a directed graph, as networkx counts)."""
    values = _measured(G, "closeness" if wf_improved else "closeness-unscaled")
    return values if u is None else values[u]


def _harmonic_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    sources = argument(args, kwargs, "sources", 3, None)
    if sources is not None and set(G.nbunch_iter(sources)) != set(G):
        return "swapless sums over every node as a source, not a subset"
    return _unweighted("distance", 2)(G, args, kwargs)


@dispatched(_harmonic_declines, docs="Unweighted, every node a source.", **_HOPS)
def harmonic_centrality(G: SwaplessGraph, nbunch: Any = None, distance: Any = None,
                        sources: Any = None, *, backend: Any = None,
                        **backend_kwargs: Any) -> dict:
    """networkx's ``harmonic_centrality``: the sum of 1/hops to each node (of ``nbunch``)."""
    values = _measured(G, "harmonic")
    if nbunch is None:
        return values
    return {node: values[node] for node in G.nx.nbunch_iter(nbunch)}


def _eccentricities(G: SwaplessGraph, nodes: Any = None) -> dict:
    """The eccentricity of each node (of ``nodes``, in ``G``'s order), refused as
    networkx refuses it where some node is out of reach."""
    g = G.sl
    values = _sl.closeness(g, measure="eccentricity")
    everywhere = g.last_report["result"]["strongly_connected"]
    labels = g.ids.tolist()
    found = {label: int(value) for label, value in zip(labels, values.tolist())}
    chosen = list(G.nx) if nodes is None else list(G.nx.nbunch_iter(nodes))
    if not everywhere:
        from .paths import _from

        # networkx refuses at the first node asked of that does not reach every node.
        for node in chosen:
            if not G.is_directed() or len(_from(G, node)) != len(labels):
                kind = "digraph is not strongly" if G.is_directed() else "graph is not"
                raise nx.NetworkXError(f"Found infinite path length because the {kind} connected")
    return {node: found[node] for node in chosen}


def _eccentricity_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if argument(args, kwargs, "sp", 2, None) is not None:
        return "the caller gave the path lengths"
    return _unweighted("weight", 3)(G, args, kwargs)


@dispatched(_eccentricity_declines, docs="Unweighted.", **_HOPS)
def eccentricity(G: SwaplessGraph, v: Any = None, sp: Any = None, weight: Any = None, *,
                 backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``eccentricity``: hops from each node (of ``v``) to the farthest."""
    if v is not None and v in G.nx:
        return _eccentricities(G, [v])[v]
    return _eccentricities(G, v)


def _extremum_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if argument(args, kwargs, "e", 1, None) is not None:
        return "the caller gave the eccentricities"
    return _unweighted("weight", 3)(G, args, kwargs)


@dispatched(_extremum_declines, docs="Unweighted.", **_HOPS)
def diameter(G: SwaplessGraph, e: Any = None, usebounds: bool = False, weight: Any = None, *,
             backend: Any = None, **backend_kwargs: Any) -> int:
    """networkx's ``diameter``: the largest eccentricity."""
    return max(_eccentricities(G).values())


@dispatched(_extremum_declines, docs="Unweighted.", **_HOPS)
def radius(G: SwaplessGraph, e: Any = None, usebounds: bool = False, weight: Any = None, *,
           backend: Any = None, **backend_kwargs: Any) -> int:
    """networkx's ``radius``: the smallest eccentricity."""
    return min(_eccentricities(G).values())


@dispatched(_extremum_declines, docs="Unweighted.", **_HOPS)
def center(G: SwaplessGraph, e: Any = None, usebounds: bool = False, weight: Any = None, *,
           backend: Any = None, **backend_kwargs: Any) -> list:
    """networkx's ``center``: the nodes of the smallest eccentricity."""
    found = _eccentricities(G)
    least = min(found.values())
    return [node for node, value in found.items() if value == least]


@dispatched(_extremum_declines, docs="Unweighted.", **_HOPS)
def periphery(G: SwaplessGraph, e: Any = None, usebounds: bool = False, weight: Any = None, *,
              backend: Any = None, **backend_kwargs: Any) -> list:
    """networkx's ``periphery``: the nodes of the largest eccentricity."""
    found = _eccentricities(G)
    most = max(found.values())
    return [node for node, value in found.items() if value == most]
