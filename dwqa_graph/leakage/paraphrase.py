"""Paraphrases across a question set (or between two sets): the seed's paraphrase checker.

The seed sends numbered question sets to an LLM with ``prompts/paraphrase_checker.md`` and
gets ``{"paraphrase_index_pairs": [[(i, j), "explanation"], ...]}`` back. Asking about all
n(n−1)/2 pairs of a benchmark is out of the question, so:

1. **Lexical prefilter.** Each question becomes a set of content words (SQuAD-normalised,
   stop words and question words removed, a plural ending stripped). A pair is a *candidate*
   when it has the same normalised text, or Jaccard ≥ ``j_min`` (0.4), or — sharing at least
   ``min_shared`` (2) content words — rapidfuzz ``token_set_ratio`` of the content words ≥
   ``r_min`` (85). Pairs are found through an inverted index over content words, so only
   pairs that share a word are ever scored; words in more than ``max_df`` questions
   (default ``max(50, 2 % of n)``) are too common to propose pairs on their own (they still
   count in the scores), but prefix filtering over words ordered rarest-first guarantees
   that no pair with Jaccard ≥ ``j_min`` is missed. Lexical on purpose: paraphrases that
   share a word or two pass; a pure synonym rewrite that shares only one entity ("How many
   people live in Paris?" / "What is the population of Paris?") does not — lower ``j_min``
   to widen the net.
2. **Question sets.** Candidate pairs are grouped into connected components; components are
   packed into sets of at most ``max_set`` (20) questions, and a larger component is cut into
   sets along its edges so that every candidate pair is shown together at least once.
3. **Judge.** With an ``LLM``, every set goes to the model with the seed's prompt
   (questions numbered from 1); replies are parsed tolerantly (JSON, Python tuples, or bare
   ``(i, j)`` text), a bad reply gets one repair turn, then the set counts as failed. Returned
   pairs with invalid indices are dropped and counted; a pair the model finds that the
   prefilter did not propose is kept with ``candidate: false``. Without an LLM the **rule
   judge** decides each candidate pair, deterministically: a paraphrase when the SQuAD-
   normalised texts have rapidfuzz ``token_sort_ratio`` ≥ ``rule_threshold`` (90) *and* the
   same question word *and* the same numbers and capitalised names — a near-duplicate
   detector that never merges "capital of France" with "capital of Germany".

The report mirrors the seed's metadata (``total_processed``, ``successful``, ``failed``,
``total_paraphrase_pairs``, ``total_possible_pairs``, ``paraphrase_percentage``,
``total_processing_time``). ``total_possible_pairs`` is *every* pair of the input —
n(n−1)/2, or |A|·|B| across two sets — and the pairs the prefilter drops count as checked
non-paraphrases. (The seed's ``total_possible_pairs`` summed the pairs within the question
sets it sent, so its percentages are over a much smaller denominator.) Pairs in failed sets
are reported as ``unchecked_candidate_pairs``.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from dwqa_graph.errors import UsageError
from dwqa_graph.llm import LLM, LLMFailure, LLMStats, Prompt, load_prompt, parse_json
from dwqa_graph.text import normalize_answer

DEFAULT_J_MIN = 0.4
DEFAULT_R_MIN = 85.0
DEFAULT_MIN_SHARED = 2
DEFAULT_MAX_SET = 20
DEFAULT_RULE_THRESHOLD = 90.0

QUESTION_WORDS = frozenset("what which who whom whose when where why how".split())
STOP_WORDS = QUESTION_WORDS | frozenset("""
a an the of in on at to for from by with about as into onto over under after before between
during through since until upon within without against among per via
and or but nor so if than then that this these those there here
is are was were be been being am do does did done doing has have had having
will would shall should can could may might must
i me my we us our you your he him his she her it its they them their
not no yes all any some each every both either neither other such own same
very too also just only more most much many
s t""".split())

_NUMBER = re.compile(r"\d")
_CAPITALISED = re.compile(r"\b[A-Z][\w'’.-]*")


# -- features -------------------------------------------------------------------------------------
def _stem(tok: str) -> str:
    """A plural ending off: cities -> city, rivers -> river; Paris, bus, glass stay."""
    if len(tok) > 4 and tok.endswith("ies"):
        return tok[:-3] + "y"
    if len(tok) > 3 and tok.endswith("s") and not tok.endswith(("ss", "us", "is")):
        return tok[:-1]
    return tok


def content_tokens(text: str) -> frozenset[str]:
    """Content words of a question: normalised, stop/question words removed, plural s off."""
    return frozenset(_stem(t) for t in normalize_answer(text).split() if t not in STOP_WORDS)


def _question_word(norm: str) -> str | None:
    return next((t for t in norm.split() if t in QUESTION_WORDS), None)


def _key_terms(text: str, norm: str) -> frozenset[str]:
    """Numbers and capitalised names: what must not differ between two paraphrases."""
    names = {normalize_answer(m.group()) for m in _CAPITALISED.finditer(text)}
    nums = {t for t in norm.split() if _NUMBER.search(t)}
    return frozenset(n for n in names | nums if n and n not in STOP_WORDS)


# Words the rule ignores: articles, forms of be/do/have, the commonest prepositions.
# Negations, comparatives and before/after stay: they change what is asked.
RULE_FILLER = frozenset("""a an the of in on at by for to from with and or is are was were be
been being am do does did has have had that this there""".split())


def _rule_words(norm: str) -> str:
    return " ".join("who" if t == "whom" else t for t in norm.split() if t not in RULE_FILLER)


def rule_paraphrase(a: str, b: str, threshold: float = DEFAULT_RULE_THRESHOLD
                    ) -> tuple[bool, float]:
    """(is it a paraphrase by the offline rule, the ratio it was judged on).

    The rule: rapidfuzz ``token_sort_ratio`` of the SQuAD-normalised texts without filler
    words (``RULE_FILLER``; "whom" read as "who") ≥ ``threshold``, the same question word,
    and the same numbers and capitalised names. Word order and filler words may change;
    a different name, number, year or question word never passes."""
    na, nb = normalize_answer(a), normalize_answer(b)
    ratio = float(fuzz.token_sort_ratio(_rule_words(na), _rule_words(nb)))
    same = (ratio >= threshold
            and _question_word(_rule_words(na)) == _question_word(_rule_words(nb))
            and _key_terms(a, na) == _key_terms(b, nb))
    return same, ratio


# -- prefilter ------------------------------------------------------------------------------------
class Candidate(BaseModel):
    a: int = Field(description="Position in the combined list (set A first, then set B).")
    b: int
    jaccard: float
    ratio: float | None = Field(None, description="token_set_ratio of the content words; "
                                                  "computed only when Jaccard is not enough.")
    reason: Literal["identical", "jaccard", "token_set_ratio"]


class PrefilterStats(BaseModel):
    j_min: float
    r_min: float
    min_shared: int
    max_df: int
    frequent_tokens: int = Field(0, description="Content words too common to propose pairs.")
    pairs_scored: int = Field(0, description="Pairs sharing an indexed word (all were scored).")
    candidates: int = 0
    seconds: float = 0.0


def _prefix_len(size: int, j_min: float) -> int:
    """How many of a set's rarest words a Jaccard >= j_min partner must hit."""
    return max(0, min(size, size - math.ceil(j_min * size - 1e-9) + 1))


