"""flows.server.RunServer: a run's private Prefect server, started while the run goes on."""

from __future__ import annotations

import os
import socket

import pytest

from flows import server


@pytest.fixture
def own_server_env(tmp_path, monkeypatch):
    """A Prefect home of the test's own and no API URL; afterwards the environment (which
    RunServer writes the URL into) and an imported Prefect's settings are as they were, so no
    later test talks to this test's stopped server."""
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / ".prefect"))
    monkeypatch.setenv("PREFECT_API_URL", "")  # records what was there, for the undo
    monkeypatch.delenv("PREFECT_API_URL")
    yield
    monkeypatch.undo()
    import prefect.context

    prefect.context.refresh_global_settings_context()


def test_a_port_taken_meanwhile_gets_another_and_prefect_follows_it(
    tmp_path, monkeypatch, own_server_env
):
    """The first port is taken before the server binds it (another process won the race):
    the server starts again on another, and the API URL (in the environment and in the
    settings of an already imported Prefect) is the second one."""
    import prefect.settings

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    ports = iter([taken.getsockname()[1], server._free_port()])
    monkeypatch.setattr(server, "_free_port", lambda: next(ports))
    run = server.RunServer(tmp_path / "server.log", startup_s=120, wait=False)
    try:
        first = run.url
        run.wait()
        assert run.url != first, "it moved to the second port"
        assert os.environ["PREFECT_API_URL"] == run.url
        assert server._healthy(run.url)
        assert prefect.settings.get_current_settings().api.url == run.url
        run.wait()  # a second wait returns at once
    finally:
        run.stop()
        taken.close()
    assert not server._healthy(run.url)


@pytest.mark.slow
def test_a_server_that_cannot_start_is_one_error_naming_its_log(
    tmp_path, monkeypatch, own_server_env
):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    monkeypatch.setattr(server, "_free_port", lambda: taken.getsockname()[1])
    log = tmp_path / "server.log"
    try:
        with pytest.raises(server.RLGPTError, match=str(log)):
            server.RunServer(log, startup_s=120)
    finally:
        taken.close()
    assert log.is_file()
