import pytest

pytest.importorskip("trl")

from training.generate import ServerGenerator


class GrowingServer:
    """A stand-in server whose worker gains a GiB with every batch it serves."""

    def __init__(self) -> None:
        self.gib, self.stopped = 3, False

    def worker_rss(self) -> int:
        self.gib += 1
        return self.gib * 2**30

    def stop(self) -> None:
        self.stopped = True


def test_the_sampling_server_is_restarted_once_its_worker_outgrows_the_bound():
    gen = ServerGenerator(max_worker_gib=5.5)
    gen.server, gen.synced_step = GrowingServer(), 7
    gen._bound_memory()  # 4 GiB: kept
    assert gen.server is not None and gen.restarts == 0
    gen._bound_memory()  # 5 GiB: kept
    server = gen.server
    gen._bound_memory()  # 6 GiB: stopped; the next batch starts a fresh one
    assert server.stopped and gen.server is None and gen.restarts == 1
    assert gen.synced_step is None  # so the current adapter is loaded into the new server
