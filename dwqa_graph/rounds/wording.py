"""The rule generator's own words: events and quantities from one claim.

No quoting: an event is named by its subject and action ("Sinister was released", "Solvane
Energy was founded"), a quantity by its holder and noun ("the final cost of the Valmora
Riverside Tramway"), an entity by what a claim says about it ("directed a 2012 supernatural
horror film"). Each phrase is compressed so that no run of 8 words is copied from the claim
(checks.VERBATIM_RUN). Anything that does not fit these shapes gives no phrase (None): the
generator then reports the graph without an item rather than writing a bad one.
"""

from __future__ import annotations

import re

from dwqa_graph.claims.features import MONTH_PATTERN
from dwqa_graph.rounds.checks import VERBATIM_RUN, copied_run, life_role, year_role_problem
from dwqa_graph.rounds.kinds import same_person

_PRONOUN = re.compile(r"^(?:he|she|it|they|his|her|its|their)\b", re.I)
_THE_NOUN = re.compile(r"^the (?:film|band|album|song|single|company|group|team|club|series|"
                       r"show|book|novel|game|consortium|station|school|university|building|"
                       r"player|singer|actor|actress|artist|town|city|village|county|river|"
                       r"event|race|magazine|newspaper|party|project|plant|factory)\b", re.I)
_DATE = re.compile(
    rf"(?:\b(?:in|on|from|since|by|during|until|as of|in early|in late|in mid|late on|early on)"
    rf"\s+)?(?:\b\d{{1,2}}\s+{MONTH_PATTERN}\.?,?\s+\d{{4}}|\b{MONTH_PATTERN}\.?\s+\d{{1,2}}"
    rf"(?:st|nd|rd|th)?,?\s+\d{{4}}|\b{MONTH_PATTERN}\.?\s+\d{{4}}|\b\d{{4}}-\d\d-\d\d|"
    rf"\b(?:1[5-9]|20)\d\d\b)", re.I)
# Past forms of actions that have a date, and how the action reads in a clause.
EVENT_VERBS = ("founded established formed created released published premiered launched "
               "opened reopened closed completed built began started ended won received signed "
               "joined left married died appointed elected debuted acquired bought sold "
               "announced introduced moved became retired resigned returned breached reached "
               "raised approved awarded ordered delivered reduced merged renamed rebranded "
               "reissued recorded broke began hit struck unveiled inaugurated dissolved "
               "discovered invented designed renovated expanded withdrawn withdrew cancelled "
               "postponed relaunched re-released aired debuted won lost defeated qualified "
               "graduated enrolled emigrated converted adopted passed enacted agreed uncovered "
               "found fired voted named starred moved rose fell installed confirmed "
               "replaced hired sacked signed settled approved decided made increased "
               "decreased grew doubled peaked flooded collapsed burst").split() + ["gave way"]
_EVENT_VERB = re.compile(r"\b(?:(?:was|were|had been|has been|have been|is|are)\s+)?"
                         r"(?P<verb>" + "|".join(sorted(set(EVENT_VERBS), key=len,
                                                         reverse=True)) + r")\b", re.I)
_WORK = re.compile(r"^(?P<s>[^,()]+?)(?:\s*\([^()]*\))?\s+(?:is|was)\s+an?\s+(?P<year>\d{4})\s+"
                   r"(?P<desc>(?:[\w'’-]+\s+){0,6}?)(?P<kind>film|album|novel|book|song|single|"
                   r"video game|game|EP|documentary|television series|series|play|musical|"
                   r"opera|compilation album|studio album|live album|box set|mixtape|anime|"
                   r"sitcom|comedy|drama|thriller|miniseries|short film)\b", re.I)
_PUBLISHED = frozenset({"novel", "book"})
_PREMIERED = frozenset({"television series", "series", "play", "musical", "opera", "sitcom",
                        "miniseries", "anime"})
