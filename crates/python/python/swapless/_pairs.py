"""Questions about given vertices rather than the whole graph: the neighbors two
vertices share, and their Jaccard coefficient (networkx's ``common_neighbors`` and
``jaccard_coefficient``). Each reads only the lists it asks about, from the file, its
checksums checked; a graph in far memory answers kernel runs only."""

from __future__ import annotations

from typing import Any

import numpy as _np


def positions(g: Any, ids: Any, name: str = "pairs") -> _np.ndarray:
    """The positions of the vertices the input called ``ids`` (an array of any shape,
    or nested lists), raising KeyError for one that is not a vertex: a search of the
    sorted ids where the ids are integers, a lookup of each otherwise."""
    array = _np.asarray(ids)
    if g._positions is None and g.info()["ids"] != "names" and array.dtype.kind in "iu":
        found = _np.searchsorted(g.ids, array)
        clipped = _np.minimum(found, max(g.n - 1, 0))
        absent = (found >= g.n) | (g.ids[clipped] != array) if g.n else \
            _np.ones(array.shape, dtype=bool)
        if absent.any():
            raise KeyError(f"{name}: no vertex of {g.path} has the id {array[absent].flat[0]!r}")
        return found.astype(_np.int64)
    found = [g.vertex(id) for id in array.reshape(-1).tolist()]
    return _np.array(found, dtype=_np.int64).reshape(array.shape)


def _undirected(g: Any, what: str) -> None:
    if g.directed:
        raise ValueError(f"{what} is defined on undirected graphs (as networkx's); this "
                         "graph is directed: build it with undirected=True")


def common_neighbors(g: Any, u: Any, v: Any) -> _np.ndarray:
    """The input's ids of the vertices linked to both ``u`` and ``v`` (by the input's
    ids), ``u`` and ``v`` themselves left out, as networkx's ``common_neighbors``; an
    undirected graph."""
    _undirected(g, "common_neighbors")
    first, second = g.neighbors(u), g.neighbors(v)
    both = _np.intersect1d(first, second)
    return both[(both != u) & (both != v)] if len(both) else both


def pair_counts(g: Any, pairs: _np.ndarray) -> tuple:
    """For each row of ``pairs`` (positions), the vertices both lists hold (the pair
    left out) and those either holds: two int64 arrays."""
    return g._lists().pair_counts(_np.ascontiguousarray(pairs, dtype=_np.int64))


def jaccard_coefficient(g: Any, pairs: Any) -> _np.ndarray:
    """For each pair ``(u, v)`` of ``pairs`` (the input's ids: a list of pairs or an
    array of two columns), the neighbors they share over the neighbors either has, as
    networkx's ``jaccard_coefficient``: float64 per pair (0 where neither has one); an
    undirected graph."""
    _undirected(g, "jaccard_coefficient")
    if isinstance(pairs, _np.ndarray):
        asked = positions(g, pairs)
    else:
        # Labels of any kind (tuples too) are looked up one by one, from any iterable.
        found = []
        for pair in pairs:
            if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
                raise ValueError(f"pairs must be pairs of vertex ids, not {pair!r}")
            found.append((g.vertex(pair[0]), g.vertex(pair[1])))
        asked = _np.array(found, dtype=_np.int64).reshape(-1, 2)
    if asked.size == 0:
        return _np.zeros(0)
    if asked.ndim != 2 or asked.shape[1] != 2:
        raise ValueError(f"pairs must be pairs of vertex ids, not an array of shape {asked.shape}")
    common, union = pair_counts(g, asked)
    return _np.divide(common, union, out=_np.zeros(len(common)), where=union > 0)
