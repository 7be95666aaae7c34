"""What every dispatched function shares: the converted graph, the table of functions
with the cases each declines, and helpers that read networkx's arguments."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

import networkx as nx
import numpy as np

import swapless as _sl


def converted(graph: Any, weight: Any = None) -> Any:
    """``graph`` as a swapless graph, built within the backend's configured budget and
    tier (``nx.config.backends.swapless.memory`` and ``.tier``; None: swapless's
    defaults, half of memory and the tier the budget allows)."""
    config = getattr(nx.config.backends, "swapless", None)
    memory = getattr(config, "memory", None)
    tier = getattr(config, "tier", None)
    return _sl.from_networkx(graph, weight=weight, memory=memory, tier=tier)


class SwaplessGraph:
    """A networkx graph converted for swapless: the swapless graph, keyed by the
    original's node labels, and the original, for conversion back."""

    __networkx_backend__ = "swapless"

    def __init__(self, graph: Any) -> None:
        self.nx = graph
        self.sl = converted(graph)
        self._reversed: Any = None
        self._weighted: dict = {}

    def weighted_sl(self, attribute: Any) -> Any:
        """The swapless graph weighted by edge ``attribute`` (1 where an edge has none),
        or by a weight function of ``(u, v, data)``, converted on first use."""
        if attribute not in self._weighted:
            self._weighted[attribute] = converted(self.nx, weight=attribute)
        return self._weighted[attribute]

    def summed_sl(self, attribute: Optional[str]) -> Any:
        """The swapless graph weighted by edge ``attribute`` (1 where an edge has none, or
        every edge for None), each set of parallel edges one edge weighing their sum, as
        networkx's matrices sum them; converted on first use."""
        key = ("summed", attribute)
        if key not in self._weighted:
            if not self.nx.is_multigraph():
                self._weighted[key] = self.weighted_sl(attribute) if attribute else self.sl
                return self._weighted[key]
            simple = nx.DiGraph() if self.nx.is_directed() else nx.Graph()
            simple.add_nodes_from(self.nx)
            for u, v, data in self.nx.edges(data=True):
                weight = data.get(attribute, 1) if attribute is not None else 1
                if simple.has_edge(u, v):
                    simple[u][v]["weight"] += weight
                else:
                    simple.add_edge(u, v, weight=weight)
            self._weighted[key] = converted(simple, weight="weight")
        return self._weighted[key]

    @property
    def reversed_sl(self) -> Any:
        """The swapless graph of the reverse of a directed graph, converted on first
        use (a search along in-edges runs on it)."""
        if self._reversed is None:
            self._reversed = converted(self.nx.reverse(copy=False))
        return self._reversed

    def is_directed(self) -> bool:
        return self.nx.is_directed()

    def is_multigraph(self) -> bool:
        return self.nx.is_multigraph()


@dataclasses.dataclass(frozen=True)
class Dispatched:
    """A function swapless answers, and when it declines to."""

    function: Callable
    # Why swapless would answer differently with these arguments, or True.
    check: Optional[Callable[[Any, tuple, dict], Any]]
    # swapless answers a graph with self-loops as networkx does: its conversions keep
    # them, and the kernel leaves them out or counts them as networkx's function does.
    loops_answered: bool
    # swapless answers a multigraph as networkx does: parallel edges count once in
    # networkx's answer (swapless keeps one), or the function sums their weights.
    parallel_answered: bool
    docs: str


FUNCTIONS: dict = {}


def dispatched(check: Optional[Callable] = None, *, loops_answered: bool = False,
               parallel_answered: bool = False, docs: str = "") -> Callable:
    """Registers the decorated function under its name as one swapless answers."""

    def register(function: Callable) -> Callable:
        FUNCTIONS[function.__name__] = Dispatched(function, check, loops_answered,
                                                  parallel_answered, docs)
        return function

    return register


def graph_of(args: tuple, kwargs: dict) -> Any:
    """The graph a dispatched call was given (networkx's, or a converted one's)."""
    G = kwargs.get("G", args[0] if args else None)
    return G.nx if isinstance(G, SwaplessGraph) else G


def argument(args: tuple, kwargs: dict, name: str, position: int, default: Any) -> Any:
    """The argument ``name`` (at ``position``) of a call, or its default."""
    if name in kwargs:
        return kwargs[name]
    return args[position] if len(args) > position else default


