"""What every dispatched function shares: the converted graph, the table of functions
with the cases each declines, and helpers that read networkx's arguments."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Any, Callable, Optional

import networkx as nx
import numpy as np

import swapless as _sl


def converted(graph: Any, weight: Any = None) -> Any:
    """``graph`` as a swapless graph, built within the backend's configured budget and
    tier (``nx.config.backends.swapless.memory`` and ``.tier``; None: swapless's
    defaults, half of memory and the tier the budget allows), its build and runs showing
    progress as ``.progress`` says (None: where someone watches, a terminal or a
    notebook; True or False: always or never)."""
    config = getattr(nx.config.backends, "swapless", None)
    memory = getattr(config, "memory", None)
    tier = getattr(config, "tier", None)
    progress = getattr(config, "progress", None)
    return _sl.from_networkx(graph, weight=weight, memory=memory, tier=tier,
                             progress=progress)


class SwaplessGraph:
    """A graph the backend's functions take: a networkx graph converted for swapless
    (``nx``, the original, and ``sl``, its swapless graph keyed by the original's node
    labels), or a swapless graph alone (``nx`` None: a .sl file or a far graph, from
    :meth:`from_swapless`), whose facts answer what networkx's graph would."""

    __networkx_backend__ = "swapless"

    def __init__(self, graph: Any) -> None:
        self._stand_on(graph, converted(graph), None)

    @classmethod
    def from_swapless(cls, g: Any, weight: str = "weight") -> "SwaplessGraph":
        """A backend graph on the swapless graph ``g`` (``swapless.open``'s) alone: no
        networkx graph is built, and calls run on ``g``'s file (or far graph). Its
        edges' weights, if the file has any, are networkx's edge attribute ``weight``."""
        if not isinstance(g, _sl.Graph):
            raise TypeError(f"from_swapless takes a swapless.Graph (swapless.open's), "
                            f"not {type(g).__name__}")
        if not isinstance(weight, str):
            raise TypeError(f"weight names the edge attribute the file's weights are, "
                            f"not {weight!r}")
        backend_graph = cls.__new__(cls)
        backend_graph._stand_on(None, g, weight)
        return backend_graph

    def _stand_on(self, graph: Any, g: Any, file_weight: Optional[str]) -> None:
        self.nx = graph
        self.sl = g
        # The edge attribute a file-backed graph's weights answer to (None when converted).
        self.file_weight = file_weight
        self._reversed: Any = None
        self._weighted: dict = {}

    def weights_under(self, weight: Any) -> str:
        """How a file-backed graph's edges weigh under networkx's ``weight`` argument:
        "ones", "file" (the file's own weights), or why swapless cannot say."""
        if callable(weight):
            return "a weight function reads networkx's edge data, which a file-backed graph lacks"
        # A file without weights stands for edges without attributes, which networkx
        # reads as weighing 1 under any attribute.
        if weight is None or not self.sl.weighted:
            return "ones"
        if weight == self.file_weight:
            return "file"
        return (f"the file's weights are the edge attribute {self.file_weight!r}, "
                f"not {weight!r}")

    def weighted_sl(self, attribute: Any) -> Any:
        """The swapless graph weighted by edge ``attribute`` (1 where an edge has none),
        or by a weight function of ``(u, v, data)``, converted on first use."""
        if self.nx is None:
            # The file is the only weighting there is; the checks declined any other.
            if self.weights_under(attribute) not in ("ones", "file"):
                raise NotImplementedError(self.weights_under(attribute))
            return self.sl
        if attribute not in self._weighted:
            self._weighted[attribute] = converted(self.nx, weight=attribute)
        return self._weighted[attribute]

    def summed_sl(self, attribute: Optional[str]) -> Any:
        """The swapless graph weighted by edge ``attribute`` (1 where an edge has none, or
        every edge for None), each set of parallel edges one edge weighing their sum, as
        networkx's matrices sum them; converted on first use."""
        return self._simple_sl(attribute, sum)

    def lightest_sl(self, attribute: Optional[str]) -> Any:
        """The same with each set of parallel edges one edge weighing the least of them,
        as networkx's shortest paths read a multigraph."""
        return self._simple_sl(attribute, min)

    def _simple_sl(self, attribute: Optional[str], merge: Callable) -> Any:
        """The swapless graph weighted by edge ``attribute``, each set of parallel edges
        one edge weighing ``merge`` of their weights; converted on first use."""
        if self.nx is None:
            return self.weighted_sl(attribute) if attribute else self.sl
        key = (merge.__name__, attribute)
        if key not in self._weighted:
            if not self.nx.is_multigraph():
                self._weighted[key] = self.weighted_sl(attribute) if attribute else self.sl
                return self._weighted[key]
            simple = nx.DiGraph() if self.nx.is_directed() else nx.Graph()
            simple.add_nodes_from(self.nx)
            for u, v, data in self.nx.edges(data=True):
                weight = data.get(attribute, 1) if attribute is not None else 1
                if simple.has_edge(u, v):
                    simple[u][v]["weight"] = merge((simple[u][v]["weight"], weight))
                else:
                    simple.add_edge(u, v, weight=weight)
            self._weighted[key] = converted(simple, weight="weight")
        return self._weighted[key]

    @property
    def reversed_sl(self) -> Any:
        """The swapless graph of the reverse of a directed graph, converted on first
        use (a search along in-edges runs on it)."""
        if self.nx is None:
            # The checks decline the calls that need it; this keeps a missed one from
            # answering wrong (networkx takes NotImplementedError as a decline).
            raise NotImplementedError(NO_REVERSE)
        if self._reversed is None:
            self._reversed = converted(self.nx.reverse(copy=False))
        return self._reversed

    def is_directed(self) -> bool:
        """Whether the graph is directed."""
        return self.nx.is_directed() if self.nx is not None else self.sl.directed

    def is_multigraph(self) -> bool:
        """Whether the graph keeps parallel edges (a .sl file never does)."""
        return self.nx.is_multigraph() if self.nx is not None else False

    def __len__(self) -> int:
        """The number of nodes."""
        return len(self.nx) if self.nx is not None else self.sl.n

    def __contains__(self, node: Any) -> bool:
        """Whether ``node`` is a node of the graph."""
        if self.nx is not None:
            return node in self.nx
        try:
            # A lookup in the sorted ids (or names), never a set of every node.
            self.sl.vertex(node)
        except (KeyError, TypeError, OverflowError):
            return False
        return True

    def __iter__(self) -> Any:
        """The nodes, in the order of the swapless graph's vertices."""
        return iter(self.nx) if self.nx is not None else iter(self.sl.ids.tolist())

    def nbunch_iter(self, nbunch: Any = None) -> Any:
        """networkx's ``nbunch_iter``: every node (None), the one node ``nbunch`` is, or
        the nodes of the container ``nbunch`` that are in the graph."""
        if self.nx is not None:
            return self.nx.nbunch_iter(nbunch)
        if nbunch is None:
            return iter(self)
        if nbunch in self:
            return iter([nbunch])
        return self._members(nbunch)

    def _members(self, nbunch: Any) -> Any:
        """The nodes of ``nbunch`` in the graph, raising as networkx's ``nbunch_iter``."""
        try:
            for node in nbunch:
                if node in self:
                    yield node
        except TypeError as error:
            if "object is not iterable" in str(error):
                raise nx.NetworkXError(f"Node {nbunch} is not in the graph.") from error
            raise nx.NetworkXError("nbunch is not a node or a sequence of nodes.") from error

    def number_of_edges(self) -> int:
        """Edges, an undirected one once."""
        return self.nx.number_of_edges() if self.nx is not None else self.sl.m

    def number_of_selfloops(self) -> int:
        """Edges from a node to itself."""
        if self.nx is not None:
            return nx.number_of_selfloops(self.nx)
        return self.sl.info()["self_loops"]