def prefilter(texts: Sequence[str], *, split: int | None = None, j_min: float = DEFAULT_J_MIN,
              r_min: float = DEFAULT_R_MIN, min_shared: int = DEFAULT_MIN_SHARED,
              max_df: int | None = None) -> tuple[list[Candidate], PrefilterStats]:
    """Candidate pairs among ``texts``; with ``split`` only pairs (i < split ≤ j), i.e.
    across set A = texts[:split] and set B = texts[split:]. Never scores all pairs."""
    started = time.perf_counter()
    n = len(texts)
    cross = split is not None
    max_df = max_df if max_df is not None else max(50, int(0.02 * n))
    toks = [content_tokens(t) for t in texts]
    norms = [normalize_answer(t) for t in texts]
    joined = [" ".join(sorted(t)) for t in toks]
    # Index set B (cross) or everything (within); query with A (cross) or everything.
    indexed = range(split, n) if split is not None else range(n)
    queries = range(split) if split is not None else range(n)
    postings: dict[str, list[int]] = defaultdict(list)
    for j in indexed:
        for t in toks[j]:
            postings[t].append(j)
    frequent = {t for t, js in postings.items() if len(js) > max_df}
    # Prefix filtering with PPJoin's positional filter (Bayardo et al. 2007; Xiao et al.
    # 2008): with words ordered rarest first, two sets with Jaccard >= j_min must share one of
    # the first |x| - ceil(j_min·|x|) + 1 words of each, and a shared word at positions i, j
    # leaves room for at most 1 + min(|x|-i-1, |y|-j-1) more. Probing only those prefixes
    # finds every Jaccard candidate even among questions made only of common words (which
    # the frequent-word cut-off alone misses) without scoring the pairs that cannot qualify.
    df = Counter(t for ts in toks for t in ts)
    ordered = [sorted(ts, key=lambda t: (df[t], t)) for ts in toks]
    prefix_postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for j in indexed:
        for pos, t in enumerate(ordered[j][:_prefix_len(len(ordered[j]), j_min)]):
            prefix_postings[t].append((j, pos))

    def jaccard_partners(i: int) -> set[int]:
        n_i = len(ordered[i])
        overlap: dict[int, int] = {}
        for pos_i, t in enumerate(ordered[i][:_prefix_len(n_i, j_min)]):
            for j, pos_j in prefix_postings.get(t, ()):
                if (not cross and j <= i):
                    continue
                n_j = len(ordered[j])
                need = math.ceil(j_min / (1 + j_min) * (n_i + n_j) - 1e-9)
                if overlap.get(j, 0) + 1 + min(n_i - pos_i - 1, n_j - pos_j - 1) >= need:
                    overlap[j] = overlap.get(j, 0) + 1
        return set(overlap)

    same_text: dict[str, list[int]] = defaultdict(list)
    for j in indexed:
        if norms[j]:
            same_text[norms[j]].append(j)

    stats = PrefilterStats(j_min=j_min, r_min=r_min, min_shared=min_shared, max_df=max_df,
                           frequent_tokens=len(frequent))
    out: list[Candidate] = []
    for i in queries:
        partners: set[int] = set()
        for t in toks[i]:
            if t not in frequent:
                partners.update(postings.get(t, ()))
        partners |= jaccard_partners(i)
        identical = set(same_text.get(norms[i], ())) if norms[i] else set()
        for j in sorted(partners | identical):
            if not cross and j <= i:
                continue
            stats.pairs_scored += 1
            shared = len(toks[i] & toks[j])
            union = len(toks[i] | toks[j])
            jac = shared / union if union else 0.0
            if j in identical:
                out.append(Candidate(a=i, b=j, jaccard=jac, reason="identical"))
            elif jac >= j_min:
                out.append(Candidate(a=i, b=j, jaccard=jac, reason="jaccard"))
            elif shared >= min_shared:
                ratio = float(fuzz.token_set_ratio(joined[i], joined[j]))
                if ratio >= r_min:
                    out.append(Candidate(a=i, b=j, jaccard=jac, ratio=ratio,
                                         reason="token_set_ratio"))
    stats.candidates = len(out)
    stats.seconds = round(time.perf_counter() - started, 4)
    return out, stats


