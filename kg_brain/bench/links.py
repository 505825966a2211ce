"""`kg-brain bench links`: how well the configured enricher types links and infers kinds, on
the labelled sets in kg_brain/bench/data/.

Each pair is enriched as the write path enriches a note (entities, inferred kind), embedded as
the write path embeds it (the real embedder, the same text), and the new note's link to the
existing one is decided by the enricher's `decide_links`. Prints per-type precision and recall,
the confusion matrix and kind-inference accuracy, for each half of the sets (`tune`, `check`)
and both together; saves the same as JSON. No database is involved.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kg_brain.bench.common import emit_result
from kg_brain.embed import SentenceTransformerEmbedder
from kg_brain.llm import build_enricher
from kg_brain.llm.kinds import infer_kind
from kg_brain.llm.types import Candidate, Enricher, Enrichment, NoteDraft
from kg_brain.memory.text import embed_text
from kg_brain.settings import Settings, load_settings
from kg_brain.vocab import LinkType, NoteKind

log = logging.getLogger(__name__)
DATA = Path(__file__).parent / "data"
NONE = "NONE"
LABELS = [t.value for t in LinkType] + [NONE]
HALVES = ("tune", "check", "all")
TARGETED = ("FIXES", "SUPERSEDES", "CONTRADICTS")


@dataclass(frozen=True)
class Outcome:
    pair_id: str
    half: str
    expected: str
    got: str
    similarity: float
    reason: str
    kinds: tuple[str, str]


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _enrich(enricher: Enricher, note: dict[str, Any], project: str) -> Enrichment:
    return enricher.enrich(note["content"], note["note_kind"], project)


def decide(enricher: Enricher, embedder: SentenceTransformerEmbedder,
           pairs: list[dict[str, Any]]) -> list[Outcome]:
    """One link decision per pair, with the cosine similarity of the two notes' vectors."""
    enriched = [(_enrich(enricher, p["new"], p["project"]),
                 _enrich(enricher, p["existing"], p["project"])) for p in pairs]
    texts = [embed_text(e.title, p[side]["content"], e.context)
             for p, pair in zip(pairs, enriched, strict=True)
             for side, e in zip(("new", "existing"), pair, strict=True)]
    vectors = np.asarray(embedder.encode_many(texts))
    outcomes = []
    for i, (pair, (new, old)) in enumerate(zip(pairs, enriched, strict=True)):
        similarity = float(vectors[2 * i] @ vectors[2 * i + 1])
        draft = NoteDraft(title=new.title, content=pair["new"]["content"], context=new.context,
                          note_kind=new.note_kind, entities=[e.key for e in new.entities])
        cand = Candidate(zk_id="ZK-00000001", title=old.title, content=pair["existing"]["content"],
                         note_kind=old.note_kind, similarity=similarity,
                         entities=[e.key for e in old.entities])
        links = enricher.decide_links(draft, [cand])
        got = links[0].link_type.value if links else NONE
        outcomes.append(Outcome(pair["id"], pair["half"], pair["expected"], got,
                                round(similarity, 4), links[0].reason if links else "",
                                (new.note_kind, old.note_kind)))
    return outcomes