# Why a directed file-backed graph declines a search along in-arcs.
NO_REVERSE = ("a search along in-arcs runs on the reversed graph, which swapless converts "
              "from networkx's; a file-backed graph has none")


def file_backed(G: Any) -> bool:
    """Whether ``G`` is a backend graph on a swapless graph alone, with no networkx
    graph behind it."""
    return isinstance(G, SwaplessGraph) and G.nx is None


def seen(G: Any) -> Any:
    """The graph a call's arguments are read against: a converted graph's networkx
    original, a file-backed graph itself, anything else as it is."""
    return G.nx if isinstance(G, SwaplessGraph) and G.nx is not None else G


def self_loops(G: Any) -> int:
    """The self-loops of ``G`` (networkx's, or a backend graph's)."""
    G = seen(G)
    return G.number_of_selfloops() if isinstance(G, SwaplessGraph) else nx.number_of_selfloops(G)


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
    # Why a graph with no networkx graph behind it is declined whatever the call ("":
    # answered, each call's own checks aside).
    file_declined: str


FUNCTIONS: dict = {}


def dispatched(check: Optional[Callable] = None, *, loops_answered: bool = False,
               parallel_answered: bool = False, docs: str = "",
               file_declined: str = "") -> Callable:
    """Registers the decorated function under its name as one swapless answers."""

    def register(function: Callable) -> Callable:
        answering = _refusing_unknown_keywords(function)
        FUNCTIONS[function.__name__] = Dispatched(answering, check, loops_answered,
                                                  parallel_answered, docs, file_declined)
        return answering

    return register


def _refusing_unknown_keywords(function: Callable) -> Callable:
    """``function``, raising TypeError for a keyword networkx's function does not take
    (networkx hands a backend every keyword it was given, a misspelled one too, which
    ``**backend_kwargs`` would otherwise swallow)."""
    taken = {name for name, parameter in inspect.signature(function).parameters.items()
             if parameter.kind is not inspect.Parameter.VAR_KEYWORD}

    @functools.wraps(function)
    def answer(*args: Any, **kwargs: Any) -> Any:
        unknown = sorted(set(kwargs) - taken)
        if unknown:
            raise TypeError(f"{function.__name__}() got an unexpected keyword argument "
                            f"{unknown[0]!r}")
        return function(*args, **kwargs)

    return answer


