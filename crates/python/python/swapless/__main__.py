"""`python -m swapless ...` is the `swapless` command line (the same Rust code)."""

import sys

from . import _core


def main() -> None:
    """Runs the command line with this interpreter's arguments and exits with its code."""
    sys.exit(_core.cli(sys.argv[1:], [sys.executable, "-m", "swapless"]))


if __name__ == "__main__":
    main()
