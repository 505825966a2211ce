"""Listing the tools loads what listing needs and nothing else: the driver, numpy, the embedding
runtime, the scheduler and the HTTP clients load with the first call (or the warm-up that
`initialize` starts in the background), so a spawned server answers `tools/list` sooner.
Checked in a fresh interpreter, since this test process has long imported them all."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.mcp.test_contract import DEAD_URI
from tests.support.mcp import REPO

HEAVY = ("neo4j", "neomodel", "numpy", "onnxruntime", "tokenizers", "safetensors", "onnx",
         "torch", "sentence_transformers", "huggingface_hub", "apscheduler", "httpx")
LIST_TOOLS = """
import json, sys
import anyio
from fastmcp import Client
import kg_brain.surfaces.transport  # what `kg-brain mcp` loads to serve in-process
from kg_brain.root.app import Brain
from kg_brain.base.settings import load_settings
from kg_brain.surfaces.tools import build_server

settings = load_settings(_env_file=None, neo4j_uri=sys.argv[1], kg_brain_tools="full")

async def names():
    async with Client(build_server(Brain(settings))) as client:
        return [t.name for t in await client.list_tools()]

listed = anyio.run(names)
print(json.dumps({"tools": len(listed), "loaded": [m for m in json.loads(sys.argv[2])
                                                   if m in sys.modules]}))
"""


def test_listing_the_tools_loads_no_driver_model_scheduler_or_http_client() -> None:
    done = subprocess.run([sys.executable, "-c", LIST_TOOLS, DEAD_URI, json.dumps(HEAVY)],
                          cwd=REPO, capture_output=True, text=True, timeout=120, check=True)
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["tools"] > 20  # the full profile was listed
    assert found["loaded"] == []
