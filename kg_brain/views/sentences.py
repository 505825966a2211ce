"""The sentence backfill (`kg-brain migrate sentences`): notes written before notes kept their
sentences' vectors get them, page by page.

Search re-scores its vector channel by a note's sentences (fragments/nearest_in_project); a note
without them keeps its plain cosine, so search works before, during and after the backfill.
Each page's sentences (memory/text.sentences) are embedded in one call and written in one
transaction; a note that got sentences meanwhile, or whose title or content changed since its
page was read, is left to its writer. Only notes without sentences are read, so a second run
finds nothing to do (but the notes with no words, which have none). A dry run counts them and
embeds nothing. Nothing of a note itself changes: no backup is written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kg_brain.domain.deps import Deps
from kg_brain.domain.memory.sentences import sentence_rows
from kg_brain.store import upgrade
from kg_brain.store.upgrade import SentenceSource

PAGE = 200


@dataclass
class SentenceReport:
    applied: bool
    notes: int = 0  # notes without sentences found
    filled: int = 0  # notes given their sentences
    sentences: int = 0  # sentence vectors written


def backfill_sentences(deps: Deps, apply: bool = False, project: str | None = None,
                       progress: Callable[[str, int], None] | None = None) -> SentenceReport:
    """Count (and with `apply`, fill) the notes of a scope that hold no sentence vectors;
    `progress` hears each page's notes read ("notes") and filled ("filled")."""
    report = SentenceReport(applied=apply)
    after = ""
    while True:
        page = upgrade.notes_without_sentences(deps.db, after=after, project=project,
                                               limit=PAGE)
        report.notes += len(page)
        if progress and page:
            progress("notes", len(page))
        if apply and page:
            filled = _fill(deps, page)
            report.filled += len(filled)
            report.sentences += sum(filled.values())
            if progress:
                progress("filled", len(filled))
        if len(page) < PAGE:
            return report
        after = page[-1]["zk_id"]


def _fill(deps: Deps, page: list[SentenceSource]) -> dict[str, int]:
    """One page's sentences embedded in one call and written in one transaction: the number of
    sentences of each note filled."""
    rows = sentence_rows(deps.embedder, page)
    counts = {r["zk_id"]: len(r["sentences"]) for r in rows}
    done = deps.db.write_tx(lambda tx: upgrade.fill_sentences(tx, rows=rows)) if rows else []
    return {r["zk_id"]: counts[r["zk_id"]] for r in done}
