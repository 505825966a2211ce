"""Whether what a user states in one OpenCode session reaches the model in a later one, through
the plugin, in the real `opencode serve` (what the TUI runs) with the agent played by a scripted
OpenAI-compatible model on 127.0.0.1 (tests/e2e/scripted_model.py).

    python -m bench.plugin_conv --split tune [--out FILE]

The conversations (bench/data/plugin_conv/conversations.json, split by conversation in
split.json) are coding sessions in which the user states facts, preferences and decisions in
passing: a port, a library and why, who owns a service, a date, a value changed later. Each
conversation is its own workspace (its own project) and its own `opencode serve`; each of its
sessions is created over the HTTP API and each turn is a message, the next once the session is
idle and its handoff written. The scripted agent answers briefly; on a turn the data marks as
worth keeping (a decision with its reason, a changed value) it stores its own wording of it with
add_memory, as a careful agent would; it stores nothing else. Then one later session asks the
questions, one per turn, and for each the agent calls search_memory with the question as asked.

For each question, whether its answering words (any of them, case-insensitive) reached the model:
- `start`: in the session's start context (the system prompt's memory, the same all session);
- `recall`: in the notes the plugin injected for that message; `recall_so_far` also counts an
  earlier turn's injection of the session (already in the conversation);
- `search@1`, `search@3`: in the first one or three hits of the agent's search_memory call
  (titles and previews as the model reads them);
- `any`: in one of the above;
- `stored`: in a live note of the project at the end (any kind: what a perfect reader could find).
Baselines over the same live notes: the numpy fusion (cosine + BM25, min-max summed) and flat
cosine (bench/baselines.py), answer in their top 1 or 3, handoffs left out as search_memory leaves
them out, and with handoffs (`+handoffs`, as the recall searches; the answer anywhere in the
note, where the recall shows a handoff's matching lines only). Starts its own
`kg-brain serve --http`; the bench-* projects are deleted afterwards. Needs Node.js and OpenCode
(`python -m tests.e2e.opencode` installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.baselines import Fusion
from bench.plugin_relay import Relay
from bench.plugin_workload import (
    MEMORY_HEADER,
    RECALL_HEADER,
    Served,
    bench_service,
    notes_of,
    prepare,
    start_memory,
)
from kg_brain.root.app import Brain
from tests.e2e import opencode
from tests.e2e.scripted_model import ScriptedModel, Step, content_text, scripted_model

DATA = Path(__file__).resolve().parent / "data" / "plugin_conv"
CHANNELS = ("start", "recall", "recall_so_far", "search@1", "search@3", "any", "stored")
BASELINES = ("fusion@1", "fusion@3", "flat@1", "flat@3", "fusion+handoffs@1", "fusion+handoffs@3",
             "flat+handoffs@1", "flat+handoffs@3")


def load(split: str) -> list[dict[str, Any]]:
    conversations = json.loads((DATA / "conversations.json").read_text())["conversations"]
    names = json.loads((DATA / "split.json").read_text())[split]
    return [c for c in conversations if c["name"] in names]


def answered(answer: list[str], text: str) -> bool:
    return any(a.lower() in text.lower() for a in answer)


def recall_of(system: str) -> str:
    """The turn's injected recall in a system prompt."""
    return system[system.index(RECALL_HEADER):] if RECALL_HEADER in system else ""


def turn(model: ScriptedModel, driver: Served, session: str, number: int, message: str,
         steps: list[Step]) -> list[dict[str, Any]]:
    """One message; the agent's model calls (requests with tools) it caused."""
    model.steps = steps
    model.requests.clear()
    driver.turn(session, number, message)
    return [r for r in model.requests if r.get("tools")]


