"""A fixed set of texts the ONNX runtimes are compared with torch on: the kinds of text agents
store (prose, code, paths, errors, identifiers, commands), unusual input (empty, whitespace,
accents, scripts without spaces, emoji) and texts longer than the model's 256-token limit, so
truncation is compared too. Written for this purpose (no benchmark data); built by a fixed seed."""

from __future__ import annotations

import random

_LONG_NOTE = ("The evolution worker refines the context of linked notes off the request path; "
              "each job takes a lease in Neo4j, applies exactly once and keeps a revision. ")

EDGE_CASES: tuple[str, ...] = (
    "",
    "   ",
    "\n\t",
    "neo4j",
    "Café naïve façade Ångström résumé — crème brûlée à la carte.",
    "记忆图谱中的笔记通过类型化关系连接。知识会随时间演化。",
    "ノートは型付きの関係で結ばれ、時間とともに進化します。",
    "Заметки связаны типизированными связями и со временем уточняются.",
    "Deploy went fine 🎉🚀 but the cache warm-up took 45 s on the 2-core box 😅",
    "UPPERCASE SHOUTING ABOUT A TIMEOUT IN THE BOLT DRIVER",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4 5 6 7 8 9",
    "token " * 300,
    _LONG_NOTE * 12,
    "\n".join(f"line {i}: value={i * 17 % 101} path=/var/lib/app/shard-{i}.db" for i in range(60)),
    "def encode_many(self, texts: Sequence[str]) -> list[list[float]]:\n    return []",
    "SELECT n.id FROM notes WHERE project = $project AND kind <> 'archived';",
    "src/app/store/notes.py:142: TypeError: 'NoneType' object is not subscriptable",
)

_SUBJECTS = ("the release script", "our CI pipeline", "the payment service", "the search index",
             "the login page", "the nightly backup", "the Kafka consumer", "the ORM layer",
             "the Docker image", "the rate limiter", "the GraphQL gateway", "the cron job")
_EVENTS = ("fails intermittently", "got twice as slow", "leaks memory", "times out after 30 s",
           "returns stale data", "crashes on startup", "logs a deprecation warning",
           "needs a retry with backoff", "was migrated last sprint", "should be split in two")
_CAUSES = ("since the dependency upgrade", "because of a missing index", "when the disk is full",
           "under concurrent writes", "after the timezone change", "with an empty config file",
           "on ARM machines only", "when the token expires")
_DECISIONS = ("Decision: {s} keeps its own retry budget.", "TODO: document why {s} is pinned.",
              "Rule: never call {s} from the request path.", "Question: who owns {s}?",
              "Fixed {s} by reverting the cache change.",
              "Benchmark of {s}: p95 went 120 ms -> 80 ms.")
_CODE = ("for item in items:\n    total += item.price * item.qty",
         "const user = await db.users.findOne({{ id: {n} }});",
         "fn parse(input: &str) -> Result<Config, Error> {{ todo!() }}",
         "git rebase -i HEAD~{n} && git push --force-with-lease",
         "export TIMEOUT_MS={n}000 && ./run.sh --verbose",
         "ERROR {n} at /usr/lib/python3/site-packages/pkg/mod.py line {n}",
         "kubectl rollout restart deployment/api-{n} -n staging",
         "SELECT count(*) FROM orders WHERE created_at > now() - interval '{n} days';")


def comparison_texts(count: int = 520, seed: int = 20261202) -> list[str]:
    """EDGE_CASES then generated notes, questions, decisions and code, all distinct."""
    rng = random.Random(seed)
    texts, seen = list(EDGE_CASES), set(EDGE_CASES)
    while len(texts) < count:
        subject, number = rng.choice(_SUBJECTS), rng.randint(2, 999)
        kind = rng.randrange(4)
        if kind == 0:
            text = f"{subject.capitalize()} {rng.choice(_EVENTS)} {rng.choice(_CAUSES)}."
        elif kind == 1:
            text = f"Why does {subject} {rng.choice(_EVENTS).split(' ', 1)[-1]}?"
        elif kind == 2:
            text = rng.choice(_DECISIONS).format(s=subject)
        else:
            text = rng.choice(_CODE).format(n=number)
        if rng.random() < 0.15:
            text = " ".join([text] * rng.randint(4, 30))  # some long enough to be truncated
        if text not in seen:
            seen.add(text)
            texts.append(text)
    return texts
