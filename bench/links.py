"""`kg-brain bench links`: how the write path judges pairs of notes, and how well kinds are
inferred, on the labelled sets in bench/data/.

Each pair goes through the real write path: the existing note, then the new one, are written
with add_memory into an empty bench project named by the pair (`pair_project`) on the configured
Neo4j, so the similarity is the one the database answers and the dedup, link typing and kind
inference are the product's. The new note's link to the existing one is read back (`DUPLICATE`
when the write merged into it, `NONE` when no link was made). Prints per-type precision and
recall, the confusion matrix, merges of different notes, typed links between notes about
different things and kind-inference accuracy for each half (`tune`, `check`) and both; saves the
same as JSON.
`--split tune` writes and scores the tuning half alone (the pairs and the kind texts), where rules
and thresholds are chosen; `check` the check half alone; `all` (the default) both. A run that
scores the check half says so in the check ledger.
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

from bench import store
from bench.common import BENCH_PREFIX, delete_bench_project, emit_result, record_check_run
from kg_brain.base.settings import Settings, load_settings
from kg_brain.base.vocab import JUDGED_LINK_TYPES, LinkType, NoteKind
from kg_brain.enrichment.llm.kinds import infer_kind
from kg_brain.root.app import Brain

log = logging.getLogger(__name__)
DATA = Path(__file__).parent / "data"
NONE = "NONE"
DUPLICATE = "DUPLICATE"  # the new note merged into the existing one
LABELS = [t.value for t in JUDGED_LINK_TYPES] + [NONE, DUPLICATE]
HALVES = ("tune", "check", "all")
TARGETED = ("FIXES", "SUPERSEDES", "CONTRADICTS")
ASSERTIVE = ("SUPERSEDES", "CONTRADICTS")  # links that demote or dispute a note
PRECISION_TARGET = 0.95
DIFFERENT_TYPED_MAX = 0.03  # typed links allowed between notes about different things


@dataclass(frozen=True)
class Outcome:
    pair_id: str
    half: str
    expected: str
    got: str
    score: float | None  # a merge's similarity (cosine) or the link's weight; None: neither
    reason: str
    kinds: tuple[str, str]
    about: str = "same"  # "different": the two notes are about different things


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def judge_pair(brain: Brain, pair: dict[str, Any], project: str) -> Outcome:
    """The existing note, then the new one, through add_memory; the new note's link (or merge)
    to the existing one as the database holds it."""
    old, new = pair["existing"], pair["new"]
    first = brain.writer.add(old["content"], project, note_kind=old["note_kind"])
    added = brain.writer.add(new["content"], project, note_kind=new["note_kind"])
    target = first.note.zk_id
    kinds = (added.note.note_kind, first.note.note_kind)
    if added.deduplicated:
        return Outcome(pair["id"], pair["half"], pair["expected"], DUPLICATE, added.similarity,
                       "", kinds, pair.get("about", "same"))
    link = next((x for x in added.note.links if x.direction == "out" and x.zk_id == target
                 and x.type != LinkType.FOLLOWS), None)  # the session order is no judgment
    return Outcome(pair["id"], pair["half"], pair["expected"], link.type if link else NONE,
                   link.weight if link else None, link.reason if link else "", kinds,
                   pair.get("about", "same"))


def pair_project(pair: dict[str, Any]) -> str:
    """The bench project a pair is written into, named by the pair alone: a note's vector
    encodes its context sentence, which names the project, so a name drawn per run moved the
    pair's cosine by up to 0.02 from run to run, across a threshold for the few pairs near one
    (`LINK_MIN_COSINE`, `SAME_SUBJECT_SIMILARITY`, `DEDUP_MIN_COSINE`)."""
    return f"{BENCH_PREFIX}links-{pair['id']}"


def decide(brain: Brain, pairs: list[dict[str, Any]], keep: bool = False) -> list[Outcome]:
    """One outcome per pair, each pair in a bench project of its own (deleted unless `keep`).
    A pair's project must be empty: one holding notes is another run's, or one `keep` left."""
    outcomes = []
    for pair in pairs:
        project = pair_project(pair)
        if store.project_footprint(brain.db, project=project)["notes"]:
            raise RuntimeError(f"{project} holds notes: another bench links run is writing "
                               "it, or a run with --keep left it")
        try:
            outcomes.append(judge_pair(brain, pair, project))
        finally:
            if not keep:
                delete_bench_project(brain.db, project)
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
    different = [o for o in outcomes if o.about == "different"]
    typed = sum(1 for o in different if o.got in ASSERTIVE)
    wrong_merges = sum(1 for o in outcomes if o.got == DUPLICATE and o.expected != DUPLICATE)
    typed_rate = typed / len(different) if different else 0.0
    return {"pairs": len(outcomes), "accuracy": round(correct / max(1, len(outcomes)), 3),
            "per_type": per_type, "confusion": confusion,
            "contradicts_fix_decision": fix_decision, "contradicts_mistake_fix": mistake_fix,
            "different_pairs": len(different), "different_typed": typed,
            "different_typed_rate": round(typed_rate, 3), "wrong_merges": wrong_merges,
            "targets_met": all((p := per_type[t]["precision"]) is None  # none predicted
                               or p >= PRECISION_TARGET for t in TARGETED)
            and fix_decision == 0 and wrong_merges == 0 and typed_rate <= DIFFERENT_TYPED_MAX}


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


def report(outcomes: list[Outcome], kinds: list[dict[str, Any]], enricher: str,
           split: str = "all") -> dict[str, Any]:
    """The scores of each half of `split` (`all`: tune, check and both)."""
    result: dict[str, Any] = {"benchmark": "links", "enricher": enricher, "split": split,
                              "halves": {}}
    for half in HALVES if split == "all" else (split,):
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
                     f"mistake<->fix: {links['contradicts_mistake_fix']}; merges of different "
                     f"notes: {links['wrong_merges']}; SUPERSEDES/CONTRADICTS between notes "
                     f"about different things: {links['different_typed']} of "
                     f"{links['different_pairs']}; targets met: {links['targets_met']}")
        lines.append("confusion (rows expected, columns predicted):")
        short = [label[:6] for label in LABELS]
        lines.append(" " * 12 + "".join(f"{s:>7}" for s in short))
        for label in LABELS:
            row = links["confusion"][label]
            lines.append(f"{label:<12}" + "".join(f"{row[p]:>7}" for p in LABELS))
    return "\n".join(lines)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def run(settings: Settings, pairs_path: Path, kinds_path: Path, keep: bool = False,
        split: str = "all") -> dict[str, Any]:
    """Only the pairs and kind texts of `split` are written and scored."""
    brain = Brain(settings)
    try:
        outcomes = decide(brain, _select(load_jsonl(pairs_path), split), keep)
        result = report(outcomes, _select(load_jsonl(kinds_path), split),
                        brain.deps.enricher.name, split)
    finally:
        brain.close()
    return result | {"pairs_file": pairs_path.name, "similarity_scale": "cosine in [-1, 1]",
                     "dedup_min_cosine": settings.dedup_min_cosine,
                     "link_min_cosine": settings.link_min_cosine}


def cmd_links(args: argparse.Namespace, settings: Settings) -> int:
    result = run(settings, Path(args.pairs), Path(args.kinds), args.keep, args.split)
    if args.split != "tune":
        record_check_run("links", args.split, [Path(args.pairs).name, Path(args.kinds).name],
                         Path(args.out))
    sys.stdout.write(render(result) + "\n\n")
    emit_result(result, Path(args.out))
    return 0


def add_parser(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = kinds.add_parser("links", help="link-type precision/recall and kind inference accuracy")
    _arguments(p)
    p.set_defaults(handler=cmd_links)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pairs", default=str(DATA / "write_pairs.jsonl"),
                   help="labelled pairs (link_pairs.jsonl: the earlier, smaller set; "
                   "write_pairs_r2.jsonl, write_pairs_r3.jsonl: later rounds written after the "
                   "rules were shaped)")
    p.add_argument("--kinds", default=str(DATA / "note_kinds.jsonl"))
    p.add_argument("--split", choices=HALVES, default="all",
                   help="the half written and scored: tune (where rules are chosen), check, all")
    p.add_argument("--out", default="docs/bench/links.json")
    p.add_argument("--keep", action="store_true",
                   help="keep the bench projects afterwards (a later run refuses them until "
                   "they are deleted)")


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    parser = argparse.ArgumentParser(prog="python -m bench.links",
                                     description=__doc__.split("\n")[0])
    _arguments(parser)
    return cmd_links(parser.parse_args(argv), load_settings())


if __name__ == "__main__":
    raise SystemExit(main())
