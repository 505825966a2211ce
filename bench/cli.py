"""`kg-brain bench retrieval|scale|add-latency|links|degree|upgrade|load|report|secrets`."""

from __future__ import annotations

import argparse

from bench import add_latency, degree, links, load, report, retrieval, scale, secrets, upgrade


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = sub.add_parser("bench", help="benchmarks: retrieval quality, speed, reports")
    kinds = bench.add_subparsers(dest="bench_kind", required=True)
    retrieval.add_parser(kinds)
    scale.add_parser(kinds)
    add_latency.add_parser(kinds)
    links.add_parser(kinds)
    degree.add_parser(kinds)
    upgrade.add_parser(kinds)
    load.add_parser(kinds)
    report.add_parser(kinds)
    secrets.add_parser(kinds)
