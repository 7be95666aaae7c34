"""PageRank and betweenness."""

from __future__ import annotations

import warnings
from typing import Any

import networkx as nx
import numpy as np

import swapless as _sl

from ._graph import (NO_REVERSE, SwaplessGraph, argument, as_dict, dispatched, edge_weights,
                     file_backed, float32_weights, tolerance_kept, weights_are_one,
                     weights_swapless_keeps)

# networkx's PageRank arguments that weigh nodes, by name and position.
_VECTORS = (("personalization", 2), ("nstart", 5), ("dangling", 7))


def _node_weights(G: Any, values: Any) -> Any:
    """``values`` (networkx's dict of weights by node) on ``G``'s nodes, as networkx reads
    them (nodes it does not hold are ignored, the rest weigh 0), or why swapless cannot
    take them."""
    if not isinstance(values, dict):
        return "the weights are not a dict"
    weights = {node: value for node, value in values.items() if node in G}
    for value in weights.values():
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            return "a node's weight is not a number"
        if not value >= 0 or not np.isfinite(value):
            return "a node's weight is negative or not finite"
    return weights


def _pagerank_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if len(G) == 0:
        return True  # networkx answers the null graph before it reads an argument
    alpha = argument(args, kwargs, "alpha", 1, 0.85)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)) \
            or not 0 <= alpha <= 1:
        return "swapless's alpha is a number from 0 to 1"
    if not tolerance_kept(G, argument(args, kwargs, "tol", 4, 1e-6)):
        return "a negative tolerance is never met (networkx raises)"
    for key, position in _VECTORS:
        values = argument(args, kwargs, key, position, None)
        if values is None:
            continue
        weights = _node_weights(G, values)
        if isinstance(weights, str):
            return f"{key}: {weights}"
        if key != "personalization" and not any(weights.values()):
            return f"{key}'s weights sum to 0 (networkx divides by zero)"
        if not np.isfinite(sum(weights.values())):
            return f"{key}'s weights sum past the largest float"
    weight = argument(args, kwargs, "weight", 6, "weight")
    if callable(weight):
        return "networkx's pagerank reads weights from an edge attribute"
    return float32_weights(G, weight)


@dispatched(_pagerank_declines, loops_answered=True, parallel_answered=True,
            docs="Every option networkx takes; parallel edges weigh their sum.")
def pagerank(G: SwaplessGraph, alpha: float = 0.85, personalization: Any = None,
             max_iter: int = 100, tol: float = 1.0e-6, nstart: Any = None,
             weight: Any = "weight", dangling: Any = None, *, backend: Any = None,
             **backend_kwargs: Any) -> dict:
    """networkx's ``pagerank``, in float64 as networkx computes it (kernels ``pr64`` and
    ``wpr64``): networkx stops when the L1 change is below ``n * tol``."""
    if len(G) == 0:
        return {}  # networkx answers the null graph before it reads an argument
    weighted = G.is_multigraph() or not weights_are_one(G, weight)
    g = G.summed_sl(weight) if weighted else G.sl
    if max_iter < 1:
        # No iteration, so never within the tolerance.
        raise nx.PowerIterationFailedConvergence(max_iter)
    vectors = {}
    for key, values in (("personalization", personalization), ("nstart", nstart),
                        ("dangling", dangling)):
        if values is not None:
            weights = {node: value for node, value in _node_weights(G, values).items()
                       if value}
            if not weights:
                # networkx's own words for a personalization of zeros.
                raise ZeroDivisionError
            vectors[key] = weights
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        scores = _sl.run(g, "wpr64" if weighted else "pr64", alpha=alpha, tol=tol,
                         max_iter=max_iter, **vectors)
    if not g.last_report["result"].get("converged", True):
        raise nx.PowerIterationFailedConvergence(max_iter)
    return as_dict(scores, g)


def _betweenness_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if argument(args, kwargs, "k", 1, None) == 0:
        return "k=0 samples no source (networkx divides by zero)"
    k = argument(args, kwargs, "k", 1, None)
    if file_backed(G) and G.is_directed() and argument(args, kwargs, "endpoints", 4, False) \
            and (k is None or k == len(G)):
        return f"endpoints count the nodes that reach each node: {NO_REVERSE}"
    weight = argument(args, kwargs, "weight", 3, None)
    if weights_are_one(G, weight):
        return True
    kept = weights_swapless_keeps(G, weight)
    if kept is not True:
        return kept
    if file_backed(G):
        # Nothing short of reading a file's weights tells a 0 among them: the kernel
        # refuses a tight edge of weight 0 itself.
        return True
    if any(value == 0 for value in edge_weights(G, weight)):
        return "a weight of 0 makes networkx's count of shortest paths follow its heap's order"
    return True


