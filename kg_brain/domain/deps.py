"""The one dependency bundle every domain service takes, built once per process by the
composition root (kg_brain/root/app.py) and shared by every service it builds. `stopping` is set
when the process begins to stop: long loops (queue drains) end between two units of work.
`access`: the process's access stamps (kg_brain/domain/access.py)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from kg_brain.base.clock import Clock
from kg_brain.base.settings import Settings
from kg_brain.domain.access import AccessStamps
from kg_brain.enrichment.embed import Embedder
from kg_brain.enrichment.llm.types import Enricher
from kg_brain.store.db import Database
from kg_brain.store.share import IndexFetch


@dataclass(frozen=True)
class Deps:
    settings: Settings
    db: Database
    embedder: Embedder
    enricher: Enricher
    clock: Clock
    index_fetch: IndexFetch
    access: AccessStamps
    stopping: threading.Event = field(default_factory=threading.Event)  # set when the process stops
