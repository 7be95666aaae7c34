"""`python -m swapless ...` runs the `swapless` command line program.

The program is found in `SWAPLESS_BIN`, beside this interpreter (a virtual
environment's `bin`), or on `PATH`; `cargo install --path crates/cli` installs it.
"""

import os
import shutil
import sys
from pathlib import Path
from typing import Optional


def find_program() -> Optional[str]:
    """The path of the `swapless` program, or None when it is not installed."""
    named = os.environ.get("SWAPLESS_BIN")
    if named:
        return named
    beside = Path(sys.executable).parent / "swapless"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("swapless")


def main() -> None:
    """Replaces this process with the program, so its exit code and signals are the program's own."""
    program = find_program()
    if program is None:
        sys.stderr.write(
            "error: the swapless command line program is not installed; install it with "
            "`cargo install --path crates/cli` from the swapless repository, or set SWAPLESS_BIN "
            "to its path\n"
        )
        sys.exit(2)
    try:
        os.execv(program, [program, *sys.argv[1:]])
    except OSError as error:
        sys.stderr.write(f"error: cannot start {program}: {error.strerror}; check SWAPLESS_BIN or reinstall it\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
