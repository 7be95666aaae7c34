"""Progress bars for long builds and runs: a line on standard error in a terminal, a bar
under the cell in a Jupyter notebook, and nothing anywhere else (a log, a pipe, a batch
job). A bar appears only once the work has taken a second, so short calls stay quiet.

``progress=None`` (the default everywhere) means that; ``False`` never draws; ``True``
draws on standard error even when it is not a terminal.
"""

from __future__ import annotations

import html
import sys
from typing import Any, Optional

# Work shorter than this shows no bar at all.
QUIET_SECONDS = 1.0
_BAR_WIDTH = 30


def _in_notebook() -> bool:
    """Whether this is a Jupyter kernel (IPython with a kernel attached)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # an IPython too old or too broken to ask: draw nothing there
        return False
    return shell is not None and getattr(shell, "kernel", None) is not None


def _on_terminal() -> bool:
    stream = sys.stderr
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # replaced by an object without isatty, or closed
        return False


def _mebibytes(count: int) -> str:
    return f"{count / 2**20:,.0f} MiB" if count < 10 * 2**30 else f"{count / 2**30:,.1f} GiB"


class Bar:
    """Draws what the engine reports about one build or run; called a few times a
    second with a dict of its progress, closed when the work ends."""

    def __init__(self, title: str, notebook: bool, trials: int = 1) -> None:
        self.title = title
        self.notebook = notebook
        self.trials = trials
        self._drawn = 0  # characters of the last terminal line, 0 before the first
        self._handle: Any = None
        self._seconds = 0.0

    def describe(self, state: dict) -> tuple:
        """What the bar says before and after its meter, and the fraction done (None
        when not known)."""
        self._seconds = state["seconds"]
        if state["phase"]:  # a build
            head = f"{self.title}: {state['phase']}"
            tail = ""
            if state["edges"]:
                rate = state["edges"] / max(state["phase_seconds"] or 0.0, 1e-3)
                tail = f"{state['edges'] / 1e6:,.1f} M edges read ({rate / 1e6:.2f} M/s), "
            total = state["total"]
            fraction = min(state["done"] / total, 1.0) if total else None
        else:  # a run
            trial = min(state["trials_done"] + 1, self.trials)
            head = f"{self.title}: trial {trial} of {self.trials}"
            tail = f"pass {state['passes']}, "
            if state["bytes_read"]:
                rate = state["bytes_read"] / max(state["seconds"], 1e-3)
                tail += f"{_mebibytes(state['bytes_read'])} read ({_mebibytes(rate)}/s), "
            fraction = None
        return head, f"{tail}{state['seconds']:.0f} s", fraction

    def __call__(self, state: dict) -> None:
        if state["seconds"] < QUIET_SECONDS:
            return
        head, tail, fraction = self.describe(state)
        if self.notebook:
            self._draw_html(head, tail, fraction)
        else:
            self._draw_line(head, tail, fraction)

    def _draw_line(self, head: str, tail: str, fraction: Optional[float]) -> None:
        meter = ""
        if fraction is not None:
            filled = int(fraction * _BAR_WIDTH)
            meter = f" [{'=' * filled}{' ' * (_BAR_WIDTH - filled)}] {fraction:4.0%}"
        text = f"{head}{meter}, {tail}"
        sys.stderr.write("\r" + text.ljust(self._drawn))
        sys.stderr.flush()
        self._drawn = len(text)

    def _draw_html(self, head: str, tail: str, fraction: Optional[float]) -> None:
        from IPython.display import HTML, display

        meter = "" if fraction is None else f' <progress value="{fraction:.4f}" max="1"></progress>'
        content = HTML(f"<code>{html.escape(head)}</code>{meter} <code>{html.escape(tail)}</code>")
        if self._handle is None:
            self._handle = display(content, display_id=True)
        else:
            self._handle.update(content)

    def close(self) -> None:
        """Clears the terminal line; leaves the notebook's bar saying how long it took."""
        if self._drawn:
            sys.stderr.write("\r" + " " * self._drawn + "\r")
            sys.stderr.flush()
            self._drawn = 0
        if self._handle is not None:
            from IPython.display import HTML

            self._handle.update(HTML(f"<code>{html.escape(self.title)}: done in "
                                     f"{self._seconds:.0f} s</code>"))
            self._handle = None


def check(progress: Any) -> None:
    """Raises TypeError unless ``progress`` is True, False or None."""
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None, not {progress!r}")


def bar(title: str, progress: Optional[bool], trials: int = 1) -> Optional[Bar]:
    """The bar for one build or run, or None when nothing should be drawn."""
    check(progress)
    if progress is False:
        return None
    if _in_notebook():
        return Bar(title, notebook=True, trials=trials)
    if progress or _on_terminal():
        return Bar(title, notebook=False, trials=trials)
    return None