_STOP_OBJECT = re.compile(r"\s*(?:,|;|\(|\bthen\b|\balso\b|\bwhich\b|\bwho\b|\bwhen\b|"
                          r"\bwhere\b|\bafter\b|"
                          r"\bbefore\b|\bbecause\b|\bdue to\b|\bwhile\b|\bwith\b|\bas\b|"
                          r"\bthat\b|\band\b|\bbut\b|\bto\b|\bfor\b|\bin\b|\bon\b|\bat\b|"
                          r"\bfrom\b|\bby\b|\bof the\b|\bduring\b)")


def _clean(text: str) -> str:
    text = re.sub(r"\([^()]*\)", "", text)
    text = re.sub(r"\s*[\"“][^\"“”]{1,30}[\"”]\s*(?=[A-Z])", " ", text)  # a nickname
    text = re.sub(r"[\"“”]", "", text)
    return re.sub(r"\s+([,.;:])", r"\1", " ".join(text.split())).strip(" ,;:.")


def subject_of(text: str, entity: str | None, title: str | None) -> str | None:
    """The claim's grammatical subject, a pronoun or "the film" replaced by the title
    subject (HotpotQA paragraphs) or the shared entity."""
    t = re.sub(r"^(?:In|On|By|From|Since|During)\s+(?:the\s+)?[\w\s,]{0,30}?\d{4},?\s+", "",
               text.strip())
    t = re.sub(r"^(?:Originally|Later|Also|Then|However|Meanwhile),?\s+", "", t)
    m = _EVENT_VERB.search(t)
    head = t[:m.start()] if m else ""
    head = _clean(head)
    if not head or _PRONOUN.match(head) or _THE_NOUN.match(head) and len(head.split()) <= 2:
        return _clean(title or entity or "") or None
    head = re.split(r",?\s+(?:which|who)\b", head)[0]  # "X, which was flooded, reopened"
    appositive = re.match(r"^((?:[A-Z][\w'’.-]*\s?){1,5}),\s+[a-z][^,]{2,80},?\s*$", head + " ")
    if appositive:  # "Agnes Pohl, director of the Water Board, resigned"
        return _clean(appositive.group(1))
    if len(head.split()) > 7 or "," in head:
        cop = re.match(r"^(.{1,60}?)\s+(?:is|was|are|were)\s", head)
        if cop and len(cop.group(1).split()) <= 6:
            return _clean(cop.group(1))
        name = re.match(r"^((?:[A-Z][\w'’.-]*\s)+)(?=[a-z])", head + " ")
        return _clean(name.group(1)) if name and len(name.group(1).split()) <= 5 else None
    return head


class _Next:
    """Returned by an event form that does not apply: try the next one."""


_NEXT = _Next()


def event_clause(text: str, year: int, entity: str | None, title: str | None) -> str | None:
    """"<subject> <action> [<object>]" for the event dated ``year`` in ``text``, or None
    when the year is not an event's date (a lifespan, a title year, a parenthetical) or
    the action is not one this generator can name. The forms are tried in order; the first
    that applies decides."""
    role = life_role(text, year)
    if role:  # "Henry John Kaiser (May 9, 1882 – August 24, 1967) was ...": born 1882
        name = _person(text.split("(", 1)[0], title)
        return f"{name} was born" if role == "born" else f"{name} died"
    if year_role_problem(text, year):
        return None
    y, pos = str(year), text.find(str(year))
    for form in (_work_clause, _appositive_clause, _lead_clause, _life_clause, _tenure_clause,
                 _period_clause, _verb_clause):
        out = form(text, y, pos, entity, title)
        if not isinstance(out, _Next):
            return out
    return None


