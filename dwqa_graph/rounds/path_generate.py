"""Stage 4b (fact paths) — the ``paths`` generator: one item per seed graph from its paths.

For each seed graph: draw a path with r_i,t (``paths.draw``, under the round's reuse rule),
word it (``render.render``), check it, and redraw with the next attempt number until one
passes. No model: the answer is computed from the facts. The checks are the rubric's
text checks (``checks.self_contained``, ``checks.not_verbatim``) and what a path item can
get wrong beyond them:

- ``answer_in_question``: the answer is named in the question;
- ``no_shortcut``: one evidence sentence holds the answer and everything the question
  names (or, for a difference, both years): one span answers it, so it is not multi-hop;
  for a bridge or a chain, any sentence of its pages, and one that names a described
  entity with every value of its description (one lookup undoes it);
- ``seed_question``: it re-asks the seed question (same answer, same subject);
- the form's own checks (``QuestionForm.problems``: ``wrong_person``, ``posthumous``);
- ``wrong_person`` too where any form's question names a credit's person by the page title
  of another person of the name (``credits.named_role_problem``).

Answer uniqueness in the graph is the path queries' (``cypher/paths/``).

With a model (``--generator paths --llm SPEC``) the model only words the question: it gets a
path that passed every check under its template wording, the facts with their sentences and
the computed answer (``prompts/path_wording.md``); its question must pass the same checks,
name what the template names and hide what the template hides (a bridge's middle entity, the
answer). A graph tries up to ``WORDING_TRIES`` such paths; the answer is never the model's.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import random
import re
import statistics
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

from pydantic import BaseModel

from dwqa_graph.facts.models import RELATIONS
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.language.sentences import split_sentences
from dwqa_graph.llm import LLM, LLMFailure, load_prompt
from dwqa_graph.registry import GENERATORS
from dwqa_graph.rounds.checks import CheckInput, not_verbatim, self_contained
from dwqa_graph.rounds.forms import computed_from, describe, form_of, forms_theta, hops
from dwqa_graph.rounds.forms.credits import named_role_problem
from dwqa_graph.rounds.generate import Generation, PathDraw, QACandidate
from dwqa_graph.rounds.paths import (
    PATH_BATCH,
    Path,
    PathFact,
    PathGraph,
    draw,
    load_path_graphs,
    paths_of,
)
from dwqa_graph.rounds.render import TEMPLATES_VERSION, Rendered, Unworded, render
from dwqa_graph.rounds.sampling import SampleConfig, graph_seed
from dwqa_graph.rounds.timesense import fact_marks
from dwqa_graph.text import normalize_answer

#: Part of θ: bump when the same graph and r_i,t draw another path.
PATH_GENERATOR_VERSION = "20"
#: The most of a rule round's items worded by a last-resort frame (``render(last_resort=
#: True)``: "How many years after the year X ...?" and "What age did X turn in the year
#: ...?", which blind reviewers read as fill-in frames; QUALITY.md caps a set's
#: template-like items at 30%, and other frames take some of that). The graphs over the cap
#: sit the round out (``last_resort_cap``).
LAST_RESORT_SHARE = 0.15
#: Choices of wording tried for one path while the only problem is one a wording has: a
#: copied run of a page (the age frames quote "he" and the event's phrase as the page has
#: them, and a full page may say it twice). Part of θ with the version.
REWORDINGS = 3
_WORDING_PROBLEMS = {"copied_run"}


#: Paths a graph offers the model, in draw order, before it is reported without an item.
WORDING_TRIES = 3


def is_path_generator(name: str | None) -> bool:
    """Whether a round's stored generator name is the fact-path generator's (with or without
    a model wording it): only its rounds have a path pool to count collisions over."""
    return bool(name) and (name == "paths" or str(name).startswith("paths-llm:"))


class PathGenerator:
    """Fact paths worded by their forms' templates (``rounds/forms/``), or by ``llm``."""

    def __init__(self, llm: LLM | None = None, nlp: CoreNLP | None = None) -> None:
        self.llm = llm
        # marks facts time-sensitive for --time-sensitive only|exclude (None: started
        # only when a fact of a path is not marked yet)
        self.nlp = nlp
        self.prompt = load_prompt("path_wording") if llm is not None else None
        self.name = "paths" if llm is None else f"paths-llm:{llm.id}"

    def theta(self) -> dict[str, Any]:
        th: dict[str, Any] = {"generator": "paths", "version": PATH_GENERATOR_VERSION,
                              "templates": TEMPLATES_VERSION, **forms_theta()}
        if self.llm is not None and self.prompt is not None:
            th["wording"] = {"model": self.llm.identity, "prompt": self.prompt.hash,
                             "tries": WORDING_TRIES}
        return th

    def round(self, store: Store, t: int, dataset: str | None, cfg: SampleConfig,
              round_seed: int, load_texts: Callable[[list[str]], dict[str, str]],
              ) -> Generation:
        """One item per seed graph as of round ``t`` (``PathRound``)."""
        return PathRound(self, store, t, dataset, cfg, round_seed, load_texts).run()

    def candidate(self, path: Path, rendered: Rendered) -> QACandidate:
        docs = {f.version_id for f in path.facts}
        return QACandidate(
            question=rendered.question, answer=rendered.answer, pattern=rendered.pattern,
            hops=hops(path), sources=path.sources, constraints=path.constraints,
            used_facts=[f.id for f in path.facts],
            generator=f"paths-{PATH_GENERATOR_VERSION}" + (
                f"+llm:{self.llm.id}" if self.llm is not None else ""),
            detail={**rendered.detail, "answer_type": rendered.answer_type,
                    "two_option": rendered.two_option, "phrasing": rendered.phrasing,
                    "options": rendered.options, "documents": len(docs),
                    "facts": [f"{f.subject} | {f.relation} | "
                              f"{f.object or f.date or f.when or f.value}"
                              for f in path.facts]})


