"""A pytest plugin for networkx's own test suite run with swapless as its backend:
counts, per function, the calls swapless ran and the ones it declined (and why), and
prints them when the session ends."""

import collections

import swapless.nx_backend as backend

counts = collections.Counter()
_can_run = backend.can_run


def _counting(name, args, kwargs):
    answer = _can_run(name, args, kwargs)
    counts[(name, "ran" if answer is True else f"declined: {answer}")] += 1
    return answer


backend.can_run = _counting
backend.BackendInterface.can_run = staticmethod(_counting)


def pytest_sessionfinish(session, exitstatus):
    for (name, outcome), count in sorted(counts.items()):
        print(f"\nswapless {name}: {outcome}: {count}", end="")
