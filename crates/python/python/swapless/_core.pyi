"""Type stubs of the native module (the Rust side of swapless)."""

from typing import Callable, List, Optional, Tuple, Union

import numpy as np

class FormatError(Exception):
    """A graph or input file is not what it should be: not a .sl file, damaged, cut short, or unparsable."""

class BudgetError(Exception):
    """The memory budget cannot hold the run or build; the message says the least that works."""

class VerificationError(Exception):
    """A kernel's result disagreed with its serial verifier."""

def graph_info(path: str) -> str:
    """Facts about a .sl file, as JSON."""

def degrees(path: str, direction: str) -> np.ndarray:
    """Each vertex's count of out- or in-neighbors (uint64), in result order."""

def vertex_ids(path: str) -> Union[np.ndarray, List[str], None]:
    """The input's ids of a compacted graph's vertices (int64 array or names); None when its ids are its vertices."""

def kernel_column(kernel_name: str) -> Tuple[str, bool]:
    """The name of a kernel's result column in a table, and whether its values are vertices."""

def plan(path: str, kernel_name: str, memory: Optional[str] = None, tier_name: Optional[str] = None) -> str:
    """The placement plan of a kernel on the graph, as JSON."""

Progress = Optional[Callable[[dict], None]]

def run(path: str, kernel_name: str, options: str,
        progress: Progress = None) -> Tuple[Optional[np.ndarray], str]:
    """Runs a kernel; returns the result array (None for triangle counting) and the report as
    JSON. ``progress``, if given, is called with a dict of the progress a few times a second."""

def build(input: str, output: str, memory: Optional[str] = None, undirected: bool = False,
          weighted: bool = False, reorder: Optional[str] = None, out_heads: str = "auto",
          ids: str = "auto", source_col: Union[int, str, None] = None,
          target_col: Union[int, str, None] = None, weight_col: Union[int, str, None] = None,
          header: Optional[bool] = None, lists: str = "plain", self_loops: str = "keep",
          progress: Progress = None) -> str:
    """Imports an edge list, Matrix Market or GAP file into a .sl file; returns the report as JSON."""

def generate(kind: str, output: str, scale: Optional[int] = None, degree: int = 16,
             rows: Optional[int] = None, cols: Optional[int] = None, weighted: bool = False,
             seed: Optional[int] = None, memory: Optional[str] = None,
             reorder: Optional[str] = None, out_heads: str = "auto",
             lists: str = "plain", self_loops: str = "drop", progress: Progress = None) -> str:
    """Generates a synthetic graph into a .sl file; returns the report as JSON."""

def from_edges(sources: np.ndarray, destinations: np.ndarray, weights: Optional[np.ndarray],
               directed: bool, output: str, vertices: Optional[int] = None,
               memory: Optional[str] = None, reorder: Optional[str] = None,
               self_loops: str = "keep", progress: Progress = None) -> str:
    """Writes uint32 edge arrays (and float64 weights, checked and stored as float32) to a .sl file; returns the report as JSON."""

def memory_bytes(text: Optional[str] = None) -> Optional[int]:
    """A memory size in bytes; ValueError if it is not a size."""

def check(path: str) -> None:
    """Checks every checksum and structural invariant of a .sl file."""