def graph_of(args: tuple, kwargs: dict) -> Any:
    """The graph a dispatched call was given, as its arguments are read against (see
    ``seen``)."""
    return seen(kwargs.get("G", args[0] if args else None))


def argument(args: tuple, kwargs: dict, name: str, position: int, default: Any) -> Any:
    """The argument ``name`` (at ``position``) of a call, or its default."""
    if name in kwargs:
        return kwargs[name]
    return args[position] if len(args) > position else default


def weights_are_one(G: Any, weight: Any) -> bool:
    """Whether every edge weighs 1 under ``weight`` (None: unweighted)."""
    G = seen(G)
    if weight is None:
        return True
    if callable(weight):
        return False
    if file_backed(G):
        return G.weights_under(weight) == "ones"
    return all(data.get(weight, 1) == 1 for _, _, data in G.edges(data=True))


def weights_swapless_keeps(G: Any, weight: Any) -> Any:
    """Why swapless's shortest paths by ``weight`` would not be networkx's, or True:
    swapless stores weights as float32, so each must be one exactly (integers below 2^24,
    halves, quarters...), and none may be negative."""
    G = seen(G)
    if weight is None:
        return True
    if file_backed(G):
        # The file's weights are float32 already; a negative one is refused by the
        # kernel itself (ValueError), as nothing short of reading them can tell.
        return _known_weights(G, weight)
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
    G = seen(G)
    if weight is None:
        return True
    if file_backed(G):
        return _known_weights(G, weight)
    return _float32_holds(edge_weights(G, weight))


def _known_weights(G: SwaplessGraph, weight: Any) -> Any:
    """Why a file-backed graph's edges have no weight swapless knows under ``weight``,
    or True."""
    under = G.weights_under(weight)
    return True if under in ("ones", "file") else under


def _float32_holds(weights: Any) -> Any:
    """Why float32 would not hold ``weights`` (or the reason ``edge_weights`` gave), or
    True."""
    if isinstance(weights, str):
        return weights
    for value in weights:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            return "an edge's weight is not a number"
        if not np.isfinite(value):
            return "an edge's weight is not finite"
        with np.errstate(over="ignore"):
            if float(np.float32(value)) != value:
                return "swapless's weights are float32: a weight here is not one"
    return True


def integer_weights(G: Any, weight: Any) -> bool:
    """Whether every edge weighs an integer under ``weight`` (networkx then answers with
    integer distances)."""
    G = seen(G)
    if file_backed(G):
        # The file's weights are float32, which networkx would read as floats.
        return G.weights_under(weight) == "ones"
    return weight is None or all(
        isinstance(data.get(weight, 1), (int, np.integer)) for _, _, data in G.edges(data=True))


def plain(G: Any, entry: Dispatched) -> Any:
    """Why swapless's graph of ``G`` would give ``entry`` another answer, or True."""
    if file_backed(G):
        if entry.file_declined:
            return entry.file_declined
    elif not isinstance(G, nx.Graph):
        return "not a networkx graph"
    if G.is_multigraph() and not entry.parallel_answered:
        return "swapless keeps one edge of each parallel set"
    if not entry.loops_answered and self_loops(G):
        return "swapless counts self-loops otherwise than networkx's function"
    return True


# The arguments that name the edge attribute a call weighs edges by.
_WEIGHT_ARGUMENTS = ("weight", "distance")


def file_weights_known(G: SwaplessGraph, entry: Dispatched, args: tuple, kwargs: dict) -> Any:
    """Why a file-backed graph cannot weigh its edges as the call's weight argument asks
    (a function of networkx's edge data, an attribute the file does not hold), or True."""
    try:
        bound = inspect.signature(entry.function).bind(*args, **kwargs)
    except TypeError:
        return True  # the call itself raises TypeError, as networkx's would
    bound.apply_defaults()
    for name in _WEIGHT_ARGUMENTS:
        if name in bound.arguments:
            known = _known_weights(G, bound.arguments[name])
            if known is not True:
                return known
    return True


def every_node(G: Any, nodes: Any) -> bool:
    """Whether the dict (or set) ``nodes`` holds every node of ``G`` and nothing else,
    found node by node rather than through a set of every node."""
    return len(nodes) == len(G) and all(node in G for node in nodes)


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
    if nodes in G:
        return values[nodes]
    return {node: values[node] for node in G.nbunch_iter(nodes)}


def loop_free_degree(G: Any, node: Any) -> int:
    """``node``'s neighbors other than itself."""
    adjacent = G.adj[node]
    return len(adjacent) - (node in adjacent)