# -- question sets --------------------------------------------------------------------------------
class QuestionSet(BaseModel):
    nodes: list[int] = Field(description="Positions shown to the judge, numbered 1.. in order.")
    edges: list[tuple[int, int]] = Field(description="Candidate pairs this set is checked for.")


def question_sets(edges: Sequence[tuple[int, int]], max_set: int = DEFAULT_MAX_SET
                  ) -> list[QuestionSet]:
    """Connected components of the candidate graph, packed into sets of ≤ ``max_set``
    questions; a bigger component is cut along its edges (each edge lands in one set with
    both ends, so nodes may repeat across sets)."""
    if max_set < 2:
        raise UsageError("max_set must be at least 2")
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        parent[find(a)] = find(b)
    comps: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for a, b in edges:
        comps[find(a)].append((a, b))

    units: list[QuestionSet] = []
    for comp_edges in comps.values():
        nodes = sorted({x for e in comp_edges for x in e})
        if len(nodes) <= max_set:
            units.append(QuestionSet(nodes=nodes, edges=sorted(comp_edges)))
            continue
        # Cut: walk the edges in BFS order so each set keeps neighbours together.
        adj: dict[int, list[int]] = defaultdict(list)
        for a, b in comp_edges:
            adj[a].append(b)
            adj[b].append(a)
        order: dict[int, int] = {}
        queue = [nodes[0]]
        while queue:
            x = queue.pop(0)
            if x in order:
                continue
            order[x] = len(order)
            queue += sorted(y for y in adj[x] if y not in order)
        walk = sorted(comp_edges, key=lambda e: (min(order[e[0]], order[e[1]]),
                                                 max(order[e[0]], order[e[1]])))
        cur_nodes: list[int] = []
        cur_edges: list[tuple[int, int]] = []
        for a, b in walk:
            new = [x for x in (a, b) if x not in cur_nodes]
            if len(cur_nodes) + len(new) > max_set:
                units.append(QuestionSet(nodes=sorted(cur_nodes), edges=cur_edges))
                cur_nodes, cur_edges, new = [], [], [a, b]
            cur_nodes += new
            cur_edges.append((a, b))
        if cur_edges:
            units.append(QuestionSet(nodes=sorted(cur_nodes), edges=cur_edges))

    # First-fit decreasing: small components share a set (fewer calls).
    units.sort(key=lambda u: (-len(u.nodes), u.nodes))
    packed: list[QuestionSet] = []
    for unit in units:
        for qs in packed:
            if len(qs.nodes) + len(unit.nodes) <= max_set and not set(qs.nodes) & set(unit.nodes):
                qs.nodes = sorted(qs.nodes + unit.nodes)
                qs.edges = sorted(qs.edges + unit.edges)
                break
        else:
            packed.append(unit.model_copy(deep=True))
    return packed


