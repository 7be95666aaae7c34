"""Eigenvector and Katz centrality and HITS: power iterations in float64, stopped by
networkx's own rules."""

from __future__ import annotations

import warnings
from typing import Any

import networkx as nx

import swapless as _sl

from ._graph import (SwaplessGraph, argument, as_dict, dispatched, every_node,
                     tolerance_kept, weights_are_one)


def _uniform(values: Any) -> Any:
    """The one value every entry of a start vector (a dict) holds, or None."""
    distinct = set(values.values()) if isinstance(values, dict) else set()
    return next(iter(distinct)) if len(distinct) == 1 else None


def _start_declines(G: Any, nstart: Any, zero_start: bool) -> Any:
    """Why a start vector would change the answer, or True: swapless starts from the
    uniform vector (from zero when ``zero_start``), the same answer as any start that
    is uniform (zero) over every node."""
    if nstart is None:
        return True
    value = _uniform(nstart) if every_node(G, nstart) else None
    if value is None or (value == 0) != zero_start:
        return "swapless starts from a uniform vector, not from nstart"
    return True


def _converged(g: Any, max_iter: int, run: Any) -> Any:
    """``run()``'s scores, raising networkx's error where the iteration did not
    converge (or diverged) within ``max_iter``."""
    if max_iter < 1:
        raise nx.PowerIterationFailedConvergence(max_iter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        scores = run()
    if not g.last_report["result"].get("converged", True):
        raise nx.PowerIterationFailedConvergence(max_iter)
    return scores


def _eigenvector_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if not tolerance_kept(G, argument(args, kwargs, "tol", 2, 1e-6)):
        return "a negative tolerance is never met (networkx raises)"
    if not weights_are_one(G, argument(args, kwargs, "weight", 4, None)):
        return "swapless's eigenvector centrality ignores edge weights"
    return _start_declines(G, argument(args, kwargs, "nstart", 3, None), zero_start=False)


@dispatched(_eigenvector_declines, loops_answered=True, docs="Unweighted; nstart only when uniform.")
def eigenvector_centrality(G: SwaplessGraph, max_iter: int = 100, tol: float = 1.0e-6,
                           nstart: Any = None, weight: Any = None, *, backend: Any = None,
                           **backend_kwargs: Any) -> dict:
    """networkx's ``eigenvector_centrality``: the same iteration and stopping rule."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    g = G.sl
    scores = _converged(g, max_iter, lambda: _sl.eigenvector_centrality(
        g, tol=tol, max_iter=max_iter))
    return as_dict(scores, g)


def _katz_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if not tolerance_kept(G, argument(args, kwargs, "tol", 4, 1e-6)):
        return "a negative tolerance is never met (networkx raises)"
    if argument(args, kwargs, "alpha", 1, 0.1) < 0:
        return "swapless's Katz centrality takes a non-negative alpha"
    beta = argument(args, kwargs, "beta", 2, 1.0)
    if isinstance(beta, dict) and (not every_node(G, beta) or _uniform(beta) is None):
        return "swapless's Katz centrality takes one beta for every node"
    if not isinstance(beta, dict):
        try:
            float(beta)
        except (TypeError, ValueError):
            return "beta is not a number (networkx raises)"
    if not weights_are_one(G, argument(args, kwargs, "weight", 7, None)):
        return "swapless's Katz centrality ignores edge weights"
    return _start_declines(G, argument(args, kwargs, "nstart", 5, None), zero_start=True)


@dispatched(_katz_declines, loops_answered=True,
            docs="Unweighted; one beta for every node; nstart only when zero.")
def katz_centrality(G: SwaplessGraph, alpha: float = 0.1, beta: Any = 1.0,
                    max_iter: int = 1000, tol: float = 1.0e-6, nstart: Any = None,
                    normalized: bool = True, weight: Any = None, *, backend: Any = None,
                    **backend_kwargs: Any) -> dict:
    """networkx's ``katz_centrality``: the same iteration and stopping rule."""
    if len(G) == 0:
        return {}  # networkx answers the null graph before it reads an argument
    g = G.sl
    base = float(_uniform(beta) if isinstance(beta, dict) else beta)
    scores = _converged(g, max_iter, lambda: _sl.katz_centrality(
        g, alpha=alpha, beta=base, tol=tol, max_iter=max_iter, normalized=normalized))
    return as_dict(scores, g)


# The Lanczos vectors ARPACK keeps for one singular vector (scipy's svds: ncv = 20), so
# the products with AᵀA one restart may take.
_ARPACK_PRODUCTS = 20


def _hits_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if not tolerance_kept(G, argument(args, kwargs, "tol", 2, 1e-8)):
        return "a negative tolerance is never met (networkx raises)"
    # networkx's hits reads the adjacency matrix, with weights, from the "weight" attribute.
    if not weights_are_one(G, "weight"):
        return "swapless's HITS ignores edge weights"
    if not argument(args, kwargs, "normalized", 4, True):
        return "networkx's unnormalized vectors are ARPACK's, of either sign"
    if G.number_of_edges() == 0 and len(G) > 0:
        return "a graph without edges has no principal singular vector"
    return _start_declines(G, argument(args, kwargs, "nstart", 3, None), zero_start=False)


@dispatched(_hits_declines, loops_answered=True, docs="Unweighted, normalized; nstart only when uniform.")
def hits(G: SwaplessGraph, max_iter: int = 100, tol: float = 1.0e-8, nstart: Any = None,
         normalized: bool = True, *, backend: Any = None, **backend_kwargs: Any) -> tuple:
    """networkx's ``hits``: the principal singular vectors by power iteration, where
    networkx asks ARPACK for them to the same tolerance; each sums to 1. networkx's
    ``max_iter`` counts ARPACK's restarts, each up to ``_ARPACK_PRODUCTS`` products with
    the matrix; the power iteration may take as many."""
    if len(G) == 0:
        return {}, {}  # networkx answers the null graph before it reads an argument
    g = G.sl
    products = max_iter * _ARPACK_PRODUCTS
    hubs = _converged(g, max_iter, lambda: _sl.hits(g, tol=tol, max_iter=products,
                                                    scores="hubs"))
    authorities = _converged(g, max_iter, lambda: _sl.hits(g, tol=tol, max_iter=products,
                                                           scores="authorities"))
    return as_dict(hubs, g), as_dict(authorities, g)
