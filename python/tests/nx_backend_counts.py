"""A pytest plugin for networkx's own test suite run with swapless as its backend:
counts, per function, the calls swapless ran and the ones it declined (and why), and
prints them when the session ends. Only calls a test makes itself count: a call networkx
makes inside another function it runs (a declined one's, a helper's) is that function's
work, not a call of the test's."""

import collections

import networkx as nx

import swapless.nx_backend as backend

counts = collections.Counter()
_can_run = backend.can_run
_depth = [0]
_call = nx.utils.backends._dispatchable._convert_and_call_for_tests


def _counting(name, args, kwargs):
    answer = _can_run(name, args, kwargs)
    if _depth[0] == 1:
        counts[(name, "ran" if answer is True else f"declined: {answer}")] += 1
    return answer


def _nested(self, *args, **kwargs):
    # Every dispatched call of networkx's test mode passes here, nested ones too.
    _depth[0] += 1
    try:
        return _call(self, *args, **kwargs)
    finally:
        _depth[0] -= 1


backend.can_run = _counting
backend.BackendInterface.can_run = staticmethod(_counting)
nx.utils.backends._dispatchable._convert_and_call_for_tests = _nested


def pytest_sessionfinish(session, exitstatus):
    for (name, outcome), count in sorted(counts.items()):
        print(f"\nswapless {name}: {outcome}: {count}", end="")
