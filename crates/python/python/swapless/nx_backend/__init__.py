"""swapless as a networkx backend: ``nx.pagerank(G, backend="swapless")``.

networkx finds it through the ``networkx.backends`` entry point. A networkx graph is
converted once (networkx caches the conversion on the graph) into a swapless graph
keyed by the graph's node labels. A function runs here only when its answer would be
networkx's: ``can_run`` declines what swapless computes differently (self-loops where
a kernel counts them otherwise; parallel edges where networkx counts them; edge weights
a kernel ignores; options it lacks), and networkx then runs it itself or,
in its backend test mode, marks the test an expected failure.

A graph already built needs no networkx graph: ``swapless.networkx_graph(path)`` (see
``SwaplessGraph.from_swapless``) stands on a .sl file or far graph alone, and the
declines read its facts (directed, self-loops, counts, ids) where they would read
networkx's edges, declining what only the edges tell.

Each family of functions is a module here; a function registers itself, with the cases
it declines, through ``_graph.dispatched``.
"""

from __future__ import annotations

from typing import Any

from . import (  # noqa: F401
    centrality, clustering, communities, components, cores, degrees, distances, independent,
    link_prediction, paths, spectral)
from .. import _nx_info
from ._graph import FUNCTIONS, SwaplessGraph, file_backed, file_weights_known, graph_of, plain

__all__ = ["BackendInterface", "SwaplessGraph", "backend_info", "can_run"]


def can_run(name: str, args: tuple, kwargs: dict) -> Any:
    """True when swapless's answer to ``name`` with these arguments is networkx's;
    otherwise why not."""
    entry = FUNCTIONS.get(name)
    if entry is None:
        return f"swapless does not implement {name}"
    G = graph_of(args, kwargs)
    answer = plain(G, entry)
    if answer is True and file_backed(G):
        answer = file_weights_known(G, entry, args, kwargs)
    if answer is True and entry.check is not None:
        answer = entry.check(G, args, kwargs)
    return answer


def should_run(name: str, args: tuple, kwargs: dict) -> bool:
    """Always, once it can: the caller asked for this backend."""
    return True


def convert_from_nx(G: Any, *args: Any, **kwargs: Any) -> SwaplessGraph:
    """``G`` as a swapless graph keyed by its node labels."""
    return SwaplessGraph(G)


def convert_to_nx(obj: Any, *, name: Any = None) -> Any:
    """Results are networkx's types already; a converted graph is its original. A
    file-backed graph has no networkx graph (networkx asks for one to run a call swapless
    declines, with fallback to networkx on): that raises TypeError rather than read
    every edge of a graph that may not fit in memory."""
    if not isinstance(obj, SwaplessGraph):
        return obj
    if obj.nx is None:
        raise TypeError(
            f"swapless declined a call on {obj.sl.path} (networkx's DEBUG log says why), and "
            "networkx cannot run it there: the graph has no networkx graph behind it")
    return obj.nx


BackendInterface = type("BackendInterface", (), {
    "__doc__": "What networkx's entry point loads.",
    "can_run": staticmethod(can_run),
    "should_run": staticmethod(should_run),
    "convert_from_nx": staticmethod(convert_from_nx),
    "convert_to_nx": staticmethod(convert_to_nx),
    **{name: staticmethod(entry.function) for name, entry in FUNCTIONS.items()},
})


def function_docs() -> dict:
    """Each function swapless answers, with what it declines, as networkx lists them."""
    return {name: {"additional_docs": _declines(entry)}
            for name, entry in sorted(FUNCTIONS.items())}


def backend_info() -> dict:
    """networkx's description of this backend (``swapless._nx_info`` gives networkx the
    same while this module imports)."""
    return _nx_info.backend_info()


def _declines(entry: Any) -> str:
    """What a function answers, and the graphs it declines."""
    declined = [kind for kind, answered in (("graphs with self-loops", entry.loops_answered),
                                            ("multigraphs", entry.parallel_answered))
                if not answered]
    said = entry.docs
    if declined:
        said = f"{said} Declines {' and '.join(declined)}.".strip()
    if entry.file_declined:
        said = f"{said} Declines file-backed graphs: {entry.file_declined}.".strip()
    return said or "Every option networkx takes."
