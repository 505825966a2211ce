"""Writes made through the tools reach the Obsidian vault folder once the mirror queue drains."""

from __future__ import annotations

from pathlib import Path

from kg_brain.enrichment.embed import SentenceTransformerEmbedder
from kg_brain.root.app import Brain
from kg_brain.store.db import Database
from kg_brain.surfaces.tools import build_server
from tests.support.brains import make_settings
from tests.support.mcp import call


def test_tool_writes_are_mirrored_to_the_vault(
    db: Database, embedder: SentenceTransformerEmbedder, project: str, tmp_path: Path
) -> None:
    brain = Brain(make_settings(kg_brain_project=project, obsidian_vault_path=tmp_path,
                                obsidian_vault_subfolder="brain"), db=db, embedder=embedder)
    server = build_server(brain)
    saved = call(server, "add_memory", content="Use UTC timestamps in every log line.")
    failure = call(server, "record_failure", content="ValueError: naive datetime in log writer")
    brain.mirror.drain()
    zk = tmp_path / "brain" / "zk"
    assert (zk / f"{saved['zk_id']}.md").read_text(encoding="utf-8").startswith("---")
    assert (zk / f"{failure['zk_id']}.md").exists()
    call(server, "update_memory", zk_id=saved["zk_id"],
         new_content="Use UTC timestamps with offsets in every log line.")
    brain.mirror.drain()
    assert "with offsets" in (zk / f"{saved['zk_id']}.md").read_text(encoding="utf-8")
