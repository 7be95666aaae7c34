"""PageRank and betweenness."""

from __future__ import annotations

import warnings
from typing import Any

import networkx as nx
import numpy as np

import swapless as _sl

from ._graph import SwaplessGraph, argument, as_dict, dispatched, weights_are_one

# PageRank's scores are float32 in swapless, so a tolerance below this cannot be met.
_PAGERANK_FLOOR = 1e-7


def _pagerank_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if any(argument(args, kwargs, key, position, None) is not None
           for key, position in (("personalization", 2), ("nstart", 5), ("dangling", 7))):
        return "swapless's PageRank has no personalization, start vector or dangling weights"
    if not weights_are_one(G, argument(args, kwargs, "weight", 6, "weight")):
        return "swapless's PageRank ignores edge weights"
    if argument(args, kwargs, "tol", 4, 1e-6) * G.number_of_nodes() < _PAGERANK_FLOOR:
        return "swapless's PageRank scores are float32"
    return True


@dispatched(_pagerank_declines,
            docs="Unweighted, without personalization; float32 scores.")
def pagerank(G: SwaplessGraph, alpha: float = 0.85, personalization: Any = None,
             max_iter: int = 100, tol: float = 1.0e-6, nstart: Any = None,
             weight: Any = "weight", dangling: Any = None, *, backend: Any = None,
             **backend_kwargs: Any) -> dict:
    """networkx's ``pagerank``: networkx stops when the L1 change is below ``n * tol``."""
    g = G.sl
    if max_iter < 1:
        # No iteration, so never within the tolerance.
        raise nx.PowerIterationFailedConvergence(max_iter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        scores = _sl.pagerank(g, alpha=alpha, tol=tol * g.n, max_iter=max_iter)
    if not g.last_report["result"].get("converged", True):
        raise nx.PowerIterationFailedConvergence(max_iter)
    return as_dict(scores, g)


def _betweenness_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if argument(args, kwargs, "k", 1, None) is not None:
        return "swapless samples its own sources, not networkx's"
    if argument(args, kwargs, "weight", 3, None) is not None:
        return "swapless's betweenness counts hops, not weights"
    if argument(args, kwargs, "endpoints", 4, False) and G.is_directed():
        return "swapless counts the endpoints of undirected graphs only"
    return True


@dispatched(_betweenness_declines, loops_ignored=True, parallel_ignored=True,
            docs="Exact and unweighted; endpoints on undirected graphs.")
def betweenness_centrality(G: SwaplessGraph, k: Any = None, normalized: bool = True,
                           weight: Any = None, endpoints: bool = False, seed: Any = None, *,
                           backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``betweenness_centrality``, exact (every node a source), scaled as
    networkx scales it: over the ordered pairs of nodes that could have a path through
    a node when ``normalized``, else each unordered pair once on an undirected graph."""
    g = G.sl
    scores = _sl.betweenness(g, sources="all")
    # swapless divides by the largest sum of dependencies; undo that, then scale.
    sums = scores * g.last_report["result"]["largest_dependency"]
    pairs_through = g.n - 1
    if endpoints:
        # Each node also ends the paths from and to the others of its component.
        labels = _sl.connected_components(g)
        _, where, sizes = np.unique(labels, return_inverse=True, return_counts=True)
        sums = sums + 2 * (sizes[where] - 1)
        pairs_through = g.n
    if pairs_through >= 2:
        if normalized:
            sums = sums / (pairs_through * (pairs_through - 1))
        elif not G.is_directed():
            sums = sums / 2
    return as_dict(sums, g)
