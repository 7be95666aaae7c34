"""Two kernels run at once from two Python threads, on two graphs: each run keeps its own
property-array reservation, gives the answer it gives alone, and reports its own figures."""

import threading
import time

import numpy as np
import pytest

import swapless as sl


@pytest.mark.filterwarnings("ignore:pr stopped")
def test_two_runs_from_two_threads_each_keep_their_own_reservation(tmp_path):
    first = sl.generate("kron", scale=15, degree=16, output=tmp_path / "a.sl")
    second = sl.generate("urand", scale=15, degree=16, seed=2, output=tmp_path / "b.sl")
    # Iterations enough that most of each run is its trials, when arrays are held.
    runs = [
        (first, lambda g: sl.pagerank(g, tol=0.0, max_iter=100, threads=1)),
        (second, lambda g: sl.connected_components(g, threads=1)),
    ]
    alone = []
    for g, kernel in runs:
        alone.append((kernel(g), g.last_report))

    barrier = threading.Barrier(len(runs))
    together = [None] * len(runs)
    failures = []

    def run(index):
        g, kernel = runs[index]
        try:
            barrier.wait()
            started = time.monotonic()
            result = kernel(g)
            together[index] = (result, g.last_report, started, time.monotonic())
        except Exception as error:  # noqa: BLE001 - re-raised below, on the test's thread
            failures.append(error)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(runs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures

    # The two runs were under way at the same time.
    (_, _, start_a, end_a), (_, _, start_b, end_b) = together
    assert start_a < end_b and start_b < end_a

    for (result, report, _, _), (expected, report_alone) in zip(together, alone):
        np.testing.assert_array_equal(result, expected)
        assert report["property_reserved_bytes"] > 0
        assert report["property_reserved_bytes"] == report_alone["property_reserved_bytes"]
        assert report["property_unreserved_bytes"] == report_alone["property_unreserved_bytes"] == 0
        assert report["huge_page_advised_bytes"] == report_alone["huge_page_advised_bytes"]