@GENERATORS.register("paths", summary="questions from fact paths (bridge, intersection, "
                     "linked comparison, temporal); needs `dwqa facts`; worded by "
                     "templates, or by the model with --llm")
def path_generator(llm: LLM | None = None) -> PathGenerator:
    return PathGenerator(llm)


# -- wording by a model ------------------------------------------------------------------
class _Wording(BaseModel):
    question: str


def _parse_wording(data: Any) -> _Wording:
    w = _Wording.model_validate(data)
    q = " ".join(w.question.split())
    if not q:
        raise ValueError("empty question")
    return _Wording(question=q)


def _fact_line(f: PathFact) -> dict[str, Any]:
    value = f.object or f.date or f.when or (f"{f.value:g} {f.unit or ''}".strip()
                                             if f.value is not None else None)
    return {"subject": f.subject, "relation": f.relation,
            "meaning": RELATIONS.get(f.relation, f.relation), "value": value,
            "sentence": f.evidence}


def hidden_names(path: Path, r: Rendered) -> list[str]:
    """The names the template's question leaves out (a bridge's middle entity, an
    intersection's answer), the years of the path's dates it leaves out (a difference's two
    years: naming one does a hop for the reader) and the answer: the model's question may
    not name them."""
    names = {f.subject for f in path.facts} | {f.object for f in path.facts if f.object}
    out = [n for n in sorted(names) if not _has(r.question, n)
           and not any(_has(n, a) or _has(a, n) for a in r.anchors)]
    out += sorted({str(y) for f in path.facts if (y := f.the_year) is not None
                   and not _has(r.question, str(y)) and not _has(r.answer, str(y))})
    if r.answer_type in ("entity", "date") and r.answer not in out:
        out.append(r.answer)
    return out


def wording_prompt(gen: PathGenerator, path: Path, r: Rendered) -> str:
    assert gen.prompt is not None
    return gen.prompt.render(
        form=path.form, answer=r.answer, answer_type=r.answer_type,
        facts="\n".join(json.dumps(_fact_line(f), ensure_ascii=False) for f in path.facts),
        reference=r.question, must_name=", ".join(r.anchors) or "(nothing in particular)",
        must_not_name=", ".join(hidden_names(path, r)) or "(nothing in particular)")


def wording_problems(path: Path, r: Rendered, worded: str) -> list[str]:
    """What the model's question gets wrong beyond the checks every item passes."""
    problems = []
    if not all(_has(worded, a) for a in r.anchors):
        problems.append("llm_unnamed")
    if any(_has(worded, n) for n in hidden_names(path, r)):
        problems.append("llm_reveals")
    if not worded.endswith("?"):
        problems.append("llm_not_a_question")
    return problems


async def _word(gen: PathGenerator, g: PathGraph,
                tries: list[tuple[PathDraw, Rendered]], texts: dict[str, str],
                ) -> tuple[tuple[PathDraw, QACandidate] | None, list[str]]:
    """The first of ``tries`` whose model wording passes every check."""
    assert gen.llm is not None
    reasons: list[str] = []
    for d, r in tries:
        try:
            w = await gen.llm.astructured(wording_prompt(gen, d.path, r), _parse_wording)
        except LLMFailure as exc:
            reasons.append(f"llm_{exc.reason}")
            continue
        worded = r.model_copy(update={"question": w.question, "phrasing": "llm"})
        problems = wording_problems(d.path, r, w.question) + path_problems(
            g, d.path, worded, texts)
        if problems:
            reasons += problems
            continue
        qa = gen.candidate(d.path, worded)
        qa.checks = ["self_contained", "not_verbatim", "answer_unique", "no_shortcut",
                     "names_and_hides"]
        qa.detail["template_question"] = r.question
        return (d, qa), reasons
    return None, reasons


