"""The Jaccard coefficient of given pairs: each pair's two lists read from the graph's
file (checked), in batches, the intersections counted in parallel. (networkx's
``common_neighbors`` is not dispatched to backends: ``swapless.common_neighbors``
answers it on a swapless graph.)"""

from __future__ import annotations

import itertools
from typing import Any, Iterator

import networkx as nx
import numpy as np

from .. import _pairs
from ._graph import SwaplessGraph, argument, dispatched, file_backed

# Pairs whose lists are read in one batch: a batch's answers are made before the first
# is handed out, so a caller that stops early wastes at most one batch.
_BATCH_PAIRS = 1 << 14


def _local_lists(G: Any, args: tuple, kwargs: dict) -> Any:
    if file_backed(G) and G.sl.info()["far"]:
        return "a far graph's lists are read by kernel runs only"
    return True


def _jaccard_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    local = _local_lists(G, args, kwargs)
    if local is not True:
        return local
    if file_backed(G) and argument(args, kwargs, "ebunch", 1, None) is None:
        return "every non-edge of a file-backed graph: give the pairs (ebunch)"
    return True


def _predictions(g: Any, pairs: Iterator) -> Iterator:
    """(u, v, p) for each pair, ``p`` the pair's shared neighbors over all of theirs
    (0, an int as networkx gives it, where neither has one), a batch at a time."""
    while True:
        batch = list(itertools.islice(pairs, _BATCH_PAIRS))
        if not batch:
            return
        asked = np.array([(g.vertex(u), g.vertex(v)) for u, v in batch], dtype=np.int64)
        common, union = _pairs.pair_counts(g, asked)
        for (u, v), shared, either in zip(batch, common.tolist(), union.tolist()):
            yield u, v, shared / either if either else 0


@dispatched(_jaccard_declines, loops_answered=True,
            docs="On a graph backed by a .sl file, pairs must be given (ebunch).")
def jaccard_coefficient(G: SwaplessGraph, ebunch: Any = None, *, backend: Any = None,
                        **backend_kwargs: Any) -> Iterator:
    """networkx's ``jaccard_coefficient``: for each pair of ``ebunch`` (every non-edge
    by default), the neighbors the two share over the neighbors either has."""
    if ebunch is None:
        ebunch = nx.non_edges(G.nx)
    else:
        # networkx checks every pair before it answers any (and so reads an iterator
        # through: its answer is then empty, as here).
        for u, v in ebunch:
            if u not in G:
                raise nx.NodeNotFound(f"Node {u} not in G.")
            if v not in G:
                raise nx.NodeNotFound(f"Node {v} not in G.")
    return _predictions(G.sl, iter(ebunch))