def _work_clause(text: str, y: str, pos: int, entity: str | None,
                    title: str | None) -> str | None | _Next:
    """A work and its release: "the film True Lies was released"."""
    m = _WORK.match(text)
    if m and m.group("year") == y:
        kind = m.group("kind").lower()
        verb = ("published" if kind in _PUBLISHED else "first aired" if kind in _PREMIERED
                else "released")
        wsubj = _clean(m.group("s"))
        if _PRONOUN.match(wsubj) or _THE_NOUN.match(wsubj):
            wsubj = _clean(title or entity or "")
        if not wsubj:
            return None
        rel = re.search(r"\b(?P<r>directed|produced|written|starring|featuring|created|"
                        r"developed|published|recorded|performed|by)(?:\s+and\s+\w+)?"
                        r"(?:\s+by)?\s+(?P<e>" + re.escape(entity) + r")\b", text) \
            if entity and entity not in wsubj else None
        if rel:  # "the film True Lies, starring Arnold Schwarzenegger, was released"
            by = "" if rel.group("r") in ("starring", "featuring", "by") else " by"
            wsubj = f"{wsubj}, {rel.group('r')}{by} {rel.group('e')},"
        clause = f"the {kind} {wsubj} was {verb}" if verb != "first aired" else \
            f"the {kind} {wsubj} first aired"
        return compress(clause, text) if len(clause.split()) >= 8 else clause
    return _NEXT


def _appositive_clause(text: str, y: str, pos: int, entity: str | None,
                          title: str | None) -> str | None | _Next:
    """"X, a company founded in 1998": "X was founded"."""
    ap = re.match(r"^(?P<x>[A-Z][^,()]{1,60}?)(?:\s*\([^()]*\))?,\s+an?\s+[^,]{0,60}?\b"
                  r"(?P<v>founded|established|formed|created|opened|built|launched|released)\b"
                  r"[^,]{0,20}?" + y, text)
    if ap:
        return compress(f"{_clean(ap.group('x'))} was {ap.group('v')}", text)
    return _NEXT


def _lead_clause(text: str, y: str, pos: int, entity: str | None,
                    title: str | None) -> str | None | _Next:
    """"Released in 1990, ...": the participle's subject is the title subject."""
    lead = re.match(r"^(?:Originally\s+)?(?P<v>Released|Founded|Formed|Built|Published|Opened|"
                    r"Established|Launched|Completed)\s+(?:in|on)\s+[^,]{0,25}?" + y, text)
    if lead:  # "Released in 1990, ...": the participle's subject is the title subject
        who = _clean(title or entity or "")
        return f"{who} was {lead.group('v').lower()}" if good_subject(who) else None
    return _NEXT


def _person(name: str, title: str | None) -> str:
    """The name a person goes by: the title's when it is the same person ("Peter Bolesław
    Schmeichel MBE" is known as "Peter Schmeichel", "Henry John Kaiser" as "Henry J.
    Kaiser", "Terrence "Uncle Terry" Richardson" as "Terry Richardson")."""
    if title and same_person(name, title):
        return title
    return _clean(name)


def _life_clause(text: str, y: str, pos: int, entity: str | None,
                    title: str | None) -> str | None | _Next:
    """Births and deaths."""
    born = re.match(r"^(?P<x>[A-Z][^,()]{1,60}?)\s*\((?:born|b\.)", text)
    if born and re.search(r"\bborn\b", text[max(0, pos - 60):pos]):
        return f"{_person(born.group('x'), title)} was born"
    if re.search(r"\bborn\b", text[max(0, pos - 60):pos]):
        subj = subject_of(text, entity, title) or entity
        return f"{subj} was born" if subj else None
    if re.search(r"\bdied\b", text[max(0, pos - 40):pos]):
        subj = subject_of(text, entity, title) or entity
        return f"{subj} died" if subj else None
    return _NEXT


def _tenure_clause(text: str, y: str, pos: int, entity: str | None,
                      title: str | None) -> str | None | _Next:
    """A year that starts or ends a tenure ("managed X from 1945 to 1969")."""
    tenure = re.search(r"\b(?P<verb>managed|coached|served as|served|led|played for|chaired|"
                       r"hosted|edited|ran|governed|directed|captained)\s+(?P<obj>[^,;()]{2,50}?)"
                       r"\s+(?:from|between)\s+(?:\w+\s+){0,2}(?P<a>\d{4})\s*(?:to|and|-|–)\s*"
                       r"(?:\w+\s+){0,2}(?P<b>\d{4})", text)
    if tenure and y in (tenure.group("a"), tenure.group("b")):
        subj = subject_of(text, entity, title)
        gerund = {"managed": "managing", "coached": "coaching", "served as": "serving as",
                  "served": "serving", "led": "leading", "played for": "playing for",
                  "chaired": "chairing", "hosted": "hosting", "edited": "editing",
                  "ran": "running", "governed": "governing", "directed": "directing",
                  "captained": "captaining"}[tenure.group("verb")]
        start = "began" if y == tenure.group("a") else "stopped"
        obj = " ".join(_clean(tenure.group("obj")).split()[:5])
        if good_subject(subj) and tenure.group("a") != tenure.group("b"):
            return compress(f"{subj} {start} {gerund} {obj}", text)
        return None
    return _NEXT