def weights_are_one(G: Any, weight: Any) -> bool:
    """Whether every edge weighs 1 under ``weight`` (None: unweighted)."""
    if weight is None:
        return True
    if callable(weight):
        return False
    return all(data.get(weight, 1) == 1 for _, _, data in G.edges(data=True))


def weights_swapless_keeps(G: Any, weight: Any) -> Any:
    """Why swapless's shortest paths by ``weight`` would not be networkx's, or True:
    swapless stores weights as float32, so each must be one exactly (integers below 2^24,
    halves, quarters...), and none may be negative."""
    if weight is None:
        return True
    weights = edge_weights(G, weight)
    kept = _float32_holds(weights)
    if kept is not True:
        return kept
    if any(value < 0 for value in weights):
        return "swapless's shortest paths take no negative weight"
    return True


def tolerance_kept(G: Any, tol: Any) -> bool:
    """Whether swapless takes ``tol`` as networkx does: a number at least 0, or any on
    the null graph, which networkx answers before it reads an argument."""
    return len(G) == 0 or (isinstance(tol, (int, float, np.integer, np.floating))
                           and not isinstance(tol, bool) and tol >= 0)


def edge_weights(G: Any, weight: Any) -> Any:
    """Each edge's weight under ``weight``, in ``G.edges()`` order, as networkx's shortest
    paths read it (an attribute, 1 where an edge has none; or a function of ``(u, v,
    data)``), or why swapless would read another."""
    if not callable(weight):
        return [data.get(weight, 1) for _, _, data in G.edges(data=True)]
    if G.is_multigraph():
        return "a weight function reads a multigraph's parallel edges together"
    weights = []
    for u, v, data in G.edges(data=True):
        value = weight(u, v, data)
        if value is None:
            return "the weight function hides an edge (it gives None)"
        if not G.is_directed() and weight(v, u, data) != value:
            return "the weight function weighs an undirected edge differently each way"
        weights.append(value)
    return weights


def float32_weights(G: Any, weight: Any) -> Any:
    """Why swapless's float32 weights would not be ``G``'s under ``weight``, or True."""
    return True if weight is None else _float32_holds(edge_weights(G, weight))


def _float32_holds(weights: Any) -> Any:
    """Why float32 would not hold ``weights`` (or the reason ``edge_weights`` gave), or
    True."""
    if isinstance(weights, str):
        return weights
    for value in weights:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            return "an edge's weight is not a number"
        if float(np.float32(value)) != value:
            return "swapless's weights are float32: a weight here is not one"
    return True


def integer_weights(G: Any, weight: Any) -> bool:
    """Whether every edge weighs an integer under ``weight`` (networkx then answers with
    integer distances)."""
    return weight is None or all(
        isinstance(data.get(weight, 1), (int, np.integer)) for _, _, data in G.edges(data=True))


def plain(G: Any, entry: Dispatched) -> Any:
    """Why swapless's graph of ``G`` would give ``entry`` another answer, or True."""
    if not isinstance(G, nx.Graph):
        return "not a networkx graph"
    if G.is_multigraph() and not entry.parallel_answered:
        return "swapless keeps one edge of each parallel set"
    if not entry.loops_answered and nx.number_of_selfloops(G):
        return "swapless counts self-loops otherwise than networkx's function"
    return True


def nodes_present(*names_positions: tuple) -> Any:
    """A check that the nodes named by these (name, position) arguments are in the
    graph: networkx itself raises for one that is not."""

    def check(G: Any, args: tuple, kwargs: dict) -> Any:
        for name, position in names_positions:
            node = argument(args, kwargs, name, position, None)
            if node is not None and node not in G:
                return f"the {name} is not a node"
        return True

    return check


def as_dict(values: np.ndarray, g: Any) -> dict:
    """A value per vertex of ``g``, keyed by node label."""
    return {label: value for label, value in zip(g.ids.tolist(), values.tolist())}


def of_nodes(values: dict, G: SwaplessGraph, nodes: Any) -> Any:
    """``values`` of every node (``nodes`` None), of the one node ``nodes`` names, or of
    the nodes it holds, as networkx's node-wise functions answer."""
    if nodes is None:
        return values
    if nodes in G.nx:
        return values[nodes]
    return {node: values[node] for node in G.nx.nbunch_iter(nodes)}


def loop_free_degree(G: Any, node: Any) -> int:
    """``node``'s neighbors other than itself."""
    adjacent = G.adj[node]
    return len(adjacent) - (node in adjacent)
