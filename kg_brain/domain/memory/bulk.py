"""Bulk import: many records, one embedding each, batched writes."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any

from kg_brain.base import validate
from kg_brain.base.errors import BrainError, InvalidInput
from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.sentences import sentence_job
from kg_brain.domain.memory.text import embed_text, note_row, stored_kind
from kg_brain.domain.memory.write import Writer
from kg_brain.enrichment.llm.entities import extract_entities
from kg_brain.enrichment.llm.heuristic import HeuristicEnricher
from kg_brain.enrichment.llm.kinds import infer_kind
from kg_brain.enrichment.llm.types import Enrichment
from kg_brain.store import jobs, notes
from kg_brain.store.db import Tx
from kg_brain.store.notes import Floats, new_zk_id, with_fresh_ids

Row = dict[str, Any]
Progress = Callable[[str, int], None]
AHEAD = 2  # batches queued for embedding ahead of the one being written, at most


class Importer:
    def __init__(self, deps: Deps, writer: Writer) -> None:
        self.deps = deps
        self.writer = writer
        self._enricher = HeuristicEnricher()

    def add_many(self, records: list[dict[str, Any]], batch_size: int = 1024,
                 progress: Progress | None = None,
                 split: dict[str, float] | None = None) -> list[str]:
        """Every record is validated and enriched (statistical key phrases, no LLM) before
        anything is written, so a bad record refuses the whole import; then batches are written
        (notes and their entities) in one transaction each, in record order. Embedding runs on
        a thread of its own, one call per batch (the onnx runtimes run each text alone, one per
        core at once: nothing is padded), from the first checked records on and at most
        AHEAD batches ahead of the writes: checking, embedding and writing overlap. Larger
        batches cost the server less CPU per note (fewer commits, each updating the full-text
        and vector indexes).
        No linking or evolution (like fleeting capture): one embedding per note keeps it near
        the raw embedding throughput; each note's sentences are embedded later by its sentences
        job (memory/sentences.py), written with it, and until then it is searched by its whole
        cosine; distillation or update re-enriches fully. A failed batch
        stops the import with an error naming the records written before it; nothing after
        them is. `progress(phase, n)`: n more records "checked" (validated and enriched), then
        n more notes "imported". `split`, when given, receives the seconds spent embedding
        ("embedding_s", on the embedding thread) and writing ("write_s")."""
        split = {} if split is None else split
        split.update(embedding_s=0.0, write_s=0.0)
        embedding = _Embedding(self._embed, split)
        rows: list[Row] = []
        try:
            for number, record in enumerate(records, start=1):
                rows.append(self._checked(number, record))
                if progress and (number % batch_size == 0 or number == len(records)):
                    progress("checked", number % batch_size or batch_size)
                embedding.fill(rows, batch_size, whole=True)
            ids: list[str] = []
            while embedding.taken < len(rows):
                embedding.fill(rows, batch_size)
                done = embedding.taken
                batch = self._failing(embedding.take, done, batch_size, len(rows), "embedding")
                embedding.fill(rows, batch_size)
                began = time.perf_counter()
                ids += self._failing(partial(self._write, batch), done, len(batch), len(rows),
                                     "writing")
                split["write_s"] += time.perf_counter() - began
                if progress:
                    progress("imported", len(batch))
            return ids
        finally:
            embedding.close()

    @staticmethod
    def _failing(step: Callable[[], list[Any]], done: int, size: int, total: int,
                 what: str) -> list[Any]:
        """`step` on the next records after `done`; its failure names what was imported."""
        try:
            return step()
        except BrainError as exc:
            last = min(done + size, total)
            raise type(exc)(
                f"{what} records {done + 1}-{last} failed: {exc}; records 1-{done} were "
                f"imported ({done} notes), none after them") from exc

    def _embed(self, rows: list[Row]) -> list[Row]:
        vectors = self.deps.embedder.encode_many(
            [embed_text(r["title"], r["content"], r["context"]) for r in rows])
        for row, vector in zip(rows, vectors, strict=True):
            row["embedding"] = Floats(vector)
        return rows

    def _write(self, batch: list[Row]) -> list[str]:
        """One batch and its notes' sentences jobs in one transaction (while the embedding
        thread embeds the next ones)."""
        now = self.deps.clock()

        def write(tx: Tx) -> list[str]:
            ids = notes.insert_notes(tx, batch, now)
            jobs.enqueue_jobs(tx, now=now,
                              rows=[sentence_job(r["zk_id"], r["project"]) for r in batch])
            return ids

        return with_fresh_ids(lambda: self.deps.db.write_tx(write), batch)

    def _checked(self, number: int, record: dict[str, Any]) -> Row:
        try:
            return self.import_row(record)
        except InvalidInput as exc:
            raise InvalidInput(f"record {number}: {exc}; nothing was imported") from exc

    def import_row(self, record: dict[str, Any]) -> Row:
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
                       bool(record.get("pinned")), e, [], None, self.deps.clock())
        del row["embedding"]
        return row

    def _hidden(self, value: object) -> str:
        """A record's title, context, keyword or tag, its secrets hidden before it is embedded."""
        return self.writer.hide(str(value))[0]


class _Embedding:
    """Rows embedded in order on a thread of its own, at most AHEAD calls queued; `sent` and
    `taken` count the rows handed over and back. Closing drops what is queued (a failed import)."""

    def __init__(self, embed: Callable[[list[Row]], list[Row]], split: dict[str, float]) -> None:
        self._embed = embed
        self._split = split
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="import-embed")
        self._queued: deque[Future[list[Row]]] = deque()
        self.sent = 0
        self.taken = 0

    def fill(self, rows: list[Row], size: int, whole: bool = False) -> None:
        """Hand over the next `size` rows of `rows` while fewer than AHEAD calls are queued
        (`whole`: only a full batch; the rows are still being checked)."""
        while len(self._queued) < AHEAD and self.sent < len(rows):
            if whole and len(rows) - self.sent < size:
                return
            part = rows[self.sent:self.sent + size]
            self.sent += len(part)
            self._queued.append(self._pool.submit(self._timed, part))

    def take(self) -> list[Row]:
        rows = self._queued.popleft().result()
        self.taken += len(rows)
        return rows

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _timed(self, rows: list[Row]) -> list[Row]:
        began = time.perf_counter()
        try:
            return self._embed(rows)
        finally:
            self._split["embedding_s"] += time.perf_counter() - began