def _period_clause(text: str, y: str, pos: int, entity: str | None,
                      title: str | None) -> str | None | _Next:
    """A year bounding a period is no event's date."""
    if re.search(rf"\b(?:between|from)\s+(?:[\w,]+\s+){{0,3}}{y}\s+(?:and|to|until)\b", text) \
            or re.search(rf"\b(?:between|from)\s+[^.;]{{0,30}}\b(?:and|to|until)\s+"
                         rf"(?:[\w,]+\s+){{0,3}}{y}\b", text):
        return None  # a year bounding a period ("between November 2024 and February 2025")
    return _NEXT


def _verb_clause(text: str, y: str, pos: int, entity: str | None,
                    title: str | None) -> str | None | _Next:
    """The event verb of the year's clause, its subject and its object."""
    # The event verb of the year's clause: the last one before the year within the clause,
    # or the first after "In 1998, ...".
    clause_start = max(text.rfind(",", 0, pos), text.rfind(";", 0, pos), -1) + 1
    before = list(_EVENT_VERB.finditer(text, 0, pos))
    after = _EVENT_VERB.search(text, pos)
    if before and before[-1].start() >= clause_start - 80:
        vm = before[-1]
    elif after and text[pos + 4:after.start()].count(",") <= 1 and (re.match(
            r"^(?:In|On|By|Since)\b", text[max(0, clause_start - 1):].strip() or text) or
            re.match(rf"^(?:In|On|By|Since|During)\s+[\w\s,]{{0,30}}?{y},", text)):
        vm = after
    else:
        return None
    if re.search(r"\b(?:which|who|that)\s+(?:\w+\s+){0,2}$", text[:vm.start()]) or \
            _DATE.search(text, vm.end(), pos) or pos > vm.end() and re.search(
                r"\b(?:record|previous|above|below|than|compared|since|until|from)\b|\d",
                text[text.rfind(",", vm.end(), pos) + 1:pos]) and "," in text[vm.end():pos]:
        # "..., which opened in 2021" belongs to the relative clause's noun; "approved on 21
        # March 2019 with ... a planned opening in December 2022": the verb has its own date;
        # "peaked at 6.8 metres on 19 July, 0.9 metres above the previous record from 1987":
        # a year in a later phrase that compares or measures belongs to that phrase.
        return None
    subj = subject_of(text, entity, title)
    # A second clause has its own subject: "... and his pay increased to ... from 2000".
    conj = [m.end() - 1 for m in re.finditer(r"\s(?:and|after|when|because|before|as|since|"
                                             r"while|until)\s", text[:vm.start()])
            if not re.search(r"\bbetween\s+(?:\S+\s+){0,2}\S+$", text[:m.start()])]
    bound = max([text.rfind(",", 0, vm.start()), text.rfind(";", 0, vm.start()), *conj])
    if bound > 0 and subj:
        local = _clean(text[bound + 1:vm.start()])
        local = re.sub(r"^(?:and|but|while|then)\s+", "", local)
        owner = re.match(r"^(?:his|her|its|their)\s+(.+)$", local, re.I)
        if owner and len(owner.group(1).split()) <= 3:
            subj = f"{subj}'s {owner.group(1)}"
        elif local and not _PRONOUN.match(local) and len(local.split()) <= 5 and \
                local[:1].isupper():
            subj = local
    verb = vm.group(0)
    cop = re.match(r"^(?P<x>[A-Z][^,()]{1,60}?)\s+(?:is|was|are|were)\s+(?:an?|the)\s+",
                   text)
    if cop and cop.end() <= vm.start() and not verb.lower().startswith(("was", "were")):
        subj, verb = _clean(cop.group("x")), f"was {verb}"  # "X was a school founded by"
    if not subj:
        return None
    if re.match(r"^(?:is|are)\s", verb, re.I):
        verb = re.sub(r"^(?:is|are)", "was", verb)
    rest = text[vm.end():]
    rest = _DATE.sub("", rest, count=1) if rest.lstrip().startswith(
        ("in ", "on ", "In ", "On ")) else rest
    amount = re.match(r"^\s*(to|by)\s+([$€£]?[\d.,]+(?:\s+(?:million|billion|percent|per "
                      r"cent|%))?(?:\s+[a-z]+){0,3}?)(?=\s+(?:from|in|on|by|after|before|"
                      r"and)\b|[,.;]|$)", rest)
    stop = _STOP_OBJECT.search(rest)
    obj = _clean(amount.group(0) if amount else rest[:stop.start()] if stop else rest)
    obj = " ".join(obj.split()[:5]) if amount else _whole(obj.split()[:5])
    named = re.match(r"^\s*(?:the|a|an)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:of|for|on|to)\s+(?:the\s+)?"
                     + re.escape(entity) + r"\b", rest) if entity and not amount and \
        entity not in subj and entity not in obj and not verb.lower().startswith(
            ("was", "were")) else None
    if named and entity:
        # "approved the construction of the Valmora Riverside Tramway": "approved the
        # Valmora Riverside Tramway" names what connects it, in fewer copied words.
        obj = ("the " if re.search(r"\bthe\s+$", named.group(0)[:-len(entity)]) else "") + entity
    if obj and _DATE.fullmatch(obj.strip()):
        obj = ""
    if verb.split()[-1] in ("became", "made", "won", "received", "signed", "joined", "reached",
                            "agreed", "decided", "confirmed", "found", "named", "voted",
                            "raised", "ordered", "acquired", "bought", "sold", "announced",
                            "introduced", "broke", "moved") and not obj:
        return None  # "became" what? the action needs its object
    if not good_subject(subj):
        return None
    if not obj and " " not in verb and verb.lower() in ("released", "founded", "established",
                                                         "published", "opened", "built",
                                                         "launched", "completed", "formed",
                                                         "created", "designed"):
        verb = f"was {verb}"  # "Apple Remote Desktop, first released in 2002"
    if re.search(r"\b(?:has|have)\s+\w+", text[max(0, vm.start() - 10):vm.end()]) or \
            re.search(r"\bsince\s+(?:\w+\s+){0,2}$", text[:pos]):
        return None  # "has published a novel a year since 2000": a state, not an event
    clause = " ".join(x for x in (subj, verb.lower(), obj) if x)
    clause = _clean(_DATE.sub("", clause))
    return compress(clause, text)


