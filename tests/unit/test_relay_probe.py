"""How a window's relay finds the shared service: what answers `/health` on the service's socket
in the private state folder, waited for while the service is busy."""

from __future__ import annotations

from pathlib import Path

from kg_brain.base.settings import load_settings
from kg_brain.store.localdb import free_port
from kg_brain.surfaces import relay, service
from tests.support.loopback import imitation


def test_a_service_slow_to_answer_its_health_is_found(tmp_path: Path) -> None:
    """A service warming up on a loaded machine answered `/health` in half a second: a second
    window starting then is forwarded to it, not served in-process beside it."""
    settings = load_settings(_env_file=None, kg_brain_data_dir=tmp_path / "data",
                             kg_brain_http_port=free_port())
    service.state_folder(settings)
    health = {"service": "kg-brain", "neo4j_uri": settings.neo4j_uri, "pid": 1}
    with imitation(health, service.socket_path(settings), health_after_s=1.0):
        found = relay.probe(settings)
    assert found == health and relay.serves_this_window(found, settings)