# -- parsing the checker's reply ------------------------------------------------------------------
_PAIR_TEXT = re.compile(r"[(\[]\s*(\d+)\s*,\s*(\d+)\s*[)\]]")
_EMPTY_LIST = re.compile(r"paraphrase_index_pairs[\"']?\s*:\s*\[\s*\]")


def _as_int(x: Any) -> int | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, float) and x.is_integer():
        return int(x)
    if isinstance(x, str) and x.strip().isdigit():
        return int(x.strip())
    return None


def _pair_of(x: Any) -> tuple[int, int] | None:
    if isinstance(x, list | tuple) and len(x) == 2:
        i, j = _as_int(x[0]), _as_int(x[1])
        return (i, j) if i is not None and j is not None else None
    if isinstance(x, str) and (m := _PAIR_TEXT.search(x)):
        return int(m.group(1)), int(m.group(2))
    return None


def _entry(x: Any) -> tuple[int, int, str] | None:
    """One element of the pair list, in any of the shapes small and large models produce."""
    if isinstance(x, dict):
        expl = next((str(v) for k, v in x.items()
                     if k.lower() in ("explanation", "reason", "why")), "")
        for k, v in x.items():
            if ("pair" in k.lower() or "ind" in k.lower()) and (p := _pair_of(v)) is not None:
                return (*p, expl)
        nums = [_as_int(v) for k, v in x.items() if k.lower() not in ("explanation", "reason")]
        ints = [v for v in nums if v is not None]
        return (ints[0], ints[1], expl) if len(ints) == 2 else None
    if isinstance(x, list | tuple):
        if (p := _pair_of(x)) is not None:  # [i, j]
            return (*p, "")
        if len(x) >= 2 and (p := _pair_of(x[0])) is not None:  # [(i, j), "why"]
            return (*p, " ".join(str(e) for e in x[1:]))
        if len(x) >= 3 and (i := _as_int(x[0])) is not None and (j := _as_int(x[1])) is not None:
            return (i, j, " ".join(str(e) for e in x[2:]))  # [i, j, "why"]
        return None
    if isinstance(x, str) and (p := _pair_of(x)) is not None:
        return (*p, "")
    return None


class ParsedPairs(BaseModel):
    pairs: list[tuple[int, int, str]]
    unusable: int = Field(0, description="List elements that were not a pair.")