def _whole(words: list[str]) -> str:
    """A cut object that does not end on a bare figure or a function word ("a seed round of
    4.5" lost its "million euros": "a seed round")."""
    while words and (words[-1].lower() in _TRAILING or re.fullmatch(r"[$€£]?[\d.,]+", words[-1])):
        words = words[:-1]
    return " ".join(words)


_FUNCTION_CAPS = frozenset("the a an there it this that these those he she they we in on at by "
                           "for from after before during when while some most many all both "
                           "each complaints workers crews".split()) | frozenset(
                               "january february march april may june july august september "
                               "october november december".split())


def good_subject(subj: str | None) -> bool:
    """A subject names someone or something: a capitalised word that is not a function word
    ("There", "The"), and it does not end on a function word."""
    if not subj:
        return False
    words = subj.replace("'s", "").split()
    named = [w for w in words if w[:1].isupper() and w.lower() not in _FUNCTION_CAPS]
    return bool(named) and words[-1].lower() not in _TRAILING and len(words) <= 8


_TRAILING = frozenset("of the a an in on at to for from by since and or with as its his her "
                      "their than about after before into over under".split())


#: Words a phrase may be cut before: what follows them is a complement, not the head.
_CUT_AT = frozenset("in on at to for from by with after before during when while which who "
                    "that as and but since until near into over under through".split())