def converse(model: ScriptedModel, driver: Served, conv: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation's sessions, then its questions in one later session: what reached the
    model for each question."""
    for index, session in enumerate(conv["sessions"]):
        steps: list[Step] = []
        for number, said in enumerate(session):
            if said.get("note"):
                steps = [*steps, Step("add_memory", {"content": said["note"]})]
            turn(model, driver, f"{conv['name']}-{index}", number, said["user"], steps)
    rows: list[dict[str, Any]] = []
    steps, recalled = [], ""
    for number, question in enumerate(conv["questions"]):
        steps = [*steps, Step("search_memory", {"query": question["q"]})]
        agent = turn(model, driver, f"{conv['name']}-questions", number, question["q"], steps)
        system = "\n".join(content_text(m["content"]) for m in agent[0]["messages"]
                           if m["role"] == "system") if agent else ""
        results = [content_text(m["content"]) for m in agent[-1]["messages"]
                   if m["role"] == "tool"] if agent else []
        hits = json.loads(results[-1]).get("hits", []) if results else []
        shown = [f"{h['title']}\n{h['preview']}" for h in hits]
        recall = recall_of(system)
        recalled += recall
        answer = question["answer"]
        row = {"conversation": conv["name"], "q": question["q"], "kind": question["kind"],
               "start": answered(answer, start_memory(system)),
               "recall": answered(answer, recall), "recall_so_far": answered(answer, recalled),
               "search@1": answered(answer, "\n".join(shown[:1])),
               "search@3": answered(answer, "\n".join(shown[:3])),
               "search_top": [h["title"] for h in hits[:3]],
               "recall_bytes": len(recall.encode()),
               "start_bytes": len(start_memory(system).encode()),
               "memory_in_prompt": MEMORY_HEADER in system}
        row["any"] = any(row[c] for c in ("start", "recall_so_far", "search@3"))
        rows.append(row)
    return rows


def baselines(brain: Brain, project: str, rows: list[dict[str, Any]],
              questions: list[dict[str, Any]]) -> None:
    """Adds `stored` and the fusion and flat cosine baselines to each question's row."""
    notes = [n for n in notes_of(brain.db, project) if n.get("memory_type") != "archived"]
    text = {n["zk_id"]: f"{n['title']}\n{n['content']}" for n in notes}
    fusion = Fusion(brain.deps)
    for row, question in zip(rows, questions, strict=True):
        answer = question["answer"]
        row["stored"] = any(answered(answer, t) for t in text.values())
        row["stored_kinds"] = sorted({n["note_kind"] for n in notes
                                      if answered(answer, text[n["zk_id"]])})
        for name, lexical, handoffs in (("fusion", True, False), ("flat", False, False),
                                        ("fusion+handoffs", True, True),
                                        ("flat+handoffs", False, True)):
            ranked, _ = fusion.ranked(question["q"], project, top_k=3, lexical=lexical,
                                      include_contextual=handoffs)
            row[f"{name}@1"] = answered(answer, "\n".join(text.get(z, "") for z in ranked[:1]))
            row[f"{name}@3"] = answered(answer, "\n".join(text.get(z, "") for z in ranked[:3]))


def rates(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {c: round(100 * sum(bool(r[c]) for r in rows) / len(rows), 2) if rows else 0.0
            for c in (*CHANNELS, *BASELINES)} | {"n": len(rows)}


def summary(rows: list[dict[str, Any]], notes: dict[str, dict[str, int]]) -> dict[str, Any]:
    kinds: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        kinds[row["kind"]].append(row)
    return {"all": rates(rows), "by_kind": {k: rates(v) for k, v in sorted(kinds.items())},
            "notes_live": notes, "questions": rows,
            "cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)}


def run(mcp_url: str, env: dict[str, str], brain: Brain, base: Path,
        conversations: list[dict[str, Any]], projects: list[str]) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    live: dict[str, dict[str, int]] = {}
    token = {k: v for k, v in env.items() if k == "KG_BRAIN_HTTP_TOKEN"}
    with scripted_model() as (model, model_url):
        for conv in conversations:
            project = f"bench-plugconv-{conv['name']}-{uuid.uuid4().hex[:6]}"
            projects.append(project)
            ws, home = base / project, base / "home"
            relay = Relay(mcp_url.rsplit("/mcp", 1)[0])
            try:
                prepare(ws, env, home, mcp_url, relay.url, model_url)
                with opencode.serve(ws, home, token, plugins=True) as server:
                    asked = converse(model, Served(server, relay), conv)
            finally:
                relay.close()
            baselines(brain, project, asked, conv["questions"])
            kinds: dict[str, int] = defaultdict(int)
            for note in notes_of(brain.db, project):
                if note.get("memory_type") != "archived":
                    kinds[note["note_kind"]] += 1
            live[conv["name"]] = dict(kinds)
            rows += asked
    return summary(rows, live)


def main(argv: list[str] | None = None) -> int:
    from bench.common import delete_bench_project, emit_result, record_check_run

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "check"), default="tune")
    parser.add_argument("--out", type=Path, default=Path("plugin_conv.json"))
    args = parser.parse_args(argv)
    if args.split == "check":
        record_check_run("plugin_conv", "check",
                         [str((DATA / name).relative_to(DATA.parents[2]))
                          for name in ("conversations.json", "split.json")], args.out)
    projects: list[str] = []
    with bench_service() as (mcp_url, env, brain, base):
        try:
            result = run(mcp_url, env, brain, base, load(args.split), projects)
            emit_result({"split": args.split} | result, args.out)
        finally:
            for project in projects:
                delete_bench_project(brain.db, project)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
