"""Exact measures of every node's hop distances: closeness and harmonic centrality,
eccentricity and what it defines (diameter, radius, center, periphery). One swapless
kernel (``closeness``) searches from every node, 64 at a time."""

from __future__ import annotations

from typing import Any

import networkx as nx

import swapless as _sl

from ._graph import (SwaplessGraph, argument, as_dict, dispatched, integer_weights,
                     nodes_present, weights_swapless_keeps)

# Self-loops and parallel edges change no hop distance.
_HOPS = dict(loops_answered=True, parallel_answered=True)


def _graph(G: SwaplessGraph, weight: Any) -> Any:
    """The swapless graph whose distances networkx's ``weight`` means."""
    return G.sl if weight is None else G.weighted_sl(weight)


def _measured(G: SwaplessGraph, measure: str, weight: Any = None) -> dict:
    """``measure`` of every node (by label), from swapless's closeness kernel: by hops,
    or by edge ``weight``."""
    g = _graph(G, weight)
    return as_dict(_sl.closeness(g, measure=measure, weighted=weight is not None), g)


def _unweighted(name: str, position: int) -> Any:
    """A check that the edge weights named by argument ``name`` are ones swapless keeps
    exactly."""

    def check(G: Any, args: tuple, kwargs: dict) -> Any:
        return weights_swapless_keeps(G, argument(args, kwargs, name, position, None))

    return check


def _closeness_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    present = nodes_present(("u", 1))(G, args, kwargs)
    return present if present is not True else _unweighted("distance", 2)(G, args, kwargs)


@dispatched(_closeness_declines, docs="Weights float32 can hold, none negative.", **_HOPS)
def closeness_centrality(G: SwaplessGraph, u: Any = None, distance: Any = None,
                         wf_improved: bool = True, *, backend: Any = None,
                         **backend_kwargs: Any) -> Any:
    """networkx's ``closeness_centrality``: from the distances to each node (along arcs,
    so inward on a directed graph, as networkx counts), in hops or by ``distance``."""
    values = _measured(G, "closeness" if wf_improved else "closeness-unscaled", distance)
    return values if u is None else values[u]


def _harmonic_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    sources = argument(args, kwargs, "sources", 3, None)
    # Counted, not compared as sets: the nodes of sources are G's, so all of them iff
    # as many (no set of every node).
    if sources is not None and len(set(G.nbunch_iter(sources))) != len(G):
        return "swapless sums over every node as a source, not a subset"
    return _unweighted("distance", 2)(G, args, kwargs)


@dispatched(_harmonic_declines, docs="Every node a source; weights float32 can hold.", **_HOPS)
def harmonic_centrality(G: SwaplessGraph, nbunch: Any = None, distance: Any = None,
                        sources: Any = None, *, backend: Any = None,
                        **backend_kwargs: Any) -> dict:
    """networkx's ``harmonic_centrality``: the sum of 1/distance to each node (of
    ``nbunch``), in hops or by ``distance``."""
    values = _measured(G, "harmonic", distance)
    if nbunch is None:
        return values
    return {node: values[node] for node in G.nbunch_iter(nbunch)}


def _eccentricities(G: SwaplessGraph, nodes: Any = None, weight: Any = None) -> dict:
    """The eccentricity of each node (of ``nodes``, in ``G``'s order), in hops or by
    ``weight``, refused as networkx refuses it where some node is out of reach."""
    g = _graph(G, weight)
    values = _sl.closeness(g, measure="eccentricity", weighted=weight is not None)
    everywhere = g.last_report["result"]["strongly_connected"]
    as_number = int if integer_weights(G, weight) else float
    found = {label: as_number(value) for label, value in zip(g.ids.tolist(), values.tolist())}
    chosen = list(G.nbunch_iter(nodes))
    if not everywhere:
        from .paths import _from

        # networkx refuses at the first node asked of that does not reach every node.
        for node in chosen:
            if not G.is_directed() or len(_from(G, node)) != len(found):
                kind = "digraph is not strongly" if G.is_directed() else "graph is not"
                raise nx.NetworkXError(f"Found infinite path length because the {kind} connected")
    return {node: found[node] for node in chosen}


def _eccentricity_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if argument(args, kwargs, "sp", 2, None) is not None:
        return "the caller gave the path lengths"
    return _unweighted("weight", 3)(G, args, kwargs)


@dispatched(_eccentricity_declines, docs="Weights float32 can hold, none negative.", **_HOPS)
def eccentricity(G: SwaplessGraph, v: Any = None, sp: Any = None, weight: Any = None, *,
                 backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``eccentricity``: the distance from each node (of ``v``) to the
    farthest, in hops or by ``weight``."""
    if v is not None and v in G:
        return _eccentricities(G, [v], weight)[v]
    return _eccentricities(G, v, weight)


def _extremum_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if argument(args, kwargs, "e", 1, None) is not None:
        return "the caller gave the eccentricities"
    return _unweighted("weight", 3)(G, args, kwargs)


@dispatched(_extremum_declines, docs="Weights float32 can hold, none negative.", **_HOPS)
def diameter(G: SwaplessGraph, e: Any = None, usebounds: bool = False, weight: Any = None, *,
             backend: Any = None, **backend_kwargs: Any) -> int:
    """networkx's ``diameter``: the largest eccentricity."""
    return max(_eccentricities(G, weight=weight).values())


@dispatched(_extremum_declines, docs="Weights float32 can hold, none negative.", **_HOPS)
def radius(G: SwaplessGraph, e: Any = None, usebounds: bool = False, weight: Any = None, *,
           backend: Any = None, **backend_kwargs: Any) -> int:
    """networkx's ``radius``: the smallest eccentricity."""
    return min(_eccentricities(G, weight=weight).values())


@dispatched(_extremum_declines, docs="Weights float32 can hold, none negative.", **_HOPS)
def center(G: SwaplessGraph, e: Any = None, usebounds: bool = False, weight: Any = None, *,
           backend: Any = None, **backend_kwargs: Any) -> list:
    """networkx's ``center``: the nodes of the smallest eccentricity."""
    if len(G) == 0 and e is None and weight is None and not G.is_directed():
        # networkx asks is_tree first, which refuses the null graph (elsewhere its
        # min() of no eccentricities raises ValueError, as this one's does).
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    found = _eccentricities(G, weight=weight)
    least = min(found.values())
    return [node for node, value in found.items() if value == least]


@dispatched(_extremum_declines, docs="Weights float32 can hold, none negative.", **_HOPS)
def periphery(G: SwaplessGraph, e: Any = None, usebounds: bool = False, weight: Any = None, *,
              backend: Any = None, **backend_kwargs: Any) -> list:
    """networkx's ``periphery``: the nodes of the largest eccentricity."""
    found = _eccentricities(G, weight=weight)
    most = max(found.values())
    return [node for node, value in found.items() if value == most]