def compress(phrase: str, source: str) -> str | None:
    """Drop trailing words until no run of VERBATIM_RUN words is copied from ``source``
    and the phrase does not end on a function word."""
    words = phrase.split()
    full = len(words)
    while len(words) >= 2:
        while words and words[-1].lower() in _TRAILING:
            words = words[:-1]
        if len(words) >= 2 and not copied_run(" ".join(words), [source], VERBATIM_RUN):
            if len(words) < full and phrase.split()[len(words)].lower().strip(",") \
                    not in _CUT_AT:
                # "uncovered rows" (of oak piles), "announced its second-generation"
                # (sodium-ion cell): a cut inside a noun phrase leaves a fragment.
                return None
            return " ".join(words)
        words = words[:-1]
    return None


# -- quantities ----------------------------------------------------------------------------
_QUANTITY_NOUN = re.compile(
    r"(?P<noun>(?:final |total |approved |estimated |planned |annual |original |initial |"
    r"revised |first-month |daily |average )?(?:cost|budget|price|bid|capacity|population|"
    r"ridership|revenue|gross|salary|fee|grant|fund|damage|loan|investment|length|area|"
    r"height|depth|passengers|riders|sales|spending|estimate|deficit|funding))\b"
    r"(?:\s+\w+){0,4}?\s+(?:of|was|is|were|at|to|reached|rose to|fell to|totalled|"
    r"totaled|stood at|amounted to|of about|of around|of up to)\s+(?:about |around |nearly |"
    r"almost |up to |over |more than |some )?$", re.I)


_RATE = re.compile(r"^[\d.,]+\s+(?:passengers|riders|journeys|trips|visitors)\s+(?:a|per)\s+"
                   r"(?P<per>day|weekday|week|month|year)\b", re.I)
_PERIOD = {"day": "daily", "weekday": "weekday", "week": "weekly", "month": "monthly",
           "year": "annual"}


def quantity_name(text: str, raw: str, holder: str | None,
                  fallback: str | None = None) -> str | None:
    """"the <noun> of <holder>" for the figure ``raw`` in ``text`` (the noun that names what
    the figure measures, found just before it), or None."""
    pos = text.find(raw)
    if pos < 0:
        return None
    window = text[max(0, pos - 80):pos]
    m = _QUANTITY_NOUN.search(window)
    rate = _RATE.match(text[pos:])
    carrier = re.match(r"^(?P<h>(?:The\s+)?(?:[A-Z][\w'’-]*\s){1,5})carried\b", text)
    if m:
        noun = m.group("noun").lower()
    elif rate and carrier:
        # "The Valmora Riverside Tramway carried an average of 21,300 passengers per weekday":
        # the opening name is what carried them (not "Bus line 7 ... it carried", not a
        # forecast "expects the tramway to carry").
        noun = ("average " if re.search(r"\baverage\s+of\s+$", window) else "") + \
            f"{_PERIOD[rate.group('per').lower()]} ridership"
        holder = carrier.group("h").strip()
    else:
        return None
    if holder and noun.split()[-1] in holder.lower().split():
        holder = fallback  # "The population was 449": the population of the title subject
    if not holder:
        return None
    rest = holder[4:] if holder.startswith("The ") else holder
    if not any(w[:1].isupper() for w in rest.split()):
        return None  # "the council": which one?
    holder = "the " + rest if holder.startswith("The ") else holder
    if not good_subject(holder) or any(
            w.islower() and w not in ("of", "the", "and", "for", "de", "upon", "on")
            for w in holder.split()[1:]):
        return None  # "Regional premier Lotte Vandermeer": a person's title, not a holder
    if re.search(r"\bapproved\b", window):  # "The Council approved the project ... with a
        return f"the {noun} {holder} approved"  # budget of": the council's approved budget
    return f"the {noun} of {holder}"
