"""Bulk import: many records, one embedding each, batched writes."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from kg_brain.base import validate
from kg_brain.base.errors import InvalidInput
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.text import embed_text, note_row, stored_kind
from kg_brain.domain.memory.write import Writer
from kg_brain.enrichment.llm.entities import extract_entities
from kg_brain.enrichment.llm.heuristic import HeuristicEnricher
from kg_brain.enrichment.llm.kinds import infer_kind
from kg_brain.enrichment.llm.types import Enrichment
from kg_brain.store import notes
from kg_brain.store.notes import new_zk_id, with_fresh_ids


class Importer:
    def __init__(self, deps: Deps, writer: Writer) -> None:
        self.deps = deps
        self.writer = writer
        self._enricher = HeuristicEnricher()

    def add_many(self, records: list[dict[str, Any]], batch_size: int = 256,
                 progress: Callable[[str, int], None] | None = None) -> list[str]:
        """Every record is validated and enriched (statistical key phrases, no LLM) before
        anything is written, so a bad record refuses the whole import; then batches are
        embedded and written (notes and their entities) in one transaction each, a batch's
        write overlapping the next batch's embedding. No linking or evolution (like fleeting
        capture): one embedding per note keeps it near the raw embedding throughput;
        distillation or update re-enriches fully. A failed batch stops the import; the batches
        before it stay written. `progress(phase, n)`: n more records "checked" (validated and
        enriched), then n more notes "imported"."""
        rows = []
        for number, record in enumerate(records, start=1):
            try:
                rows.append(self.import_row(record))
            except InvalidInput as exc:
                raise InvalidInput(f"record {number}: {exc}; nothing was imported") from exc
            if progress and (number % batch_size == 0 or number == len(records)):
                progress("checked", number % batch_size or batch_size)
        ids: list[str] = []
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="import-write") as writes:
            pending: Future[list[str]] | None = None
            for start in range(0, len(rows), batch_size):
                batch = rows[start:start + batch_size]
                vectors = self.deps.embedder.encode_many(
                    [embed_text(r["title"], r["content"], r["context"]) for r in batch])
                for row, vector in zip(batch, vectors, strict=True):
                    row["embedding"] = vector
                if pending is not None:
                    ids += self._written(pending, progress)
                pending = writes.submit(self._write, batch)
            if pending is not None:
                ids += self._written(pending, progress)
        return ids

    def _write(self, batch: list[dict[str, Any]]) -> list[str]:
        """One batch in one transaction (on the writer thread, while the next batch embeds)."""
        now = self.deps.clock()
        return with_fresh_ids(lambda: self.deps.db.write_tx(
            lambda tx: notes.insert_notes(tx, batch, now)), batch)

    @staticmethod
    def _written(pending: Future[list[str]],
                 progress: Callable[[str, int], None] | None) -> list[str]:
        ids = pending.result()
        if progress:
            progress("imported", len(ids))
        return ids

    def import_row(self, record: dict[str, Any]) -> dict[str, Any]:
        """One import record validated and enriched into a note row, without its embedding."""
        if not isinstance(record, dict) or "content" not in record:
            raise InvalidInput("each imported record needs a 'content' field")
        project = validate.project(str(record.get("project") or "general"))
        kind = validate.note_kind(str(record.get("note_kind") or "general"))
        mtype = validate.memory_type(str(record.get("memory_type") or "permanent"))
        text, _ = self.writer.clean_content(str(record["content"]))
        if record.get("title"):
            hide = self._hidden
            e = Enrichment(title=hide(record["title"]), context=hide(record.get("context") or ""),
                           keywords=[hide(k) for k in record.get("keywords") or []],
                           tags=[hide(t) for t in record.get("tags") or []],
                           entities=extract_entities(text), note_kind=infer_kind(text, kind.value))
        else:
            e = self._enricher.enrich(text, kind.value, project)
        row = note_row(new_zk_id(), text, project, mtype, stored_kind(kind, e.note_kind),
                       bool(record.get("pinned")), e, [], self.deps.clock())
        del row["embedding"]
        return row

    def _hidden(self, value: object) -> str:
        """A record's title, context, keyword or tag, its secrets hidden before it is embedded."""
        return self.writer.hide(str(value))[0]
