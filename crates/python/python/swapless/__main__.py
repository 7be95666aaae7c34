"""`python -m swapless ...` is the `swapless` command line (the same Rust code)."""

import signal
import sys

from . import _core


def main() -> None:
    """Runs the command line with this interpreter's arguments and exits with its code."""
    # As the binary does: a closed pipe (`python -m swapless info g.sl | head -1`) ends
    # the process quietly instead of raising in the middle of a report.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(_core.cli(sys.argv[1:], [sys.executable, "-m", "swapless"]))


if __name__ == "__main__":
    main()
