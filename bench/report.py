"""`kg-brain bench report RESULT.json...`: Markdown tables and PNG plots from benchmark results.

Understands the JSON written by `bench scale` (key `sizes`), `bench retrieval` (key `methods`;
the coding suite has its own tables) and `python -m bench.projects`; anything else is
refused with a clear message.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.coding_data import QUESTION_TYPES
from kg_brain.base.errors import InvalidInput
from kg_brain.base.settings import Settings

METRICS = ("recall@5", "recall@10", "recall@25", "hit@10", "mrr")
CODING_METRICS = ("hit@1", "mrr", "all@3", "all@5")


def _metric(name: str, value: float) -> str:
    """Recall and hit are percentages in the result files; MRR is a fraction."""
    return f"{value:.3f}" if name == "mrr" else f"{value:.1f}"


def scale_tables(result: dict[str, Any]) -> str:
    sizes = sorted(result["sizes"], key=int)

    def raw(e: dict[str, Any]) -> str:
        rates = e["raw_embedding_notes_per_s"]
        return f"{rates['before']:.0f} / {rates['after']:.0f}"

    rows: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("embedding runtime", lambda e: str(e["embedding_runtime"])),
        ("bulk import, notes/s", lambda e: f"{e['bulk_import_notes_per_s']:.0f}"),
        ("raw batched embedding of the imported texts, before / after, notes/s", raw),
        ("import / raw embedding (same texts)", lambda e: f"{e['import_to_raw_ratio']:.2f}"),
        ("typed links / FOLLOWS / MENTIONS", lambda e: "{typed_links} / {follows} / "
                                                       "{mentions}".format(**e["graph"])),
        ("one embedding p50 ms", lambda e: _p50(e["floor"]["embedding"])),
        ("raw vector query p50 ms", lambda e: _p50(e["floor"]["raw_vector_query"])),
        ("raw full-text query p50 ms", lambda e: _p50(e["floor"]["raw_fulltext_query"])),
    ]
    for name in ("search_memory", "deep_search"):
        for where in ("largest", "other"):
            rows += [(f"{name} {where} project p50 / p95 ms (database)",
                      functools.partial(_search, name, where)),
                     (f"{name} {where} project / raw vector query",
                      functools.partial(_ratio, f"{name}_{where}"))]
    for where in ("largest", "other"):
        rows.append((f"add_memory {where} project p50 / p95 ms",
                     functools.partial(_add, where)))
    rows += [("get_related depth 2 p50 ms", lambda e: _p50(e.get("get_related_depth2"))),
             ("archive_stale_notes dry run p50 ms", lambda e: _p50(e.get("archive_dry_run")))]
    head = "| measure | " + " | ".join(f"{int(s):,} notes" for s in sizes) + " |"
    lines = [head, "|---" * (len(sizes) + 1) + "|"]
    for label, fn in rows:
        lines.append(f"| {label} | " + " | ".join(fn(result["sizes"][s]) for s in sizes) + " |")
    return "\n".join(lines)


def _search(name: str, where: str, entry: dict[str, Any]) -> str:
    return _pair(entry[name][where]["db"])


def _ratio(key: str, entry: dict[str, Any]) -> str:
    return f"{entry['ratios'][key]:.2f}x"


def _add(where: str, entry: dict[str, Any]) -> str:
    stats = entry["add_memory"].get(where)
    return _pair(stats) if stats else "n/a"


def _pair(stats: dict[str, float]) -> str:
    return f"{stats['p50_ms']:.1f} / {stats['p95_ms']:.1f}"


def _p50(stats: dict[str, float] | None) -> str:
    return "n/a" if not stats else f"{stats['p50_ms']:.1f}"


def retrieval_tables(result: dict[str, Any]) -> str:
    methods = result["methods"]
    first = next(iter(methods.values()))
    categories = sorted(first.get("by_category", {}))
    lines = ["| method | " + " | ".join(METRICS) + " |", "|---" * (len(METRICS) + 1) + "|"]
    for name, data in methods.items():
        lines.append(f"| {name} | " + " | ".join(_metric(m, data["overall"][m]) for m in METRICS)
                     + " |")
    if categories:
        lines += ["", "recall@10 by category:", "",
                  "| method | " + " | ".join(categories) + " |",
                  "|---" * (len(categories) + 1) + "|"]
        for name, data in methods.items():
            cells = [_metric("recall@10", data["by_category"][c]["recall@10"])
                     if c in data["by_category"] else "n/a" for c in categories]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def coding_tables(result: dict[str, Any]) -> str:
    """The coding set: overall metrics per method, then hit@1, all-needed@3 and `inverted`
    (an outdated fact or a mistake ranked above what replaces it) per question type."""
    methods = result["methods"]
    by_type = next(iter(methods.values()))["by_type"]
    types = [t for t in QUESTION_TYPES if t in by_type]
    lines = ["| method | " + " | ".join(CODING_METRICS) + " |",
             "|---" * (len(CODING_METRICS) + 1) + "|"]
    for name, data in methods.items():
        lines.append(f"| {name} | " + " | ".join(_metric(m, data["overall"][m])
                                                  for m in CODING_METRICS) + " |")
    for metric in ("hit@1", "all@3", "inverted"):
        shown = [t for t in types if metric in by_type[t]]
        lines += ["", f"{metric} by question type:", "",
                  "| method | " + " | ".join(f"{t} ({by_type[t]['questions']})" for t in shown)
                  + " |", "|---" * (len(shown) + 1) + "|"]
        for name, data in methods.items():
            lines.append(f"| {name} | " + " | ".join(_metric(metric, data["by_type"][t][metric])
                                                      for t in shown) + " |")
    return "\n".join(lines)


def plot_scale(result: dict[str, Any], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(result["sizes"], key=int)
    xs = [int(s) for s in sizes]
    entries = [result["sizes"][s] for s in sizes]
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, fn in (
            ("search_memory, largest project (db)",
             lambda e: e["search_memory"]["largest"]["db"]["p50_ms"]),
            ("deep_search, largest project (db)",
             lambda e: e["deep_search"]["largest"]["db"]["p50_ms"]),
            ("raw vector query", lambda e: e["floor"]["raw_vector_query"]["p50_ms"]),
            ("add_memory, other projects",
             lambda e: e["add_memory"].get("other", {}).get("p50_ms", float("nan")))):
        ax.plot(xs, [fn(e) for e in entries], marker="o", label=label)
    ax.set(xscale="log", xlabel="notes", ylabel="p50 latency (ms)", title="Latency by corpus size")
    ax.legend()
    latency = out / "scale-latency.png"
    fig.savefig(latency, dpi=110, bbox_inches="tight")
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(xs, [e["bulk_import_notes_per_s"] for e in entries], marker="o", label="bulk import")
    ax.plot(xs, [max(e["raw_embedding_notes_per_s"].values()) for e in entries], marker="o",
            label="raw batched embedding (same texts)")
    ax.set(xscale="log", xlabel="notes", ylabel="notes / s", title="Write throughput")
    ax.legend()
    throughput = out / "scale-throughput.png"
    fig.savefig(throughput, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return [latency, throughput]


def plot_retrieval(result: dict[str, Any], out: Path, stem: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = result["methods"]
    groups = ["overall", *sorted(next(iter(methods.values())).get("by_category", {}))]
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / max(len(methods), 1)
    for i, (name, data) in enumerate(methods.items()):
        values = [data["overall"]["recall@10"] if g == "overall"
                  else data["by_category"].get(g, {}).get("recall@10", 0.0) for g in groups]
        ax.bar([j + i * width for j in range(len(groups))], values, width, label=name)
    ax.set_xticks([j + width * (len(methods) - 1) / 2 for j in range(len(groups))], groups)
    ax.set(ylabel="evidence recall@10 (%)", title=f"Retrieval quality: {stem}")
    ax.legend(fontsize=8)
    path = out / f"{stem}-recall10.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def projects_table(result: dict[str, Any]) -> str:
    """`bench.projects`: one row per project count, widening fetch against a fixed one."""
    lines = ["| projects (share) | index fetch | search_memory p50 ms | deep_search p50 ms | "
             "vector_search p50 ms | vector top-10 vs exact |", "|---|---|---|---|---|---|"]
    for entry in result["results"]:
        w, f = entry["widening"], entry["fixed"]
        cells = [f"{w['fetch']} / {f['fetch']}"]
        cells += [f"{w[name]['p50_ms']:.1f} / {f[name]['p50_ms']:.1f}"
                  for name in ("search_memory", "deep_search", "vector_search")]
        cells.append(f"{w['vector_recall_at_10_vs_exact']:.3f} / "
                     f"{f['vector_recall_at_10_vs_exact']:.3f}")
        lines.append(f"| {entry['projects']} ({entry['share']:.0%}) | " + " | ".join(cells)
                     + " |")
    return (f"{result['notes_per_project']:,} notes per project; each cell is widening / fixed "
            "fetch, database time.\n\n" + "\n".join(lines))


def render(paths: list[Path], out: Path) -> str:
    out.mkdir(parents=True, exist_ok=True)
    sections: list[str] = []
    for path in paths:
        result = json.loads(path.read_text(encoding="utf-8"))
        if "sizes" in result:
            images = plot_scale(result, out)
            sections.append(f"## Scale ({path.name})\n\n{scale_tables(result)}\n\n"
                            + "\n".join(f"![{p.stem}]({p.name})" for p in images))
        elif result.get("suite") == "coding":
            sections.append(f"## Retrieval, coding set ({path.name})\n\n{coding_tables(result)}")
        elif "methods" in result:
            image = plot_retrieval(result, out, path.stem)
            sections.append(f"## Retrieval ({path.name})\n\n{retrieval_tables(result)}\n\n"
                            f"![{image.stem}]({image.name})")
        elif result.get("benchmark") == "projects":
            sections.append(f"## Projects sharing one database ({path.name})\n\n"
                            f"{projects_table(result)}")
        else:
            raise InvalidInput(f"{path}: not a `bench scale`, `bench retrieval` or "
                               "`bench.projects` result")
    return "\n\n".join(sections) + "\n"


def cmd_report(args: argparse.Namespace, settings: Settings) -> int:
    out = Path(args.out_dir)
    text = render([Path(p) for p in args.results], out)
    (out / "results.md").write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


def add_parser(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = kinds.add_parser("report", help="Markdown tables and PNG plots from result JSON files")
    p.add_argument("results", nargs="+", help="bench scale / bench retrieval JSON files")
    p.add_argument("--out-dir", default="docs/bench", help="where results.md and PNGs go")
    p.set_defaults(handler=cmd_report)