def parse_pairs(text: str) -> ParsedPairs:
    """The index pairs of a paraphrase-checker reply. ValueError when the reply has no pair
    list at all (the caller's repair turn / failure count then applies)."""
    try:
        value: Any = parse_json(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        key = next((k for k in value if "pair" in str(k).lower()), None)
        if key is None:
            lists = [v for v in value.values() if isinstance(v, list)]
            if len(lists) != 1:
                raise ValueError("no 'paraphrase_index_pairs' list in the reply")
            value = lists[0]
        else:
            value = value[key]
        if value is None:
            value = []
    if isinstance(value, list):
        if (p := _pair_of(value)) is not None:  # one bare pair: [i, j]
            return ParsedPairs(pairs=[(*p, "")])
        entries = [_entry(x) for x in value]
        return ParsedPairs(pairs=[e for e in entries if e is not None],
                           unusable=sum(e is None for e in entries))
    # Not JSON (truncated, prose around it): bare (i, j) pairs in the text.
    found = [(int(m.group(1)), int(m.group(2)), "") for m in _PAIR_TEXT.finditer(text)]
    if found or _EMPTY_LIST.search(text):
        return ParsedPairs(pairs=found)
    raise ValueError("no paraphrase pair list in the reply")


# -- the report -----------------------------------------------------------------------------------
class ParaphrasePair(BaseModel):
    a_id: str
    a_text: str
    b_id: str
    b_text: str
    explanation: str = ""
    candidate: bool = Field(True, description="Proposed by the prefilter (false: the LLM "
                                              "found it among the other questions of a set).")
    jaccard: float | None = None


class ParaphraseReport(BaseModel):
    """``find_paraphrases``; the first fields follow the seed's paraphrase-checker metadata."""

    mode: Literal["within", "cross"]
    judge: str = Field(description="'rule' or the LLM's id.")
    judge_identity: dict[str, Any] | None = None
    prompt: dict[str, str] | None = None
    questions: int
    set_sizes: list[int]
    total_processed: int = Field(0, description="Question sets judged.")
    successful: int = 0
    failed: int = 0
    skipped: int = 0
    total_paraphrase_pairs: int = 0
    total_possible_pairs: int = Field(0, description="n(n-1)/2, or |A|·|B| across two sets.")
    paraphrase_percentage: float | None = Field(None, description="100 · pairs / possible; "
                                                                  "None if no pair is possible.")
    candidate_pairs: int = 0
    unchecked_candidate_pairs: int = Field(0, description="Candidates in failed sets.")
    non_candidate_pairs: int = 0
    invalid_pairs: int = Field(0, description="Returned pairs dropped: bad index, i = j, or "
                                              "both in one set in cross mode, or unusable.")
    pairs: list[ParaphrasePair] = Field(default_factory=list)
    prefilter: PrefilterStats
    failures: dict[str, int] = Field(default_factory=dict)
    llm: LLMStats | None = None
    total_processing_time: float = 0.0
    timestamp: str = ""


class _SetResult(BaseModel):
    pairs: list[tuple[int, int, str]] = Field(default_factory=list)
    invalid: int = 0
    failure: str | None = None


def _format_set(texts: Sequence[str], nodes: Sequence[int]) -> str:
    return "\n".join(f"{k}. {' '.join(texts[x].split())}" for k, x in enumerate(nodes, 1))


async def _ask(llm: LLM, template: Prompt, texts: Sequence[str], qs: QuestionSet,
               split: int | None) -> _SetResult:
    messages: list[BaseMessage] = [HumanMessage(template.render(
        question_set=_format_set(texts, qs.nodes)))]
    parsed: ParsedPairs | None = None
    try:
        raw = await llm.acall(messages)
        try:
            parsed = parse_pairs(raw)
        except ValueError as exc:
            llm.stats.repairs += 1
            messages += [AIMessage(raw), HumanMessage(
                f"Your reply could not be used: {exc}. Reply again with only the JSON in the "
                "requested format, nothing else.")]
            raw = await llm.acall(messages)
            parsed = parse_pairs(raw)
    except LLMFailure as exc:
        return _SetResult(failure=exc.reason)
    except ValueError:
        llm.fail("parse_error")
        return _SetResult(failure="parse_error")
    out = _SetResult(invalid=parsed.unusable)
    seen: set[tuple[int, int]] = set()
    for i, j, expl in parsed.pairs:
        if not (1 <= i <= len(qs.nodes) and 1 <= j <= len(qs.nodes)) or i == j:
            out.invalid += 1
            continue
        a, b = sorted((qs.nodes[i - 1], qs.nodes[j - 1]))
        if split is not None and not (a < split <= b):
            out.invalid += 1  # both questions from the same set: not asked in cross mode
            continue
        if (a, b) not in seen:
            seen.add((a, b))
            out.pairs.append((a, b, expl.strip()))
    return out


def find_paraphrases(questions: Sequence[tuple[str, str]], *,
                     other: Sequence[tuple[str, str]] | None = None, llm: LLM | None = None,
                     j_min: float = DEFAULT_J_MIN, r_min: float = DEFAULT_R_MIN,
                     min_shared: int = DEFAULT_MIN_SHARED, max_df: int | None = None,
                     max_set: int = DEFAULT_MAX_SET,
                     rule_threshold: float = DEFAULT_RULE_THRESHOLD) -> ParaphraseReport:
    """Paraphrase pairs among ``questions`` (``(id, text)``), or — with ``other`` — only
    between ``questions`` (set A, e.g. a fresh round) and ``other`` (set B, e.g. a static
    benchmark). ``llm=None`` uses the offline rule judge. LLM failures are counted on the
    report (``failed``, ``failures``); nothing raises for a bad reply."""
    started = time.perf_counter()
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    set_a, set_b = list(questions), list(other) if other is not None else []
    entries = set_a + set_b
    ids, texts = [e[0] for e in entries], [e[1] for e in entries]
    split = len(set_a) if other is not None else None
    n = len(entries)
    possible = len(set_a) * len(set_b) if other is not None else n * (n - 1) // 2

    cands, pstats = prefilter(texts, split=split, j_min=j_min, r_min=r_min,
                              min_shared=min_shared, max_df=max_df)
    by_pair = {(c.a, c.b): c for c in cands}
    sets = question_sets(list(by_pair), max_set)
    template = load_prompt("paraphrase_checker")

    results: list[_SetResult]
    if llm is None:
        results = []
        for qs in sets:
            res = _SetResult()
            for a, b in qs.edges:
                same, ratio = rule_paraphrase(texts[a], texts[b], rule_threshold)
                if same:
                    res.pairs.append((a, b, f"rule: normalised token_sort_ratio {ratio:.0f} "
                                            f">= {rule_threshold:g}, same question word, "
                                            "same numbers and names"))
            results.append(res)
    else:
        async def run() -> list[_SetResult]:
            return list(await asyncio.gather(*(_ask(llm, template, texts, qs, split)
                                               for qs in sets)))

        llm._semaphore = None  # a new event loop below: the runner's semaphore binds to it
        results = asyncio.run(run())

    found: dict[tuple[int, int], str] = {}
    unchecked: set[tuple[int, int]] = set()
    checked: set[tuple[int, int]] = set()
    failures: Counter[str] = Counter()
    invalid = 0
    for qs, res in zip(sets, results, strict=True):
        invalid += res.invalid
        if res.failure:
            failures[res.failure] += 1
            unchecked.update(qs.edges)
            continue
        checked.update(qs.edges)
        for a, b, expl in res.pairs:
            found.setdefault((a, b), expl)
    pairs = [ParaphrasePair(a_id=ids[a], a_text=texts[a], b_id=ids[b], b_text=texts[b],
                            explanation=expl, candidate=(a, b) in by_pair,
                            jaccard=by_pair[(a, b)].jaccard if (a, b) in by_pair else None)
             for (a, b), expl in sorted(found.items())]
    failed = sum(1 for r in results if r.failure)
    return ParaphraseReport(
        mode="cross" if other is not None else "within",
        judge="rule" if llm is None else llm.id,
        judge_identity=None if llm is None else llm.identity,
        prompt=None if llm is None else {"name": template.name,
                                              "version": template.version,
                                              "hash": template.hash},
        questions=n, set_sizes=[len(set_a), len(set_b)] if other is not None else [n],
        total_processed=len(sets), successful=len(sets) - failed, failed=failed,
        total_paraphrase_pairs=len(pairs), total_possible_pairs=possible,
        paraphrase_percentage=100.0 * len(pairs) / possible if possible else None,
        candidate_pairs=len(cands), unchecked_candidate_pairs=len(unchecked - checked),
        non_candidate_pairs=sum(not p.candidate for p in pairs), invalid_pairs=invalid,
        pairs=pairs, prefilter=pstats, failures=dict(sorted(failures.items())),
        llm=None if llm is None else llm.stats.model_copy(),
        total_processing_time=round(time.perf_counter() - started, 3), timestamp=stamp)