# -- checks ------------------------------------------------------------------------------
def _has(text: str, name: str) -> bool:
    """``name`` occurs in ``text`` as whole words (a possessive counts: "Titanic's")."""
    def plain(x: str) -> str:
        return x.replace("'s ", " ").replace("\u2019s ", " ")

    n = normalize_answer(plain(name))  # "The Ferryman's Daughter" in its own name too
    text = plain(text)
    return bool(n) and f" {n} " in f" {normalize_answer(text)} "


def _page_sentences(path: Path, texts: dict[str, str]) -> list[str]:
    """The sentences of the pages the path's facts were read from (``language.sentences``,
    glued sentences cut apart): the screen for a span that answers alone reads nothing of
    them (a sentence cut too short only misses a shortcut the facts' own spans still
    catch)."""
    out: list[str] = []
    for v in dict.fromkeys(f.version_id for f in path.facts):
        out += _sentences(texts.get(v, ""))
    return out


@functools.lru_cache(maxsize=256)
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(split_sentences(text, glued=True))


def _names_all(text: str, names: list[str]) -> bool:
    """Every name is in ``text``, in full or by its last word ("Ostrem died ...")."""
    return bool(names) and all(_has(text, n) or _has(text, n.split()[-1]) for n in names)


def _chain_shortcut(path: Path, r: Rendered, answer_text: str,
                    texts: dict[str, str]) -> bool:
    """Whether one sentence of the path's pages -- any, not only the facts' own -- gives the
    answer with what the question names (a page that says "Titanic's director, born in
    1954" skips every hop), or undoes its description: names the described entity with
    every value the description states, so one lookup finds it."""
    # (a plain substring test first: a full page has hundreds of sentences per draw)
    sentences = _page_sentences(path, texts)
    if any(answer_text in x and _has(x, answer_text) and all(_has(x, a) for a in r.anchors)
           for x in sentences):
        return True
    if not path.described:
        return False
    name = path.chain[0].subject
    values = describe.stated(path.description)
    last = name.split()[-1] if name.split() else name
    return any(last in x and all(v in x for v in values) and _names_all(x, [name])
               and all(_has(x, v) for v in values) for x in sentences)


def path_problems(g: PathGraph, path: Path, r: Rendered, texts: dict[str, str]) -> list[str]:
    spans = [f.evidence for f in path.facts]
    x = CheckInput(question=r.question, spans=spans,
                   documents=[texts[v] for v in dict.fromkeys(f.version_id for f in path.facts)
                              if v in texts])
    problems = [p for p in (self_contained(x), not_verbatim(x)) if p]
    # a number gives itself away only with its unit ("44 years"): a bare number may be part
    # of a name or an ordinal
    named = r.answer_type in ("entity", "date") or (
        r.answer_type == "number" and len(r.answer.split()) > 1)
    if named and _has(r.question, r.answer):
        problems.append("answer_in_question")
    if r.answer_type == "number" or r.two_option:
        years = [str(y) for y in r.detail.get("years", [])] or \
            [d[:4] for d in r.detail.get("dates", [])]  # an age: its two days
        if years and any(all(y in x for y in years) for x in spans):
            problems.append("no_shortcut")
        # a span that states the computed number ("died at the age of 55")
        number = r.answer.split()[0]
        if r.answer_type == "number" and any(_has(x, number) for x in spans):
            problems.append("no_shortcut")
        # Beyond the path's own sentences, two things a page states in one sentence: a
        # lifespan or a stated age ("X (22 August 1934 - 7 May 2015)", "died in 2004, aged
        # 73"), and two named things with both years ("A (1962) and B (1975)"). Not one
        # subject with two years: a career summary ("reelected in 1978, 1984, ... 2008")
        # names the years, not the two events a difference asks about.
        age = "age" in r.detail
        if age or len(r.anchors) >= 2:
            # (a plain substring test first: normalising every sentence of a full page
            # for every draw would be most of a round's time)
            words = [a.split()[-1] for a in r.anchors if a.split()]
            naming = [x for x in _page_sentences(path, texts)
                      if all(w in x for w in words) and _names_all(x, r.anchors)]
            stated = re.compile(rf"\b(?:aged|age of|at age)\s+{re.escape(number)}\b|"
                                rf"\b{re.escape(number)}(?:\s+years?\s+old|-year-old)\b")
            if any(all(y in x for y in years) for x in naming) or (
                    age and any(stated.search(x) for x in naming)):
                problems.append("no_shortcut")
    else:
        answer_text = r.answer if r.answer_type == "entity" else r.answer[-4:]
        for f in computed_from(path):
            if _has(f.evidence, answer_text) and all(_has(f.evidence, a) for a in r.anchors):
                problems.append("no_shortcut")
                break
        if path.form in describe.DESCRIBABLE and _chain_shortcut(path, r, answer_text, texts):
            problems.append("no_shortcut")
    problems += form_of(path).problems(g, path, texts)
    # any form that names a credit's person (a comparison's link, a description's maker)
    if wrong := named_role_problem(path.facts, r.question):
        problems.append(wrong)
    if any(normalize_answer(a) == normalize_answer(r.answer) for a in g.answers) and any(
            _has(g.question, a) for a in r.anchors):
        problems.append("seed_question")
    return list(dict.fromkeys(problems))


