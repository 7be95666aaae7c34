"""The k-truss (networkx's ``k_truss``): a result that is edges, pairs of vertices,
rather than a value per vertex."""

from __future__ import annotations

from typing import Any, Optional

import numpy as _np


def k_truss(g: Any, k: int = 3, *, threads: Optional[int] = None, verify: bool = False,
            checkpoint: Any = None, checkpoint_every: Any = "auto") -> _np.ndarray:
    """The k-truss of an undirected graph, as networkx's ``k_truss``: the edges left when
    every edge lies in at least ``k - 2`` triangles of the edges left. An int64 array of
    shape (edges, 2), each row an edge as two positions in ``g.ids``, the smaller first,
    rows sorted (``to_pandas`` gives their ids, the columns ``source`` and ``target``).
    ``k`` of 2 or less keeps every edge; a self-loop lies in no triangle, so it is never
    kept (networkx refuses a graph with one). The truss's vertices are the ends of its
    edges: ``numpy.unique(edges)``."""
    from . import _checkpointing, _integer, _threads
    from ._pairs import _undirected

    k = _integer(k, "k", 0, 2**32 - 1)
    _undirected(g, "k_truss")
    return g._run("ktruss", k=k, threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def edges_to_pandas(edges: _np.ndarray, g: Any) -> Any:
    """``edges`` (rows of two positions in ``g.ids``) as a pandas DataFrame of the
    input's ids, the columns ``source`` and ``target``."""
    import pandas as pd

    edges = _np.asarray(edges)
    if edges.ndim != 2 or edges.shape[1] != 2:
        raise ValueError(f"edges are rows of two vertices, not an array of shape {edges.shape}")
    if len(edges) and (edges.min() < 0 or edges.max() >= g.n):
        raise ValueError(f"edges name vertices 0 to {g.n - 1} of this graph, not "
                         f"{edges.min()} to {edges.max()}")
    return pd.DataFrame({"source": g.ids[edges[:, 0]], "target": g.ids[edges[:, 1]]})