def _rescaled(sums: np.ndarray, n: int, normalized: bool, directed: bool, endpoints: bool,
              sampled: Any) -> np.ndarray:
    """Sums of dependencies scaled as networkx scales them: over the (source, target)
    pairs that could pass through a node, or each unordered pair once on an undirected
    graph; a sample's sources, which cannot pass through themselves without endpoints,
    by one source fewer."""
    pairs_through = n if endpoints else n - 1
    if pairs_through < 2:
        return sums
    sources = pairs_through if sampled is None else int(sampled.sum())
    correction = 1 if directed else 2
    if sampled is None or endpoints:
        if normalized:
            return sums * (1 / (sources * (pairs_through - 1)))
        return sums * (pairs_through / (sources * correction))
    if normalized:
        of_source = 1 / ((sources - 1) * (pairs_through - 1)) if sources > 1 else np.nan
        of_other = 1 / (sources * (pairs_through - 1))
    else:
        of_source = pairs_through / ((sources - 1) * correction) if sources > 1 else np.nan
        of_other = pairs_through / (sources * correction)
    return sums * np.where(sampled, of_source, of_other)


def _ancestors(g: Any) -> np.ndarray:
    """How many other vertices reach each vertex of ``g``: closeness by hops counts the
    vertices that reach a vertex, as networkx's does, and ``closeness-unscaled`` times
    ``distance-sum`` is that count."""
    unscaled = _sl.closeness(g, measure="closeness-unscaled")
    return np.rint(unscaled * _sl.closeness(g, measure="distance-sum"))


def _directed_endpoints(G: SwaplessGraph, sampled: Any) -> np.ndarray:
    """What endpoints add on a directed graph, as networkx's ``_accumulate_endpoints``:
    each source the other vertices it reaches, each vertex the sources that reach it."""
    g = G.sl
    if sampled is None:
        return _ancestors(g) + _ancestors(G.reversed_sl)
    added = np.zeros(g.n)
    for source in np.flatnonzero(sampled):
        reached = _sl.bfs(g, g.ids[source]) >= 0
        added += reached
        added[source] += reached.sum() - 2
    return added


@dispatched(_betweenness_declines, loops_answered=True, parallel_answered=True,
            docs="k sampled with networkx's seed; by weight, float32 weights, none 0 (a "
                 "multigraph's shortest paths take the lightest of its parallel edges).")
def betweenness_centrality(G: SwaplessGraph, k: Any = None, normalized: bool = True,
                           weight: Any = None, endpoints: bool = False, seed: Any = None, *,
                           backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``betweenness_centrality``: exact, or from ``k`` sources drawn from
    ``seed`` exactly as networkx draws them, then scaled as networkx scales it."""
    weighted = not weights_are_one(G, weight)
    # A multigraph's shortest paths take the lightest of each set of parallel edges.
    g = G.lightest_sl(weight) if weighted else G.sl
    if k == g.n:
        k = None
    sampled = None
    if k is None:
        scores = _sl.betweenness(g, sources="all", weighted=weighted)
    else:
        chosen = seed.sample(list(G), k)
        scores = _sl.betweenness(g, sources=chosen, weighted=weighted)
        sampled = np.zeros(g.n, dtype=bool)
        sampled[[g.vertex(node) for node in chosen]] = True
    # swapless divides by the largest sum of dependencies; undo that.
    sums = scores * g.last_report["result"]["largest_dependency"]
    if endpoints and G.is_directed():
        sums = sums + _directed_endpoints(G, sampled)
    elif endpoints:
        # Each source also ends the paths to the rest of its component, and each node
        # the paths to it from the sources of its component.
        labels = _sl.connected_components(g)
        _, where, sizes = np.unique(labels, return_inverse=True, return_counts=True)
        is_source = np.ones(g.n, dtype=bool) if sampled is None else sampled
        sources_in = np.bincount(where, weights=is_source, minlength=len(sizes))
        sums = sums + is_source * (sizes[where] - 1) + (sources_in[where] - is_source)
    return as_dict(_rescaled(sums, g.n, normalized, G.is_directed(), endpoints, sampled), g)