# -- the round ---------------------------------------------------------------------------
class _Steer(NamedTuple):
    """What a draw may use, given the facts the previous round's items used."""

    banned: frozenset[str] = frozenset()  # no path with any of these
    leaked: frozenset[str] = frozenset()  # no path computed from these alone
    only_previous: bool = False  # only paths made of the previous facts, while there is one


def _exclude(g: PathGraph, cfg: SampleConfig, r: int, attempt: int) -> _Steer:
    """How ``cfg.reuse`` steers draw ``attempt`` of graph ``g``, given the facts the
    previous round's items used:

    * 'fresh': no path whose answer is computed from them alone (``forms.computed_from``):
      what a leaked round t lets a model compute. A path that shares one of them with a new
      fact -- a subject's birth with another of its events -- needs the new fact and is
      fresh. (Banning every shared fact, 'disjoint', empties every other round on pages
      that several seed graphs cite: their items consume the pages' few anchor facts, a
      birth or a founding, that most of the pages' paths go through.)
    * 'disjoint': no path with any of them -- possibly no path left, then the graph sits
      this round out (``no_fresh_path``); the round after, they are free again (only round
      t-1 is avoided, which is what Leak&Test leaks);
    * 'avoid': 'disjoint' before attempt ``max(1, attempts // 2)``, and while a path without
      them is left (``_draw``);
    * 'prefer': only paths made of them while there is one: the same facts asked again;
    * 'allow', a graph outside ``reuse_share``, or no previous facts: no restriction.

    It depends only on the previous facts, r and the attempt, so the same round seed over
    the same graph state gives the same items. Steering never adds a candidate: the pool K
    and the collision bound (``rounds.collisions``) are those of the unsteered pool;
    'fresh' and 'disjoint' remove t-1 -> t repeats only, and 'prefer' exceeds the bound by
    design."""
    prev = cfg.previous_facts
    if cfg.reuse == "allow" or not prev:
        return _Steer()
    if cfg.reuse_share < 1.0 and random.Random(f"{r}:reuse").random() >= cfg.reuse_share:
        return _Steer()
    if cfg.reuse == "prefer":
        return _Steer(only_previous=True)
    if cfg.reuse == "fresh":
        return _Steer(leaked=prev)
    if cfg.reuse == "avoid" and attempt >= max(1, cfg.attempts // 2):
        return _Steer()
    return _Steer(banned=prev)


def _draw(g: PathGraph, cfg: SampleConfig, r: int, attempt: int,
          taken: frozenset[str] | set[str], used: frozenset[str] = frozenset(),
          crowded: frozenset[str] = frozenset()) -> Path | None:
    """Draw ``attempt`` as ``cfg.reuse`` steers it; ``used``: the facts the round's items so
    far compute from, which a fresh round's draws prefer; ``crowded``: the facts at
    ``cfg.max_per_fact`` items, which no draw takes (``paths.draw``)."""
    steer = _exclude(g, cfg, r, attempt)
    if steer.only_previous:
        reused = g.model_copy(update={"paths": [
            p for p in g.paths if all(f.id in cfg.previous_facts for f in p.facts)]})
        return (draw(reused, r, attempt, taken=taken, crowded=crowded)
                or draw(g, r, attempt, taken=taken, crowded=crowded))
    fresh = cfg.reuse == "fresh"
    got = draw(g, r, attempt, exclude=steer.banned, leaked=steer.leaked, taken=taken,
               used=used if fresh else (), crowded=crowded,
               recent=cfg.recent.get(g.query_id, ()) if fresh else ())
    if got is None and cfg.reuse == "avoid" and steer.banned:
        return draw(g, r, attempt, taken=taken, crowded=crowded)
    return got


def _question_key(rendered: Rendered) -> str:
    return " ".join(rendered.question.casefold().split())


def _answer_keys(path: Path, rendered: Rendered) -> set[tuple[str, ...]]:
    """What a round asks once: one value asked twice (one director's birth year through two
    of his films: the fact the answer is read from, and the answer), or one event measured
    twice from a person's first year: an age ("How old did Charles III turn in the year he
    became President of the British National Rifle Association?") beside the gap from an
    event of his birth year ("How many years after the year Charles III was christened did
    he become ...?"), 29 both. A temporal item's key is the later of its two dated facts,
    the earlier one's year and the number, tagged by whether the earlier one is the birth
    (``_clashing`` says which tags meet). Two events measured from one fact are two
    questions whatever the numbers (two ages of one person; two events of one year after
    another), and so is one event measured from two events of one year (landing in Moscow
    and contacting Laura Poitras, both in 2013, before Snowden's citizenship): reviewers
    accept both, and refusing them costs the full pages, whose events crowd into a few
    years, a good part of their items (benchmarks/RESULTS.md). A number is keyed by its
    value: the frames write an age as "29" and a gap as "29 years"."""
    answer = normalize_answer(rendered.answer)
    if rendered.answer_type == "number":
        answer = answer.split(" ")[0]
    dated = sorted((f for f in computed_from(path) if f.year is not None),
                   key=lambda f: (f.date or str(f.year)))
    if path.form == "temporal" and len(dated) == 2:
        tag = "age" if dated[0].relation == "born" else "gap"
        return {(tag, dated[1].id, str(dated[0].year), answer)}
    return {("value", f.id, answer) for f in computed_from(path)}


def _clashing(key: tuple[str, ...]) -> set[tuple[str, ...]]:
    """The keys of earlier items that make ``key``'s item one question with them: an age
    clashes with an age or a gap, a gap with an age only, a value with itself."""
    tags = {"age": ("age", "gap"), "gap": ("age",)}.get(key[0], (key[0],))
    return {(tag, *key[1:]) for tag in tags}


def _worded(g: PathGraph, path: Path, seed: str, texts: dict[str, str],
            last_resort: bool = False) -> tuple[Rendered, list[str]]:
    """The path worded with the draw's own choices, and its problems; where the only problem
    is a copied run, worded again: with the same choices and its events' short phrases
    (``Path.shortened``: the run is most often the page's own long phrase), then with other
    choices (the first wording's seed is the draw's, so a path that passes is worded as
    before). ``last_resort``: as ``render``'s."""
    short = path.shortened
    wordings = [(path, seed)] + ([(short, seed)] if short else []) + [
        (short or path, f"{seed}:{n}") for n in range(1, REWORDINGS)]
    first = 0
    try:
        rendered = render(path, random.Random(seed), last_resort)
    except Unworded:
        if short is None:
            raise
        # the frames that quote an event's phrase with "he" refuse a copy of their page
        # themselves (an age turned in a year): the core may word it
        rendered, first = render(short, random.Random(seed), last_resort), 1
    problems = path_problems(g, path, rendered, texts)
    for worded, s in wordings[first + 1:]:
        if not problems or not set(problems) <= _WORDING_PROBLEMS:
            break
        try:
            again = render(worded, random.Random(s), last_resort)
        except Unworded:
            continue
        if again.question != rendered.question:
            rendered, problems = again, path_problems(g, path, again, texts)
    return rendered, problems


def _capped(done: list[tuple[PathDraw, QACandidate]], failed: dict[str, list[str]],
            round_seed: int) -> list[tuple[PathDraw, QACandidate]]:
    """The round's items with at most ``LAST_RESORT_SHARE`` of them last-resort wordings:
    k of L such items among n kept with k <= share * (n - L + k). Which graphs keep theirs
    depends on the round seed only."""
    last = [d.query_id for d, qa in done if qa.detail.get("last_resort")]
    n, share = len(done), LAST_RESORT_SHARE
    keep = int(share * (n - len(last)) / (1 - share))
    if len(last) <= keep:
        return done
    kept = set(sorted(last, key=lambda q: random.Random(f"{round_seed}:{q}:cap").random())
               [:keep])
    for q in set(last) - kept:
        failed[q] = ["last_resort_cap"]
    return [(d, qa) for d, qa in done
            if not qa.detail.get("last_resort") or d.query_id in kept]


def is_wordable(p: Path, last_resort: bool = True) -> bool:
    """Whether a template words the path (as it is, or by its events' cores; without
    ``last_resort``, by the frames reviewers did not read as fill-in frames)."""
    for q in (p, p.shortened):
        try:
            if q is not None:
                render(q, random.Random(0), last_resort)
                return True
        except Unworded:
            pass
    return False


def wordable(g: PathGraph, last_resort: bool = True) -> PathGraph:
    """The graph with only the paths a template words (``is_wordable``): a path no template words
    -- an age whose every frame copies its sentence -- is no candidate. It takes none of a
    graph's draws (``SampleConfig.attempts``) and does not count in its pool K (here, in
    ``bench_paths`` and in ``dwqa round collisions``)."""
    return g.model_copy(update={"paths": [p for p in g.paths if is_wordable(p, last_resort)]})


def askable(g: PathGraph, p: Path, texts: dict[str, str]) -> bool:
    """Whether a rule round can ask ``p``: a template words it and, under one of the first
    ``REWORDINGS`` draw seeds, the wording passes every check against its pages ``texts``
    (version id -> text). A wordable path may still never pass: a phrase of eight words
    copies its sentence in any frame, a page states both years in one sentence."""
    if not is_wordable(p):
        return False
    last_resort = not is_wordable(p, last_resort=False)
    for seed in range(REWORDINGS):
        try:
            _, problems = _worded(g, p, f"askable:{seed}", texts, last_resort)
        except Unworded:
            continue
        if not problems:
            return True
    return False


def checked_pool_levels(store: Store, graphs: list[dict[str, Any]],
                        ) -> dict[str, Counter[tuple[int, int]]]:
    """Per entry of ``graphs`` ([{query_id, versions}]), the ``askable`` paths by (hops,
    constraints): the candidates a rule round can actually draw, their sum K
    (``rounds.collisions.by_setting`` reads K per setting from it). ``paths.pool_sizes``
    with ``is_wordable`` counts the paths a template words, an upper bound; this reads the
    pages' texts and checks every path, about a second per full-page graph. The seed
    question's own re-asking is not checked: the entries are evidence sets, not queries."""
    k: dict[str, Counter[tuple[int, int]]] = {g["query_id"]: Counter() for g in graphs}
    for i in range(0, len(graphs), PATH_BATCH):
        batch = graphs[i:i + PATH_BATCH]
        versions = sorted({v for g in batch for v in g["versions"]})
        texts = {r["id"]: r["text"] for r in store.query("rounds/version_texts", ids=versions)}
        for q, paths in paths_of(store, batch).items():
            g = PathGraph(query_id=q, question="", evidence_round=0, documents=[], paths=paths)
            k[q] = Counter((hops(p), p.constraints) for p in paths if askable(g, p, texts))
    return k


def _by_time_sense(store: Store, graphs: list[PathGraph], cfg: SampleConfig,
                   nlp: CoreNLP | None) -> list[PathGraph]:
    """The graphs with the paths ``cfg.time_sensitive`` draws: a path is time-sensitive
    when a fact of it is (``timesense.fact_marks``, as ``round verify`` marks items)."""
    if cfg.time_sensitive == "any":
        return graphs
    marks = fact_marks(store, [(f.id, f.evidence, f.verb or None) for g in graphs
                               for p in g.paths for f in p.facts], nlp)
    want = cfg.time_sensitive == "only"
    return [g.model_copy(update={"paths": [p for p in g.paths if any(
        marks[f.id] for f in p.facts) == want]}) for g in graphs]


class PathRound:
    """One round of the paths generator: one item per seed graph from its path pool, and
    the round's counts (rejections, attempts, pool sizes). ``run`` takes the steps in order:

    1. ``load``: the seed graphs as of round t, each with the paths a template words, split
       into those the plain frames word and those only a last-resort frame words;
    2. ``draw_firsts``: per graph, the first path in draw order that passes every check
       under its template wording (``search``), from the plain paths first;
    3. without a model, ``cap_last_resort``; with one, ``offer_spares`` (each graph's next
       paths) and ``word_by_model``.

    What the round holds across graphs: the paths asked (``taken``; graphs that share pages
    share paths, a round asks each once) and their questions (``asked``: each once too),
    the facts they compute from (``used``), what makes each item one question (``answered``:
    no two items are one, ``_answer_keys``), how many items name each fact (``named``), and
    the pages' texts, read once per round."""

    def __init__(self, gen: PathGenerator, store: Store, t: int, dataset: str | None,
                 cfg: SampleConfig, round_seed: int,
                 load_texts: Callable[[list[str]], dict[str, str]]) -> None:
        self.gen, self.store, self.t, self.dataset = gen, store, t, dataset
        self.cfg, self.round_seed, self.load_texts = cfg, round_seed, load_texts
        self.graphs: list[PathGraph] = []
        self.plain: dict[str, PathGraph] = {}
        self.last: dict[str, PathGraph] = {}
        self.done: list[tuple[PathDraw, QACandidate]] = []
        self.failed: dict[str, list[str]] = {}
        self.rejected: Counter[str] = Counter()
        self.attempts = 0
        self.taken: set[str] = set()
        self.asked: set[str] = set()
        self.used: set[str] = set()
        self.named: Counter[str] = Counter()
        self.answered: set[tuple[str, ...]] = set()
        self.texts: dict[str, str] = {}
        # with a model: the paths each graph offers it, checked under their template wording
        self.offers: dict[str, list[tuple[PathDraw, Rendered]]] = {}

    def run(self) -> Generation:
        self.load()
        self.draw_firsts()
        if self.gen.llm is None:
            self.cap_last_resort()
        else:
            self.offer_spares()
            self.word_by_model()
        return self.graphs, self.done, self.failed, self.stats()

    def load(self) -> None:
        """First the wordings reviewers read as questions; a graph that gets no item from
        them draws again from the paths only a last-resort frame words (each path is
        rendered once for its class, twice only where the plain frames fail)."""
        for g in _by_time_sense(self.store, load_path_graphs(self.store, self.t, self.dataset),
                                self.cfg, self.gen.nlp):
            g = g.model_copy(update={"paths": [
                p for p in g.paths if self.cfg.admits(hops(p), p.sources, p.constraints)]})
            kind = {p.key: "plain" if is_wordable(p, last_resort=False)
                    else "last" if is_wordable(p) else None for p in g.paths}
            self.plain[g.query_id], self.last[g.query_id] = (
                g.model_copy(update={"paths": [p for p in g.paths if kind[p.key] == k]})
                for k in ("plain", "last"))
            self.graphs.append(g.model_copy(update={"paths": [p for p in g.paths
                                                              if kind[p.key]]}))

    def search(self, g: PathGraph, r: int, want: int, reasons: list[str],
               last_resort: bool = False) -> list[tuple[PathDraw, Rendered]]:
        """Graph ``g``'s first ``want`` paths that pass every check under their template
        wording, among those no graph took before; each is taken for the round. (The draw
        order is over the paths not taken when the search starts: taking one must not shift
        the order the next attempt reads.)"""
        got: list[tuple[PathDraw, Rendered]] = []
        taken_before, used_before = frozenset(self.taken), frozenset(self.used)
        cap = self.cfg.max_per_fact
        crowded = frozenset() if cap is None else frozenset(
            f for f, n in self.named.items() if n >= cap)
        for attempt in range(self.cfg.attempts):
            path = _draw(g, self.cfg, r, attempt, taken_before, used_before, crowded)
            if path is None:
                reasons.append("no_path" if not g.paths else
                               "no_fresh_path" if attempt == 0 else "paths_exhausted")
                return got
            self.attempts += 1
            missing = sorted({f.version_id for f in path.facts} - set(self.texts))
            if missing:
                self.texts.update(self.load_texts(missing))
            try:
                rendered, problems = _worded(g, path, f"{r}:{attempt}", self.texts,
                                             last_resort)
            except Unworded as exc:
                reasons.append(exc.reason)
                self.rejected[exc.reason] += 1
                continue
            if problems:
                reasons += problems
                self.rejected.update(problems)
                continue
            if self.asks_again(rendered):
                reasons.append("same_question")
                self.rejected["same_question"] += 1
                continue
            keys = _answer_keys(path, rendered)
            if self.answers_again(keys):
                reasons.append("same_answer")
                self.rejected["same_answer"] += 1
                continue
            self.asked.add(_question_key(rendered))
            self.answered.update(keys)
            self.taken.add(path.key)
            self.used.update(f.id for f in computed_from(path))
            self.named.update({f.id for f in path.facts})
            got.append((PathDraw(g.query_id, r, attempt, path), rendered))
            if len(got) == want:
                return got
        reasons.append("attempts_exhausted")
        return got

    def asks_again(self, rendered: Rendered) -> bool:
        """Whether the round already asks this question: two paths of other facts can word
        the same ("the year Anton Reske founded Nordlicht Studios" read from his page and,
        as the studio's founding by its maker, from the studio's), and graphs that share
        pages may each draw one."""
        return _question_key(rendered) in self.asked

    def answers_again(self, keys: set[tuple[str, ...]]) -> bool:
        """Whether the round already has an item that asks, in other words, the one keyed
        ``keys`` (``_answer_keys``)."""
        return any(_clashing(k) & self.answered for k in keys)

    def firsts(self, g: PathGraph, r: int, want: int,
               reasons: list[str]) -> list[tuple[PathDraw, Rendered]]:
        """``search`` over the plain paths, then over the last-resort ones."""
        got = self.search(self.plain[g.query_id], r, want, reasons)
        if len(got) < want and self.last[g.query_id].paths:
            got += self.search(self.last[g.query_id], r, want - len(got), reasons,
                               last_resort=True)
        return got

    def draw_firsts(self) -> None:
        """Each graph's first passing path, in graph order: an item by its template wording,
        or the model's first offer."""
        for g in self.graphs:
            reasons: list[str] = []
            first = self.firsts(g, graph_seed(self.round_seed, g.query_id), 1, reasons)
            if not first:
                self.failed[g.query_id] = reasons
            elif self.gen.llm is not None:
                self.offers[g.query_id] = first
            else:
                d, rendered = first[0]
                qa = self.gen.candidate(d.path, rendered)
                qa.checks = ["self_contained", "not_verbatim", "answer_unique", "no_shortcut"]
                self.done.append((d, qa))

    def offer_spares(self) -> None:
        """Each graph's next paths, offered if the model's wording of the first is refused:
        drawn once every graph has its first, so no graph's spares take the path another
        graph would have been asked (graphs share pages; a round asks each path once)."""
        for g in self.graphs:
            if g.query_id in self.offers:
                r = self.offers[g.query_id][0][0].r
                self.offers[g.query_id] += self.firsts(g, r, WORDING_TRIES - 1, [])

    def word_by_model(self) -> None:
        """Every graph's offers worded by the model at once; a graph's item is the first
        wording that passes."""
        by_id = {g.query_id: g for g in self.graphs}

        async def word_all() -> list[tuple[tuple[PathDraw, QACandidate] | None, list[str]]]:
            return await asyncio.gather(*(_word(self.gen, by_id[q], tries, self.texts)
                                          for q, tries in self.offers.items()))

        for q, (got, reasons) in zip(self.offers, asyncio.run(word_all()), strict=True):
            self.rejected.update(reasons)
            if got is None:
                self.failed[q] = reasons
            else:
                self.done.append(got)
        # a round lists its items in graph order, whatever order the model answered in
        order = {g.query_id: i for i, g in enumerate(self.graphs)}
        self.done.sort(key=lambda d: order[d[0].query_id])

    def cap_last_resort(self) -> None:
        self.done = _capped(self.done, self.failed, self.round_seed)

    def stats(self) -> dict[str, Any]:
        return {"attempts": self.attempts, "rejected": dict(sorted(self.rejected.items())),
                "pool": [len(g.paths) for g in self.graphs]}


def set_quality(items: list[QACandidate], pool: list[int], horizon: int = 5) -> dict[str, Any]:
    """A round's set-level numbers (QUALITY.md "What a set needs"): two-option share, answer
    types, forms, relations, distinct phrasings, the median pool K over its seed graphs and
    the collision bound t(t-1)/(2K) at ``horizon`` rounds for that K (J = K: evidence
    unchanged between rounds, the worst case)."""
    n = len(items)
    k = statistics.median(pool) if pool else 0
    # variety: how many items name one fact (graphs citing one page share its facts), and
    # items on a pair of facts another item already asks about (QUALITY.md: none)
    named = Counter(f for q in items for f in set(q.used_facts))
    item_pairs = [{frozenset(c) for c in itertools.combinations(set(q.used_facts), 2)}
                  for q in items]
    pairs = Counter(p for ps in item_pairs for p in ps)
    return {
        "two_option_share": round(sum(bool(q.detail.get("two_option")) for q in items) / n, 4)
        if n else 0.0,
        "answer_types": dict(sorted(Counter(str(q.detail.get("answer_type"))
                                            for q in items).items())),
        "relations": dict(sorted(Counter(
            f.split(" | ")[1] for q in items for f in q.detail.get("facts", [])).items())),
        "phrasings": len({q.detail.get("phrasing") for q in items}),
        "most_items_naming_one_fact": max(named.values(), default=0),
        "items_on_a_repeated_fact_pair": sum(any(pairs[p] > 1 for p in ps)
                                             for ps in item_pairs),
        "median_k": k,
        "collision_bound": {"rounds": horizon,
                            "bound": round(min(1.0, horizon * (horizon - 1) / (2 * k)), 4)
                            if k else 1.0},
    }