def link_scores(outcomes: list[Outcome]) -> dict[str, Any]:
    """Per-type precision/recall/F1, the confusion matrix (expected -> predicted) and the
    count of the confusions the targets forbid."""
    confusion = {e: dict.fromkeys(LABELS, 0) for e in LABELS}
    for o in outcomes:
        confusion[o.expected][o.got] += 1
    per_type = {}
    for label in LABELS:
        predicted = sum(confusion[e][label] for e in LABELS)
        actual = sum(confusion[label].values())
        hit = confusion[label][label]
        precision = hit / predicted if predicted else None
        recall = hit / actual if actual else None
        f1 = (2 * precision * recall / (precision + recall)
              if precision and recall else 0.0)
        per_type[label] = {"precision": _round(precision), "recall": _round(recall),
                           "f1": round(f1, 3), "support": actual, "predicted": predicted}
    fix_decision = sum(1 for o in outcomes if o.got == "CONTRADICTS" and set(o.kinds) == {
        NoteKind.FIX.value, NoteKind.DECISION.value})
    mistake_fix = sum(1 for o in outcomes if o.got == "CONTRADICTS" and set(o.kinds) == {
        NoteKind.FIX.value, NoteKind.MISTAKE.value})
    correct = sum(1 for o in outcomes if o.got == o.expected)
    return {"pairs": len(outcomes), "accuracy": round(correct / max(1, len(outcomes)), 3),
            "per_type": per_type, "confusion": confusion,
            "contradicts_fix_decision": fix_decision, "contradicts_mistake_fix": mistake_fix,
            "targets_met": all((per_type[t]["precision"] or 0) >= 0.8 for t in TARGETED)
            and fix_decision == 0}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def kind_scores(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy of kind inference on texts given as `general`, and per expected kind."""
    by_kind: dict[str, Counter[str]] = {}
    for row in rows:
        got = infer_kind(row["text"], NoteKind.GENERAL)
        by_kind.setdefault(row["expected"], Counter())[got] += 1
    correct = sum(c[k] for k, c in by_kind.items())
    return {"texts": len(rows), "accuracy": round(correct / max(1, len(rows)), 3),
            "per_kind": {k: {"recall": round(c[k] / sum(c.values()), 3), "got": dict(c)}
                         for k, c in sorted(by_kind.items())}}


def _select(rows: list[dict[str, Any]], half: str) -> list[Any]:
    return rows if half == "all" else [r for r in rows if r["half"] == half]


def report(outcomes: list[Outcome], kinds: list[dict[str, Any]], enricher: str
           ) -> dict[str, Any]:
    result: dict[str, Any] = {"benchmark": "links", "enricher": enricher, "halves": {}}
    for half in HALVES:
        chosen = [o for o in outcomes if half == "all" or o.half == half]
        result["halves"][half] = {"links": link_scores(chosen),
                                  "kinds": kind_scores(_select(kinds, half))}
    result["misses"] = [o.__dict__ for o in outcomes if o.got != o.expected]
    return result


def render(result: dict[str, Any]) -> str:
    """The figures as plain-text tables."""
    lines = [f"link typing with the {result['enricher']} enricher"]
    for half, scores in result["halves"].items():
        links, kinds = scores["links"], scores["kinds"]
        lines += ["", f"== {half}: {links['pairs']} pairs, accuracy {links['accuracy']}, "
                  f"kind inference {kinds['accuracy']} on {kinds['texts']} texts",
                  f"{'type':<12}{'precision':>10}{'recall':>8}{'f1':>7}{'support':>9}"]
        for label, s in links["per_type"].items():
            lines.append(f"{label:<12}{_cell(s['precision']):>10}{_cell(s['recall']):>8}"
                         f"{s['f1']:>7.2f}{s['support']:>9}")
        lines.append(f"CONTRADICTS fix->decision: {links['contradicts_fix_decision']}, "
                     f"mistake<->fix: {links['contradicts_mistake_fix']}")
        lines.append("confusion (rows expected, columns predicted):")
        short = [label[:6] for label in LABELS]
        lines.append(" " * 12 + "".join(f"{s:>7}" for s in short))
        for label in LABELS:
            row = links["confusion"][label]
            lines.append(f"{label:<12}" + "".join(f"{row[p]:>7}" for p in LABELS))
    return "\n".join(lines)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def run(settings: Settings, pairs_path: Path, kinds_path: Path) -> dict[str, Any]:
    enricher = build_enricher(settings)
    embedder = SentenceTransformerEmbedder(settings.embedding_model,
                                           settings.embedding_batch_size)
    outcomes = decide(enricher, embedder, load_jsonl(pairs_path))
    return report(outcomes, load_jsonl(kinds_path), enricher.name)


def cmd_links(args: argparse.Namespace, settings: Settings) -> int:
    result = run(settings, Path(args.pairs), Path(args.kinds))
    sys.stdout.write(render(result) + "\n\n")
    emit_result(result, Path(args.out))
    return 0


def add_parser(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = kinds.add_parser("links", help="link-type precision/recall and kind inference accuracy")
    _arguments(p)
    p.set_defaults(handler=cmd_links)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pairs", default=str(DATA / "link_pairs.jsonl"))
    p.add_argument("--kinds", default=str(DATA / "note_kinds.jsonl"))
    p.add_argument("--out", default="docs/bench/links.json")


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    parser = argparse.ArgumentParser(prog="python -m kg_brain.bench.links",
                                     description=__doc__.split("\n")[0])
    _arguments(parser)
    return cmd_links(parser.parse_args(argv), load_settings())


if __name__ == "__main__":
    raise SystemExit(main())
