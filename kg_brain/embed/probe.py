"""The fixed texts an ONNX export is verified on before first use: the kinds of text agents
store (prose, code, paths, errors, identifiers), unusual input (empty, whitespace, accents,
scripts without spaces, emoji), and texts longer than the model's 256-token limit, so that
truncation is compared too."""

from __future__ import annotations

_LONG_NOTE = ("The evolution worker refines the context of linked notes off the request path; "
              "each job takes a lease in Neo4j, applies exactly once and keeps a revision. ")

PROBE_TEXTS: tuple[str, ...] = (
    "",
    "   ",
    "neo4j",
    "How do I fix the failing migration?",
    "Why did the deploy to staging break after the dependency upgrade?",
    "Decision: keep every Cypher statement in its own file under cypher/<area>/.",
    "FIX: pin urllib3<2 because botocore 1.29 imports DEFAULT_CIPHERS, removed in urllib3 2.0.",
    "ModuleNotFoundError: No module named 'kg_brain.embed' when running pytest from /tmp",
    "def encode_many(self, texts: Sequence[str]) -> list[list[float]]:\n    return []",
    "SELECT n.zk_id FROM notes WHERE project = $project AND memory_type <> 'archived';",
    "export NEO4J_URI=bolt://127.0.0.1:7687 && kg-brain neo4j start --wait",
    "src/kg_brain/store/notes.py:142: TypeError: 'NoneType' object is not subscriptable",
    "Caroline went to the LGBTQ support group on 7 May 2023 and felt accepted there.",
    "Melanie painted a sunrise over the lake last year; she shared a photo of it.",
    "Café naïve façade Ångström résumé — crème brûlée à la carte.",
    "记忆图谱中的笔记通过类型化关系连接。知识会随时间演化。",
    "ノートは型付きの関係で結ばれ、時間とともに進化します。",
    "Deploy went fine 🎉🚀 but the cache warm-up took 45 s on the 2-core box 😅",
    "UPPERCASE SHOUTING ABOUT A TIMEOUT IN THE BOLT DRIVER",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4 5 6 7 8 9",
    "token " * 300,
    _LONG_NOTE * 12,
    "\n".join(f"line {i}: value={i * 17 % 101} path=/var/lib/app/shard-{i}.db"
              for i in range(60)),
    "The quick brown fox jumps over the lazy dog.",
)
