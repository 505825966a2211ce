"""The ranking's constants, in one place: search_memory's (Tuning) and deep_search's
(DeepTuning) weights and rules, and the module constants both statements read. The fitted ones
are refitted by `python -m bench.fit_ranking` (bench/fit_ranking.py); every other one says how
it was chosen. kg_brain/domain/search.py passes them to the statements."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

# Counting a word's hits (search_memory's idf in the project) reads each of them: in a project of
# 38k notes search_memory's database time went from 3.0 to 8.2-8.7 raw vector queries. A project
# of more notes than OWN_IDF_MAX is searched by the whole query as the note index scores it, and
# a hit's lexical score makes it relevant from Tuning.lex_floor.
OWN_IDF_MAX = 5_000
# search_memory's vector channel re-scores its best SENTENCE_REACH notes by the cosine (at least
# its pool): each scores SENTENCE_WHOLE times its cosine plus the rest times its best sentence's
# cosine (fragments/nearest_in_project; a note's sentences: memory/text.sentences). A whole
# note's vector is mostly its context; a question asks what one sentence states. Chosen
# leave-one-project-out on the eleven coding tuning projects through the mirror (0.2-0.7; 10 of
# 11 folds chose 0.4): hit@1 79.7 -> 81.5 left out, no kind lower; re-scoring the best 60 kept
# the gain of re-scoring every note (docs/bench/tune/multivec37-bc95142.json). The current value
# first and the relevance floor read that score too (a note outside the 60 never passes the floor
# by its cosine): 11 of 11 folds, with the product's query vectors and stored sentences, left
# out 79.5 (no re-score) -> 80.93 (re-score, both reading the cosine) -> 82.0, no kind lower
# (docs/bench/tune/sentq37b-745900a.json). deep_search keeps the plain cosine: its re-score lost
# LoCoMo tuning evidence recall@10 in the product twice (77.0 -> 76.16, 76.7 -> 76.2).
SENTENCE_WHOLE = 0.4
SENTENCE_REACH = 60
# Lexical evidence of relevance, whatever the cosine, in a project searched word by word: a
# hit of the lexical channel holding at least RARE_WORDS of the query's words that each at
# most RARE_SHARE of the project's notes hold (at least one note). Counted, not scored, so it
# reads alike in every project. Chosen with Tuning.floor on the coding tuning split through the
# mirror (docs/BENCHMARKS.md; 1-4 words held by at most 1-20% of the notes).
RARE_WORDS = 3
RARE_SHARE = 0.1
# The relevance floor of a project searched word by word (Tuning.floor and DeepTuning.floor
# elsewhere), in both searches (cypher/fragments/relevance_floor.cypher): a hit's
# cosine (in [-1, 1]) must reach KNOWN_FLOOR plus UNKNOWN_STEP for each content word of the query
# (query_text.content_word) that no note of the project holds, for at most UNKNOWN_MOST of
# them, plus LACKED_STEP for each other content word of the query the hit lacks (a hit outside
# the lexical channel's pool lacks them all): a question about something never written down
# names it, and the notes it finds share few of its words; a lookup mostly uses the project's
# own words, and its note holds them. Chosen by leave-one-project-out on the eleven coding
# tuning projects through the mirror (`python -m bench.fit_ranking MANIFEST --floor-share P`;
# floors 0.20-0.64 by 0.01, UNKNOWN_STEP 0-0.15, LACKED_STEP 0-0.06): for each project the
# floor answering at least P% of the other ten projects' questions about nothing stored with
# nothing that puts the most expected notes first. At main's P, 85.5, seven folds chose 0.27,
# 0.1 and 0.02: left out 82.5% answered with nothing at hit@1 79.5 (lookups 87 of 132 first),
# without LACKED_STEP 83.5% at 78.4 (84); at 87, 86.6% at 79.1 against 84.5% at 77.7. On all
# eleven at 85.5, 0.27, 0.1 and 0.02: 86.6% at 79.5, against 85.6% at 78.6 for the earlier
# 0.32 and 0.1 with no LACKED_STEP (docs/bench/tune/floor-lacked-mirror.json). Counting every
# unknown word (no UNKNOWN_MOST) gave the coding set alike and raised the floor past the
# cosine of a LoCoMo tuning question's evidence (one naming three things the conversation
# never mentions); two words keep LoCoMo's recall (docs/BENCHMARKS.md).
KNOWN_FLOOR = 0.27
UNKNOWN_STEP = 0.1
UNKNOWN_MOST = 2
LACKED_STEP = 0.02
# A query word is asked of the stemmed note index and of the one of words as written, whose
# scores weigh AS_WRITTEN (query_text.word_queries). Chosen on the tuning splits (BENCHMARKS).
AS_WRITTEN = 0.25
# The current value first (Tuning.same_n): a SUPERSEDES link the write path made makes two notes
# one subject when their mutual cosine (in [-1, 1]) is at least this; the write path also links
# look-alikes of a project's other services, less alike than that. And only when the note
# yielded to is of the other's kind or a fix: the write path links notes of one topic too, and
# a decision, a pattern or a research note that yielded to a later general note linked to it
# lost lookups and decisions (leave-one-project-out on the eleven coding tuning projects through
# the mirror, every fold; docs/bench/tune/linked-kind-mirror.json).
SAME_LINKED = 0.5
# ... and such a linked note of the other's kind is yielded to when it is among the best
# LINKED_FAR times same_n hits, not only among the best same_n: asked for the current value, a
# note that replaced one may rank far below the note it replaced.
# Not asked for history, nor for a fix or a note of another kind outside the best same_n: a fix
# reached that way took the first place from lookups. Chosen by leave-one-project-out on the
# eleven coding tuning projects through the mirror (1, 2, 3, 4 and every hit: 2 in every fold,
# one current value more; 3 and more lost a multi-note question or more;
# docs/bench/tune/linked-far-mirror.json).
LINKED_FAR = 2
# deep_search's close hits first: the best NEAR_HEAD places go to the first hits among the best
# NEAR_OF whose cosine to the query (in [-1, 1]) is at most NEAR_GAP below the closest of
# those, or that hold a rare identifier of the query, or that fix or supersede the closest; a
# hit passed over scores just below the last of them. The graph step and the lexical channel
# lift notes that can be about something else into places a second needed note was owed.
# Chosen by leave-one-project-out over seven coding tuning projects (gap 0.1-0.3, 9 = off; of
# 5 or 10; every fold chose 0.2 of 5), replaying the statement's best 40 in numpy: every needed
# note in the top 3 for 59.5% of the multi-note questions against 52.4% through Neo4j. Then,
# for a question asking several things (question.clauses), the closest hit to each clause
# among the best CLAUSE_OF takes one of those places after the first: chosen likewise over
# the eleven projects (5-40 or off; every fold chose 15), 62.9% against 57.1% left out.
# `python -m bench.deep_replay` reruns the replay (docs/bench/tune/deep-replay.json): over the
# eleven projects the folds choose a gap of 0.1, no better than 0.2 left out and worse on the
# multi-note questions reworded (bench/data/coding/tune-rewordings.json), and CLAUSE_OF 15
# (20 in one fold).
NEAR_GAP = 0.2
NEAR_OF = 5
NEAR_HEAD = 3
# ... and the NEAR_REACH candidates closest to the query join the best NEAR_OF there: the
# lexical channel (twice the vector's weight) can put 40 notes sharing the query's words above
# the note closest in meaning, which then misses the step: a needed note missing from the best
# 40 of a multi-note question is most often among the query's 5 closest
# (bench/deep_candidates.py). Chosen by leave-one-project-out through the statement over the
# eleven coding tuning projects with the LoCoMo tuning conversations (0, 1 or 3; 9 of 11 folds
# chose 1; at 3 LoCoMo's recall@10 falls): `python -m bench.deep_reach`, docs/BENCHMARKS.md.
NEAR_REACH = 1
# search_memory places the clauses' hits too (after the current value first, before its best
# k), among its best CLAUSE_OF, each hit's closeness to a clause read as its vector channel's
# match (SENTENCE_WHOLE times its cosine, the rest its best sentence's), into the best
# NEAR_HEAD places. Chosen by leave-one-project-out over the eleven coding tuning projects,
# replaying search_memory's best 20 in numpy with SENTENCE_WHOLE kept (3-20 or off; 10 of 11
# folds chose 15, none lowering another kind's all@3): multi-note all@3 55.7 -> 62.9 left out.
# Through the statement over the same stored notes, 55.7 -> 64.3, every other kind's hit@1 and
# all@3 as before, and the LoCoMo tuning conversations' recall@10 of no category lower, multi-hop
# 41.7 as before (docs/bench/tune/coding-tune11-clauses37.json, locomo-add-clauses37.json and
# their -c58de68-before runs, from the tree of c58de68). Reading the whole note's cosine alone
# found less (58.6-61.4); deep_search reading the sentences too gained nothing left out.
CLAUSE_OF = 15
# ... and last the first hit's bridge: the note sharing the rarest entities with the first hit
# (each entity at least 2 and at most ent_cap notes mention weighing its rarity among the
# project's notes, log((N+1)/(n+0.5))/log(N+2), to the power BRIDGE_RARITY, summed) takes place
# BRIDGE_AT when they weigh at least BRIDGE_LEAST: two entities each in a handful of notes, not
# one (0 places: off). A multi-note question often finds one needed note by its words while
# another names the same rare things in other words. Chosen by leave-one-project-out over the
# eleven coding tuning projects with the LoCoMo tuning conversations in every fold, replaying
# the statement's best 40 in numpy (`python -m bench.deep_replay`: place 3, 4 or off; power
# 0-4; least weight 0.4-3): 10 folds chose place 3, power 2 and 1.2, one power 3 and 0.8.
# Through the statement, multi-note all@3 64.3 -> 70.0 on the coding tuning split, no other
# kind's hit@1 and no LoCoMo recall@10 moved (docs/BENCHMARKS.md); what still misses is counted
# by `python -m bench.deep_candidates`.
BRIDGE_AT = 3
BRIDGE_RARITY = 2.0
BRIDGE_LEAST = 1.2
# ... and then unlike hits: the best DIVERSE_FROM places stay, and each place up to DIVERSE_HEAD
# goes in turn to the hit among the best DIVERSE_OF whose relevance (its share of the first
# hit's score and its cosine to the query, weighing 1 - DIVERSE_MIX and DIVERSE_MIX) less
# DIVERSE_LAM times its highest cosine to the hits placed before it is highest (maximal
# marginal relevance): an answer spread over several notes (what a person did, over many
# sessions) is found among look-alikes of the note matching the question best. The best three
# places and every hit@1 stay as they were. Chosen on the LoCoMo tuning conversations, replaying
# the statement's best 40 in numpy (`python -m bench.deep_diverse`; from place 1 or 3; up to
# place 3, 5 or 10; of the best 10, 20 or 40; mix 0-1; lam 0.1-0.8): the coding tuning split
# does not tell the settings from place 3 apart (its all@3 and hit@1 do not move); placing from
# place 1 lost multi-note questions; every fold chose mix 0.25 at lam 0.2. A question asking for
# several things (question.asks_for_many: "which countries ...") weighs the cosine and the
# likeness more (DIVERSE_MANY_MIX, DIVERSE_MANY_LAM): that setting finds more of what LoCoMo's
# multi-hop questions need, but, asked of every question, it pushed out the answers of
# questions about one thing (adversarial ones most), whose turn matches the query's words
# better than its meaning. The split (`split` in bench/deep_diverse.py) was chosen over either
# setting alone with each coding tuning project and each LoCoMo tuning conversation left out.
# DIVERSE_HEAD at most DIVERSE_FROM: off.
DIVERSE_FROM = 3
DIVERSE_HEAD = 10
DIVERSE_OF = 20
DIVERSE_MIX = 0.25
DIVERSE_LAM = 0.2
DIVERSE_MANY_MIX = 0.5
DIVERSE_MANY_LAM = 0.4
# deep_search's hops when the caller names none: the question's channels and one graph step.
# The blended vector hop (hops 2) scored as hops 1 does over the eleven coding
# tuning projects (hit@1, MRR, all@3 and all@5 of every kind) and the LoCoMo tuning
# conversations (recall@10 of every category), through the statement beside each other over the
# same stored notes (docs/BENCHMARKS.md), and its second index query took about a quarter of the
# statement's database time at 10k notes; callers asking for 2 or 3 hops still get it.
DEEP_HOPS = 1


@dataclass(frozen=True)
class Tuning:
    """search_memory's constants, measured with `kg-brain bench retrieval` (the bench module).

    The ranking weights marked "fitted" are refitted by `python -m bench.fit_ranking MANIFEST
    --locomo MANIFEST --data FILE` (bench/fit_ranking.py: coordinate ascent on a numpy mirror
    of search_memory.cypher over the stored notes of the coding tuning projects and the LoCoMo
    tuning conversations, each suite weighing alike, the variant chosen by leave-one-project-out
    on the coding projects: the channel weights; the others kept the values the coding set
    alone was fitted to). Refitted over the eleven coding tuning projects, no set of them beat
    these values left out and the refit on everything returned them
    (docs/bench/tune/fit-ranking11.json). Other forms of the two channels' fusion (the lexical
    score over the query's idf, the vector score as a z-score or over the project's range,
    reciprocal ranks, a bonus for notes both channels find, the fusion baseline's BM25, a
    rare-word term) gained no more than a lookup left out (docs/bench/tune/channels-mirror.json)."""

    # Vector index candidates at least, three times the pool (the index cannot filter by
    # project: a project's share of the notes widens it, kg_brain/store/share.py); its cost
    # grows with them.
    fetch: int = 60
    lex_fetch: int = 250  # full-text candidates
    pool: int = 20  # per-channel ranked list fed to fusion (fitted)
    fusion: Literal["linear", "rrf"] = "linear"
    rrf_k: float = 8.0  # small k: the top ranks of each channel dominate (LoCoMo: +2 overall)
    w_vec: float = 1.0  # the scale the other weights are read against
    w_lex: float = 1.0  # fitted
    # A note superseded by a live note yields to it (score times `superseded`, fitted) when
    # that note was found scoring at least supersede_share (fitted) of its own score: a
    # SUPERSEDES link to a note the query does not reach is weak evidence (the write path links
    # look-alikes too), and demoting on it cost lookups. Only a link someone asserted: the
    # write path also links a note of several facts to a later note changing one of them (a
    # question about another of its facts lost its answer to the factor), and its links count
    # through the current value first alone (same_n, SAME_LINKED). On the coding tuning split
    # (every SUPERSEDES link there the write path's) hit@1 84.7 against 83.4, lookups 65.7
    # against 64.3, the current value 90.0 against 87.5; leave-one-project-out refitting
    # superseded and supersede_share with the write path's links yielding chose 1.0 (no
    # yield) in every fold.
    superseded: float = 0.6
    supersede_share: float = 0.5
    # The vector score runs from 0 at the pool's lowest cosine, or vec_span (fitted) below its
    # best when that is lower: among close cosines, the lexical channel decides more.
    vec_span: float = 0.2
    # Full-text field boosts beside content's 1 (fielded_query; each query word is asked for in
    # these fields at once), fitted: the coding set alone wanted the title at 2, with the LoCoMo
    # conversations 0.25 (a turn's title is its first words); keywords and context at 0 (an
    # enriched title and keywords repeat the content, an evolved context is other notes' words).
    lex_title: float = 0.25
    lex_keywords: float = 0.0
    lex_context: float = 0.0
    # Least cosine a hit must reach, else "nothing relevant stored", unless it holds a rare
    # identifier of the query (the exact channel) or RARE_WORDS rare words of it: in a project
    # searched by the whole query (search_memory word by word reads KNOWN_FLOOR, UNKNOWN_STEP
    # and LACKED_STEP), in deep_search's stead of nothing, and for a hit recalled unasked
    # (Search.relevant). Chosen, as search_memory's floor of every project, by
    # leave-one-project-out on the eleven coding tuning projects through the mirror
    # (bench/ranking.py, `python -m bench.fit_ranking MANIFEST --floor-share P`): for each
    # project, the lowest floor, by 0.01, that answers at least P% of the other ten projects'
    # questions about nothing stored with nothing. P is the least share whose left-out rate
    # clears the 80% target: asking 80% left out 78% (0.44-0.46), asking 82% left out 82% at
    # hit@1 74.2 (0.44-0.47). On all eleven, the lowest floor answering 82% is 0.46 (83.5%,
    # hit@1 74.3; 0.44 gave 78.4% at 74.5). An earlier margin (90% on seven projects) was
    # asked after a reading of the coding check split; this one by the rate left out on tune.
    floor: float = 0.46
    # ... or, in a project of more than OWN_IDF_MAX notes (searched by the whole query, scored
    # by the note index's BM25, so no rare words are counted), a lexical score of at least
    # lex_floor: the lowest, by 0.5, that kept at least 80% of the coding tuning split's
    # questions about nothing stored answered with nothing when every project was searched so.
    lex_floor: float = 8.0
    # A note that FIXES a found note scores at least this share of the found note's score
    # (0: off): a symptom question words the failure, and the fix is what it asks for. Fitted:
    # just above the mistake.
    fix_lift: float = 1.01
    # The session (FOLLOWS): the note written just after a found note gets this share of the
    # found note's score, the one written just before it session_before. A turn answers the one
    # before it; a step of a task explains the next.
    session_after: float = 0.5
    session_before: float = 0.2
    # Exact identifiers (fragments/exact_matches): a note holding a query's identifier word for
    # word adds w_exact times its signal (1 when it alone holds it; split among its holders)
    # and counts as relevant whatever its cosine; a term more than exact_df notes hold is no
    # rare token. Both fitted.
    w_exact: float = 4.0
    exact_df: int = 5
    # The current value first (fragments/current_first): among the best same_n hits (the
    # current note may rank far below the one it replaced), a note yields to a hit stating the
    # same thing later (written, or rewritten by update_memory): a SUPERSEDES link either way,
    # a mutual cosine >= SAME_LINKED and the note yielded to of its kind or a fix, or a mutual
    # cosine >= same_cos, a cosine to the query at most same_reach below its own and an entity
    # both mention that at most same_subject notes mention (not a person, a name or a date: in
    # a chat every turn names its speaker and day). The later note takes the best score of
    # those yielding to it, each of them falls just below it; of the later notes one yields to
    # (look-alikes of sibling services the write path linked to it among them) the closest to
    # the query ranks first, not the first id; mistakes and open threads take no part, a fix
    # (stating the value it set) is yielded to and, but for a history question and a note it
    # is SUPERSEDES-linked to (the value it replaced), never yields, and so is a session summary
    # (stating its session's values of several subjects, its mutual cosine with a note of one
    # of them stays low), asked for the current value, by the entity and the reach alone
    # (docs/bench/tune/current-lookalike-mirror.json: leave-one-project-out chose the order in
    # every fold and the summary in the ten whose projects hold no question it moves: one
    # current value more each, nothing else). Asked for the current value, a note holding an
    # identifier of the query the later one lacks does not yield (look-alikes "alpha-3",
    # "alpha-4"); a history question turns it round, the score passing down the chain (of a
    # value changed twice the first takes it; no constant: in the mirror over the eleven coding
    # tuning projects one history question more, no other kind moved; asked for the value
    # before a named number, the first stated hit holding it yields: with the linked fix, one
    # history question more there and 8 of 190 history rewordings, none lost,
    # docs/bench/tune/current37d-history-a9116af.json). Asked for a value of some shape
    # (question.value_shapes), a note (a fix too) also yields to a later hit among the best
    # same_n that holds a subject word of the question with it and restates its value of that
    # shape beside another, naming nothing else (no link needed: the write path links few value
    # changes; chosen on the coding tuning split in 11 of 11 leave-one-project-out folds over
    # the questions as written and reworded, current value 77.78 -> 80.56, every other kind
    # equal, docs/bench/tune/current39-*.json). Chosen by
    # leave-one-project-out on the coding tuning split through the mirror (bench/ranking.py;
    # docs/BENCHMARKS.md): same_n 3, 10, 20, 40; SAME_LINKED 0.4-0.6; same_cos 0.6, 0.7;
    # same_reach 0.15-0.3; same_subject 4, 8; fixes, SUPERSEDES and the reach on linked pairs
    # in or out; same_n 20 cost LoCoMo 0.2-1 point.
    same_n: int = 10
    same_cos: float = 0.6
    same_reach: float = 0.15
    same_subject: int = 4


@dataclass(frozen=True)
class DeepTuning:
    """deep_search's constants (cypher/search/deep_search.cypher says what each one does),
    measured with `kg-brain bench retrieval` on the coding set, LoCoMo and MuSiQue."""

    pool: int = 40
    ent_fetch: int = 20  # entity-name index candidates
    ent_n: int = 8  # question entities followed
    ent_partial: float = 0.5  # an entity matched by some of its name's words
    ent_share: float = 0.05  # an entity in more than this share of the notes leads nowhere
    ent_floor: int = 12  # ... unless it has at most this many notes
    ent_ceiling: int = 500  # and never one in more notes: bounds the graph step at any size
    blend_n: int = 3
    alpha: float = 0.5
    expand_n: int = 5
    nb_limit: int = 3
    w_vec: float = 1.0
    # The lexical channel is search_memory's (each word by its idf in the project), over its
    # best hit: chosen from 0.5, 1, 2, 3, 4 by the mean of the coding tuning split's hit@1 and
    # the LoCoMo tuning conversations' recall@10 (docs/BENCHMARKS.md).
    w_lex: float = 2.0
    w_ent: float = 0.2
    w_bridge: float = 0.1
    w_fix: float = 0.3
    w_link: float = 0.1
    decay: float = 0.3
    superseded: float = 0.6
    supersede_share: float = 0.5  # as Tuning.supersede_share and vec_span
    vec_span: float = 0.2
    floor: float = 0.46  # as Tuning.floor, past OWN_IDF_MAX notes (KNOWN_FLOOR below it)
    fix_lift: float = 1.01  # as Tuning.fix_lift (and NAMING_WORDS), from the final ranking
    session_after: float = 0.5  # as Tuning.session_after, from the notes of every hop
    session_before: float = 0.2
    w_exact: float = 4.0  # as Tuning.w_exact, exact_df, same_n, same_cos and same_subject
    exact_df: int = 5
    same_n: int = 10
    same_cos: float = 0.6
    same_reach: float = 0.15
    same_subject: int = 4

    def statement_map(self) -> dict[str, float]:
        """The constants the statement reads as `$tuning.<name>`; the pool and the entity cap
        (ent_share, ent_floor, ent_ceiling) are sized per call and passed apart, and so is the
        floor (`$floor` of fragments/relevance_floor past OWN_IDF_MAX notes)."""
        return {f: v for f, v in asdict(self).items()
                if f not in ("pool", "ent_share", "ent_floor", "ent_ceiling", "floor")}
