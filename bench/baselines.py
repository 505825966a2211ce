"""Retrieval the product's searches are measured against; used by the benchmarks only.

- `vector_search`: vector search over a project's live notes through the index, widened by the
  project's share of the database, with an exact scan as fallback (what the index gives).
- `deep_reference`: the seed's iterative retrieval, kept faithful: hop 0 embeds the query and
  searches; hop h embeds "query + titles of hop h-1's top results", searches again and adds the
  graph neighbours of hop h-1's top results; the union is ranked by the best score each note got
  in any hop (a cosine to that hop's query vector), with no penalty for later hops.
- `Fusion`: cosine of the query vector to every stored note embedding plus BM25 over title and
  content, each min-max normalised over the project's notes and summed; computed in numpy from
  the notes as stored, in the same run as the searches it is compared with. Its cosine alone,
  exact over every note of the project, is the flat vector baseline (`Fusion.ranked`, not
  `lexical`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from bench import store
from bench.store import VectorHit
from kg_brain.base import validate
from kg_brain.base.vocab import HANDOFF_KINDS
from kg_brain.domain.deps import Deps
from kg_brain.shapes.models import FoundBy, Hit, HitLink

MAX_QUERY_CHARS = 4_000
FETCH = 100  # the least vector index candidates asked for
SEED_RESULTS = 3  # the seed's hops pass on their top three notes ([A, B, C] -> [D, E, F])
NEIGHBOURS_PER_NOTE = 10
_WORD = re.compile(r"\w+")
# Lucene's English stop set (what the full-text index's english analyzer drops)
STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
     "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
     "these", "they", "this", "to", "was", "will", "with"])


def excluded_kinds(include_contextual: bool) -> list[str]:
    return [] if include_contextual else [k.value for k in HANDOFF_KINDS]


class Baselines:
    """Flat vector search and the seed's deep search over the real store."""

    def __init__(self, deps: Deps) -> None:
        self.db = deps.db
        self.embedder = deps.embedder
        self.clock = deps.clock
        self.index_fetch = deps.index_fetch

    def _vector(self, vector: list[float], project: str, excluded: list[str],
                k: int) -> list[VectorHit]:
        fetch = self.index_fetch(project, k, max(FETCH, 2 * k))
        return store.vector_notes(self.db, vector=vector, project=project, excluded=excluded,
                                  fetch=fetch, rescan=self.index_fetch.rescans(project), k=k)

    def vector_search(self, query: str, project: str, top_k: int = 10,
                      include_contextual: bool = False) -> list[Hit]:
        """The nearest notes to the query vector; read only."""
        k = validate.bounded(top_k, 1, 100, "top_k")
        project = validate.project(project)
        vector = self.embedder.encode(validate.content(query, MAX_QUERY_CHARS, "query"))
        rows = self._vector(vector, project, excluded_kinds(include_contextual), k)
        return [Hit(zk_id=r["zk_id"], title=r["title"], score=round(float(r["score"]), 6),
                    preview=r["preview"], note_kind=r["note_kind"], project=project,
                    found_by=[FoundBy(hop=0, channel="vector")]) for r in rows]

    def deep_reference(self, query: str, project: str, hops: int = 2, top_k: int = 10,
                       include_contextual: bool = False) -> list[Hit]:
        """The seed's deep_search: one embedding and one or two reads per hop, then the access
        stamp on the results (the seed stamps graph-found notes too)."""
        k = validate.bounded(top_k, 1, 100, "top_k")
        hops = validate.bounded(hops, 1, 3, "hops")
        text = validate.content(query, MAX_QUERY_CHARS, "query")
        project = validate.project(project)
        excluded = excluded_kinds(include_contextual)
        best: dict[str, tuple[float, FoundBy]] = {}

        def offer(zk_id: str, score: float, how: FoundBy) -> None:
            if zk_id not in best or score > best[zk_id][0]:
                best[zk_id] = (score, how)

        previous: list[VectorHit] = []
        for hop in range(hops + 1):
            prompt = " ".join([text] + [r["title"] for r in previous])
            vector = self.embedder.encode(prompt)
            seen = set(best)
            rows = self._vector(vector, project, excluded, k + len(seen))
            for r in rows:
                offer(r["zk_id"], float(r["score"]), FoundBy(hop=hop, channel="vector"))
            if previous:
                for nb in store.note_neighbours(self.db, zk_ids=[r["zk_id"] for r in previous],
                                                vector=vector, project=project,
                                                excluded=excluded, limit=NEIGHBOURS_PER_NOTE):
                    offer(nb["zk_id"], float(nb["score"]),
                          FoundBy(hop=hop, channel="graph", via=nb["via"],
                                  relationship=nb["relationship"]))
            previous = [r for r in rows if r["zk_id"] not in seen][:SEED_RESULTS]
        ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[:k]
        if not ranked:
            return []
        rows = store.stamp_hits(self.db, zk_ids=[z for z, _ in ranked], now=self.clock())
        found = dict(ranked)
        return [Hit(zk_id=r["zk_id"], title=r["title"], score=round(found[r["zk_id"]][0], 6),
                    preview=r["preview"], note_kind=r["note_kind"], project=r["project"],
                    links=[HitLink(**link) for link in r["links"] if link.get("zk_id")],
                    found_by=[found[r["zk_id"]][1]]) for r in rows]


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens without stop words, plurals reduced (a minimal English stemmer,
    like Lucene's: 'timeouts' meets 'timeout', 'retries' meets 'retry')."""
    return [_singular(t) for t in _WORD.findall(text.lower()) if t not in STOPWORDS]


def _singular(word: str) -> str:
    if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    return word[:-1]


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75, Lucene's idf) over a fixed list of documents."""

    def __init__(self, documents: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        counts = [Counter(tokens(d)) for d in documents]
        lengths = np.asarray([sum(c.values()) for c in counts], dtype=np.float64)
        self.size = len(documents)
        self.norm = k1 * (1 - b + b * lengths / max(float(lengths.mean()), 1.0)) \
            if self.size else lengths
        self.k1 = k1
        self.postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        by_term: dict[str, list[tuple[int, int]]] = {}
        for doc, c in enumerate(counts):
            for term, tf in c.items():
                by_term.setdefault(term, []).append((doc, tf))
        for term, pairs in by_term.items():
            docs, tfs = zip(*pairs, strict=True)
            self.postings[term] = (np.asarray(docs), np.asarray(tfs, dtype=np.float64))

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(self.size)
        for term in set(tokens(query)):
            if term not in self.postings:
                continue
            docs, tf = self.postings[term]
            idf = math.log(1 + (self.size - len(docs) + 0.5) / (len(docs) + 0.5))
            out[docs] += idf * tf * (self.k1 + 1) / (tf + self.norm[docs])
        return out


def min_max(values: np.ndarray) -> np.ndarray:
    span = float(values.max() - values.min()) if values.size else 0.0
    return (values - values.min()) / span if span > 0 else np.zeros_like(values)


@dataclass
class _ProjectIndex:
    ids: list[str]
    kinds: np.ndarray
    vectors: np.ndarray
    bm25: BM25


class Fusion:
    """Vector + BM25 fused by min-max normalised linear sum, over the stored notes in numpy."""

    def __init__(self, deps: Deps) -> None:
        self.db = deps.db
        self.embedder = deps.embedder
        self._indexes: dict[str, _ProjectIndex] = {}

    def load(self, project: str) -> None:
        """Read the project's notes as they are stored now (call after its writes are done)."""
        rows = store.project_vectors(self.db, project=validate.project(project))
        vectors = np.asarray([r["embedding"] for r in rows] or [[0.0]], dtype=np.float64)
        vectors = vectors[:len(rows)]
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self._indexes[project] = _ProjectIndex(
            ids=[r["zk_id"] for r in rows], kinds=np.asarray([r["note_kind"] for r in rows]),
            vectors=vectors / np.where(norms > 0, norms, 1.0),
            bm25=BM25([f"{r['title']}\n{r['content']}" for r in rows]))

    def ranked(self, query: str, project: str, top_k: int = 10, include_contextual: bool = False,
               lexical: bool = True) -> tuple[list[str], float | None]:
        """The ranked zk_ids, best first (ties by id): by cosine + BM25 (the fusion baseline), or
        by the exact cosine alone when not `lexical` (the flat vector baseline); and the best
        cosine among the notes searched (in [-1, 1]; None when there are none): what a
        relevance floor would read."""
        if project not in self._indexes:
            self.load(project)
        index = self._indexes[project]
        keep = ~np.isin(index.kinds, excluded_kinds(include_contextual))
        if not keep.any():
            return [], None
        vector = np.asarray(self.embedder.encode(query), dtype=np.float64)
        cosine = index.vectors[keep] @ (vector / (np.linalg.norm(vector) or 1.0))
        score = min_max(cosine) + min_max(index.bm25.scores(query)[keep]) if lexical else cosine
        ids = [z for z, k in zip(index.ids, keep, strict=True) if k]
        order = sorted(range(len(ids)), key=lambda i: (-score[i], ids[i]))
        return [ids[i] for i in order[:top_k]], float(cosine.max())
