"""Entity resolution: which named-entity mentions are the same real entity.

A separate step from extraction (as in neo4j-graphrag's and graphrag-toolkit's KG builders):
- **Mentions** are the library's named-entity mentions (PERSON, ORGANIZATION, places, MISC)
  plus mentions of the page's subject: a document titled "Titanic (1997 film)" is about
  Titanic even where the tagger leaves the word untagged.
- **Within a document**, a short name is the full name it shortens when exactly one full
  name of the same type in that document has it as its first or last word ("Lively" is
  "Blake Lively", "Eberhard" is "Martin Eberhard"); a middle name is dropped when the page
  subject's first and last names match ("Blake Ellender Lively" is the page's "Blake
  Lively"). Two candidates: unresolved, and an unresolved short person name is no entity.
- **Across documents**, the same canonical name with the same coarse type is one entity (the
  key is a hash of both), so "Titanic" the ship (untagged) never meets "Titanic" the film,
  and father and son "Beckham" only meet under their full names.
- **The page's subject in subject position**: on a page about a person, "He" (or "She": the
  one the page uses at least twice as often as the other) as a verb's subject is the page's
  subject; on a page about a work, organisation or place,
  "It" and the lead's own noun ("The film", "The company": "Titanic is a 1997 film") are —
  unless another named entity the pronoun could stand for comes before it in the sentence,
  or (for "It") the sentence before it in the paragraph was about another thing: the
  pronoun then more likely stands for that one, and a chain of such pronouns does too.
  A pronoun the paragraph has not named the subject for before it, or one after a sentence
  about another person, is still the subject, but ``unsure``: its facts are ``uncertain``.
  (Statistical coreference was measured: 260 tokens/s here and it missed "Lively"/"She".)
- **Generic** entities (countries and states used as attributes) are kept as objects of
  place facts but flagged: sampling never connects facts through them. Nationalities, job
  titles, religions and ideologies are not entities at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dwqa_graph.facts.models import EntityRef, EntityType
from dwqa_graph.language.doc import Sentence, Token
from dwqa_graph.language.lexicon import REPORTING_VERBS as _REPORTED, legal_form_pattern
from dwqa_graph.models import stable_id
from dwqa_graph.text import norm_name

#: Fine-grained NER tag -> coarse type; tags not listed are not entities.
TYPES: dict[str, EntityType] = {
    "PERSON": "PERSON", "ORGANIZATION": "ORG", "LOCATION": "PLACE", "CITY": "PLACE",
    "STATE_OR_PROVINCE": "PLACE", "COUNTRY": "PLACE", "MISC": "MISC"}
GENERIC_TAGS = frozenset({"COUNTRY", "STATE_OR_PROVINCE"})
#: A site's name after a page title: "Blake Lively - Wikipedia", "The Salt Road -
#: OpenTownWiki" (one word: "Solvane scales back plans | Nordic Battery Review" is a
#: headline, no subject).
_WIKI_SUFFIX = re.compile(r"\s+[-–—|]\s+[A-Z][A-Za-z0-9.]*$")
_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)$")
# Legal-form suffixes a company's page title carries and its text drops ("Tesla, Inc.").
# Pages about a collection or a period, not one entity.
# Pages about an event of one (the death, the trial of X): the text's "he" is X, not the event.
_NOT_A_SUBJECT = re.compile(r"^(List|Lists|Timeline|History|Outline|Index|Glossary|Comparison"
                            r"|Death|Assassination|Killing|Murder|Funeral|Disappearance"
                            r"|Execution|Trial|Presidency|Premiership|Reign|Discography"
                            r"|Filmography|Bibliography|Career|Legacy)"
                            r" of ")
# Two words run together by a lost space ("Millvina.The"): a text glitch, not a name.
_GLUED = re.compile(r"[a-z]{2}\.[A-Z]")
_LEGAL_FORM = re.compile(rf",?\s+({legal_form_pattern()})$")


#: Nouns that say a page's subject is a work (a lead "X is a 1975 American film").
WORK_NOUNS = {"film", "movie", "album", "novel", "song", "single", "book", "play", "opera",
              "musical", "documentary", "series", "miniseries", "sitcom", "ep", "mixtape",
              "videogame", "game", "comic", "anime", "manga", "soundtrack", "telefilm"}

#: Nouns a lead calls a group of people by: a group's page speaks of its members as "she".
GROUP_NOUNS = {"group", "band", "duo", "trio", "quartet", "ensemble", "orchestra", "choir",
               "team", "club", "company", "collective", "family", "dynasty"}


def page_subject(title: str | None) -> str | None:
    """The entity a page is about, from its title: "Titanic (1997 film)" -> "Titanic";
    "Blake Lively - Wikipedia" -> "Blake Lively"; a news headline is no subject."""
    if not title:
        return None
    t = _DISAMBIGUATION.sub("", _WIKI_SUFFIX.sub("", title.strip())).strip()
    if not t or len(t.split()) > 8 or any(ch in t for ch in "|?!") or not t[0].isupper() \
            or _NOT_A_SUBJECT.match(t):
        return None
    # a colon in a work's title ("Jack Ryan: Shadow Recruit"), not before a headline's
    # sentence ("Review: Musk buys Twitter"): every word after it capitalised
    head, colon, tail = t.partition(":")
    if colon and (":" in tail or not tail.strip() or not all(
            w[:1].isupper() or w.lower() in TITLE_SMALL for w in tail.split())):
        return None
    return t


#: Words a title leaves lower-case ("Star Wars: The Force of the Jedi").
TITLE_SMALL = {"a", "an", "the", "of", "and", "or", "in", "on", "at", "to", "for", "by",
               "from", "with"}


def title_qualifier(title: str) -> tuple[str, str] | None:
    """A page title's name and its disambiguating qualifier: "The Golden Calf (1930 film) -
    Wikipedia" -> ("The Golden Calf", "(1930 film)"); None without one."""
    t = _WIKI_SUFFIX.sub("", title.strip())
    m = _DISAMBIGUATION.search(t)
    return (t[:m.start()], m.group(0).strip()) if m else None


#: A qualifier that says what kind of thing the entity is, read in English before the name:
#: "(1930 film)" -> "the 1930 film The Golden Calf", "(company)" -> "the company Amazon",
#: "(American band)" -> "the American band X". Other qualifiers ("(Jackson, Mississippi)",
#: "(American football)") stay in brackets.
_KIND = re.compile(
    r"\(((?:\d{4} )?(?:[A-Z][a-z]+ )?(?:film|company|album|song|band|novel|book|play|musical|"
    r"TV series|television series|series|video game|magazine|newspaper|musician|singer|"
    r"actor|actress|footballer|politician|rapper|group|manga|opera|painting|ship|EP|"
    r"soundtrack|documentary|short story|poem|franchise|airline|bank|website|software))\)$")


def qualified_name(name: str, titles: list[str]) -> str:
    """The name with the qualifier its page's title gives it, for a question to name it by:
    "The Golden Calf" on the page "The Golden Calf (1930 film)" is "the 1930 film The
    Golden Calf" (several films have the bare title; a reader would not write the page
    title's brackets). The bare name when no title, or more than one, qualifies it."""
    found = {q[1] for t in titles if (q := title_qualifier(t))
             and norm_name(q[0]) == norm_name(name)}
    if len(found) != 1:
        return name
    qualifier = found.pop()
    kind = _KIND.fullmatch(qualifier)
    return f"the {kind.group(1)} {name}" if kind else f"{name} {qualifier}"


def entity_ref(name: str, type_: EntityType, generic: bool = False) -> EntityRef:
    return EntityRef(id=stable_id("named-entity", type_, norm_name(name)), name=name,
                     type=type_, generic=generic)


@dataclass
class Span:
    """A mention in one sentence: tokens [first, last], its type and its resolved name."""

    first: int
    last: int
    name: str
    type: EntityType
    generic: bool
    is_subject: bool  # the page's own subject
    #: Resolved by a guess the reader is unsure of (a pronoun the paragraph gives no name
    #: for, a subject's type no tag nor lead says): its facts are marked ``uncertain``.
    unsure: bool = False

    def covers(self, i: int) -> bool:
        return self.first <= i <= self.last


class PageResolver:
    """Resolution for one document: built from all its parsed sentences, then asked which
    entity each sentence's mentions are."""

    def __init__(self, title: str | None, sentences: list[tuple[Sentence, str]],
                 unread_words: list[str] | None = None) -> None:
        self.subject = page_subject(title)
        self.subject_words = self.subject.split() if self.subject else []
        bare = _LEGAL_FORM.sub("", self.subject) if self.subject else None
        self.subject_forms = {f for f in (self.subject, bare) if f}
        self.subject_norms = {norm_name(f) for f in self.subject_forms}
        # The names the lead gives the subject in brackets right after its title ("Charles
        # III (Charles Philip Arthur George; born 14 November 1948) is ..."): the subject's,
        # not another full name a later "Charles" could stand for (else questions call the
        # king "Charles Philip Arthur George", then "George").
        for sent, text in sentences[:3]:
            for m in sent.mentions:
                if TYPES.get(m.ner) == "PERSON" and m.first >= 3 \
                        and sent.token(m.first - 1).word == "(" \
                        and sent.token(m.first - 2).word in self.subject_words:
                    self.subject_norms.add(norm_name(_clean(text[m.start:m.end])))
        # The name a lead opens with where the title is the subject's stage or short name
        # ("Ramón Luis Ayala Rodríguez (born ...), known professionally as Daddy Yankee, is
        # ..."): the subject's, and none of its words is another person's name ("Ayala" is
        # no "Ramón Ayala" of a later paragraph).
        self.alias_words: set[str] = set()
        for sent, text in sentences[:3]:
            alias = self._lead_alias(sent, text)
            if alias is not None:
                self.subject_norms.add(norm_name(alias))
                self.alias_words |= set(alias.split())
        # Full names (two or more words) seen in the document, by coarse type.
        self.full: dict[EntityType, set[str]] = {}
        votes: dict[EntityType, int] = {}
        for sent, text in sentences:
            for m in sent.mentions:
                t = TYPES.get(m.ner)
                if t is None:
                    continue
                name = _clean(text[m.start:m.end])
                if self._is_subject_name(name, t):
                    votes[t] = votes.get(t, 0) + 1
                elif len(name.split()) >= 2:
                    self.full.setdefault(t, set()).add(name)
        #: The first and last words of the page's full person names ("Rich", "Paul").
        self.person_name_words = frozenset(
            w for name in self.full.get("PERSON", ()) for w in (name.split()[0],
                                                               name.split()[-1]))
        # The subject's type: what the tagger calls its mentions most often, unless the lead
        # says it is a thing ("Rooster Cogburn is a 1975 film": the tagger reads a name).
        self.subject_type: EntityType = max(votes, key=lambda k: votes[k]) if votes else "MISC"
        # A person page's own pronoun: the one its text uses at least twice as often as the
        # other ("She married him in 1967" on Elvis Presley's page is Priscilla).
        # (counted over the whole text: the sentences the reader left unread count too)
        words = [t.word.lower() for s, _ in sentences for t in s.tokens] + \
            [w.lower() for w in unread_words or []]
        he = sum(w in ("he", "his", "him") for w in words)
        she = sum(w in ("she", "her", "hers") for w in words)
        self.pronoun = "he" if he >= 2 * she and he else "she" if she >= 2 * he and she \
            else None
        #: What the sentence before (in the same paragraph) was about, for the pronoun
        #: chain: "subject", "thing" or None (see ``_next_topic``).
        self._topic: str | None = None
        self._prev_end: int | None = None
        #: Whether the paragraph so far named the page's subject (by a name, not a pronoun),
        #: and whether the sentence before was about another person: a pronoun standing for
        #: the subject is a guess otherwise (``_subject_references``).
        self._named = False
        self._other_person = False
        # the lead: the first sentence that says what the subject is, among the first three
        # (a page's text may open with its title and site lines: "From OpenTownWiki, ...")
        lead = next((x for x in (self._lead_noun(sent) for sent, _ in sentences[:3])
                     if x is not None), None)
        #: The noun the lead says the subject is ("film"): "The film" stands for it.
        self.lead_lemma = lead.lemma.lower() if lead is not None and lead.ner != "TITLE" \
            else None
        #: Neither the tagger nor the lead says what the subject is: its type is a guess.
        self.type_guessed = not votes and lead is None
        if lead is not None:
            if lead.ner == "TITLE":  # "is an American actress": a person
                self.subject_type = "PERSON"
            elif lead.pos.startswith("NN") and (
                    lead.lemma.lower() in WORK_NOUNS | GROUP_NOUNS
                    or (self.subject_type == "PERSON" and self.pronoun is None
                        and not self._born_in_lead(sentences[:3]))):
                # a thing, not a person; a work even when its name reads as a place
                # ("Sankat City is an Indian film"); a group even when its page says "she"
                # of its members ("Blackpink is a girl group"). A noun the tagger does not
                # call a title on a page that says "she" throughout is still a person's
                # ("Paris Hilton is an American media personality"). A lead that gives
                # the subject a birth is a person's, pronoun or not: a one-sentence
                # paragraph "Franz Lackner (born 14 July 1956) is an Austrian prelate" has
                # none (a paragraph dataset's page may be that one sentence).
                self.subject_type = "MISC"

    def _born_in_lead(self, sentences: list[tuple[Sentence, str]]) -> bool:
        """The brackets right after the subject's name in a lead open with "born" or hold
        two dates ("X (born 14 July 1956)", "X (1 August 1965 – 11 November 2010)")."""
        for sent, _ in sentences:
            for tok in sent.tokens[:-1]:
                if tok.word not in self.subject_words or sent.token(tok.i + 1).word != "(":
                    continue
                close = next((t.i for t in sent.tokens[tok.i:] if t.word == ")"),
                             len(sent.tokens))
                inside = sent.tokens[tok.i + 1:close - 1]
                dates = {(m.first, m.last) for t in inside
                         if (m := sent.mention_at(t.i)) is not None and m.ner == "DATE"}
                if (inside and inside[0].word.lower() == "born") or len(dates) >= 2:
                    return True
        return False

    def _lead_noun(self, sent: Sentence) -> Token | None:
        """The noun a lead sentence says its subject is ("X is an American [actress]")."""
        words = set(self.subject_words) | self.alias_words
        for _, root in sent.children.get(0, []):
            subj = sent.deps(root, "nsubj")
            if sent.deps(root, "cop") and subj and sent.token(subj[0]).word in words:
                return sent.token(root)
        return None

    def _lead_alias(self, sent: Sentence, text: str) -> str | None:
        """The person's name a lead opens with, before the page's title later in the same
        sentence: "Ramón Luis Ayala Rodríguez (born February 3, 1977), known professionally
        as Daddy Yankee, is a rapper" on the page "Daddy Yankee"."""
        if not self.subject or len(sent.mentions) < 2:
            return None
        first = sent.mentions[0]
        if TYPES.get(first.ner) != "PERSON" or first.first > 2:
            return None
        name = _clean(text[first.start:first.end])
        if norm_name(name) in self.subject_norms or len(name.split()) < 2:
            return None
        roots = [r for _, r in sent.children.get(0, [])]
        if not roots or not sent.deps(roots[0], "cop"):
            return None
        later = text[first.end:sent.token(roots[0]).start]
        return name if self.subject in later else None

    def _is_subject_name(self, name: str, type_: EntityType | None) -> bool:
        if not self.subject:
            return False
        if norm_name(name) in self.subject_norms:
            return True
        words = name.split()
        sw = self.subject_words
        # "Blake Ellender Lively" on the page "Blake Lively"; "Lively" alone on it; "Van
        # Buren" (the name's last words) on the page "Martin Van Buren"; a monarch by the
        # first name, "Charles" on the page "Charles III" (not "Charles I").
        return type_ == "PERSON" and len(sw) >= 2 and (
            (len(words) >= 2 and words[0] == sw[0] and words[-1] == sw[-1])
            or (len(words) == 1 and words[0] == sw[-1])
            or (len(words) == 1 and len(sw) == 2 and _REGNAL.match(sw[1]) is not None
                and words[0] == sw[0])
            or (2 <= len(words) < len(sw) and words == sw[-len(words):]))

    def _is_subject_alias(self, sent: Sentence, first: int, type_: EntityType,
                          spans: list[Span]) -> bool:
        """A person's name opening the brackets right after the page subject, before the
        sentence's main verb: the subject's full or birth name ("Princess Claude of Orléans
        (Claude Marie Agnès Catherine; born 11 December 1943) is ...")."""
        if type_ != "PERSON" or self.subject_type != "PERSON" or first < 3 \
                or sent.token(first - 1).word != "(":
            return False
        roots = [r for _, r in sent.children.get(0, [])]
        return any(sp.is_subject and sp.last == first - 2 for sp in spans) \
            and bool(roots) and first < roots[0]

    def _is_subject_word(self, name: str, type_: EntityType) -> bool:
        """One word of a longer page subject's name, not a person's surname (handled as the
        subject): "Madrid" on "Real Madrid CF" may be the club or the city; neither is
        safe to name. Nor a word of the name the lead opens with ("Ayala" on Daddy Yankee's
        page), nor a person's first name alone: either is the subject or a relative, never
        another full name of the page."""
        if len(name.split()) == 1 and name in self.alias_words:
            return True  # "Ayala" on Daddy Yankee's page: his own, or nobody's
        if type_ == "PERSON" and self.subject_type == "PERSON":
            # a person's first name alone ("Blake" on Blake Lively's page) is the person or
            # a relative, never another full name of the page ("Blake Shelton"); the
            # surname alone is the subject (``_is_subject_name``)
            return len(name.split()) == 1 and name in self.subject_words[:-1]
        return (len(name.split()) == 1 and len(self.subject_words) >= 2
                and name in self.subject_words)

    def _is_subject_acronym(self, name: str) -> bool:
        """"UBI" on the page "Union Bank of India": the initials of its capitalised words."""
        if not (2 <= len(name) <= 6 and name.isupper() and name.isalpha()):
            return False
        caps = "".join(w[0] for w in self.subject_words if w[:1].isupper())
        return len(caps) >= 2 and name == caps

    def new_passage(self) -> None:
        """The sentences read next are not preceded by the ones read before."""
        self._topic = self._prev_end = None
        self._named = self._other_person = False

    def spans(self, sent: Sentence, text: str) -> list[Span]:
        """Resolved mentions of one sentence (unresolvable ones are left out). Sentences of
        one passage are to be asked in order: a pronoun reads the sentence before it."""
        if self._prev_end is None or "\n" in text[self._prev_end:sent.start]:
            self._topic = None  # a paragraph's first sentence: no sentence before it
            self._named = self._other_person = False
        out = self._spans(sent, text)
        self._topic = self._next_topic(sent, out)
        self._other_person = self._about_another_person(sent, out)
        self._prev_end = sent.end
        return out

    def _about_another_person(self, sent: Sentence, spans: list[Span]) -> bool:
        """The sentence's main subject is a person other than the page's, named or not
        ("Margaret decided to abandon her plans with Townsend. In 1960, she married ..." on
        Elizabeth II's page: "she" is Margaret)."""
        roots = [r for _, r in sent.children.get(0, [])]
        subj = sent.deps(roots[0], "nsubj", "nsubj:pass") if roots else []
        if not subj:
            return False
        sp = next((x for x in spans if x.covers(subj[0])), None)
        if sp is not None:  # a pronoun guessed to be the subject goes on the chain
            return (sp.type == "PERSON" and not sp.is_subject) or (sp.unsure
                                                                    and self._other_person)
        tok = sent.token(subj[0])
        if tok.pos == "PRP":
            return self._other_person and tok.word.lower() in ("he", "she")
        return tok.ner == "PERSON"

    def _next_topic(self, sent: Sentence, spans: list[Span]) -> str | None:
        """What the sentence is about, as its main verb's subject says: the page's subject,
        another thing (a named one, a proper noun the tagger left untagged such as "GPT-2",
        or a common noun other than the lead's: "a documentary about her life"), or None (a
        person, no subject). A pronoun subject left unresolved keeps the topic of the
        sentence before: the chain goes on. Persons do not count: whether "she" is the
        page's subject or the person before needs a gender the library does not give ("Her
        husband Ryan Reynolds was born in 1976. She married him in 2012.").

        A sentence about the page's subject that introduces another thing by a description
        in apposition is about that thing too: "Wikipedia began as a complementary project
        for Nupedia, a free online encyclopedia project whose articles were written by
        experts. It was founded on March 9, 2000" -- "it" is Nupedia."""
        roots = [r for _, r in sent.children.get(0, [])]
        subj = sent.deps(roots[0], "nsubj", "nsubj:pass") if roots else []
        if not subj:
            return None
        s = subj[0]
        for sp in spans:
            if sp.covers(s):
                if sp.is_subject and any(
                        not o.is_subject and o.type != "PERSON" and not o.generic
                        and any(d > o.last for i in range(o.first, o.last + 1)
                                for d in sent.deps(i, "appos")) for o in spans):
                    return "thing"
                return "subject" if sp.is_subject else None if sp.type == "PERSON" \
                    else "thing"
        tok = sent.token(s)
        if tok.pos == "PRP":
            return self._topic if tok.word.lower() in ("he", "she", "it") else None
        if tok.ner in ("PERSON", "TITLE") or tok.pos not in ("NN", "NNS", "NNP", "NNPS"):
            return None
        return "thing"

    def _spans(self, sent: Sentence, text: str) -> list[Span]:
        out: list[Span] = []
        taken: set[int] = set()
        # The page subject first, also where the tagger left it untagged or cut it
        # ("Titanic is a 1997 film", "Jungle [Ka Jawahar]"), and a person page's surname
        # alone ("Lively starred ...") unless it is part of another person's name.
        forms = set(self.subject_forms)
        surname = self.subject_words[-1] if self.subject_type == "PERSON" \
            and len(self.subject_words) >= 2 else None
        if surname:
            forms.add(surname)
        # longest first: the full name before its surname, in a fixed order (a set's order
        # changes from run to run with the hash seed, and so would the spans)
        for form in sorted(forms, key=lambda f: (-len(f), f)):
            for i in range(1, len(sent.tokens) + 1):
                if i in taken or not form.startswith(sent.token(i).word):
                    continue
                for j in range(i, min(i + 12, len(sent.tokens)) + 1):
                    surface = text[sent.token(i).start:sent.token(j).end]
                    inside = sent.mention_at(i)
                    if form == surname and inside is not None and inside.ner == "PERSON" \
                            and (inside.first, inside.last) != (i, j):
                        break
                    if surface == form and not taken & set(range(i, j + 1)) \
                            and not fragment(sent, i, j):
                        out.append(Span(i, j, self.subject or form, self.subject_type,
                                        False, True, unsure=self.type_guessed))
                        taken.update(range(i, j + 1))
                    if len(surface) >= len(form):
                        break
        for m in sent.mentions:
            t = TYPES.get(m.ner)
            if t is None:
                continue
            name = _clean(text[m.start:m.end])
            if not name or not name[0].isupper() or _GLUED.search(name) \
                    or any(j in taken for j in range(m.first, m.last + 1)):
                continue
            if fragment(sent, m.first, m.last) or any(q in name for q in _QUOTES) \
                    or (t != "PERSON" and _title_word_before(sent, m.first)):
                # "Union" of "the Soviet Union", "Mall" of "Warwick Mall"; 'Dick" Lugar' of
                # 'Richard Green "Dick" Lugar'; "Meme" of "The American Meme"
                continue
            quoted = _quoted(sent, text, m.first, m.last)
            if quoted is not None:
                # "Love Him" tagged inside "To Know Him Is to Love Him": the whole title
                first, last, title = quoted
                if not any(j in taken for j in range(first, last + 1)):
                    out.append(Span(first, last, title, "MISC", False, False))
                    taken.update(range(first, last + 1))
                continue
            if self._is_subject_name(name, t) or self._is_subject_acronym(name) \
                    or self._is_subject_alias(sent, m.first, t, out):
                out.append(Span(m.first, m.last, self.subject or name, self.subject_type,
                                False, True, unsure=self.type_guessed))
            elif self._is_subject_word(name, t):
                continue  # "Madrid" on Real Madrid's page: the club or the city
            else:
                resolved = self._expand(name, t)
                if resolved is None:
                    continue
                out.append(Span(m.first, m.last, resolved, t, m.ner in GENERIC_TAGS, False))
            taken.update(range(m.first, m.last + 1))
        named = [sp for sp in out if sp.is_subject]
        out += self._subject_references(sent, out, taken)
        self._named = self._named or bool(named)
        return out

    def _subject_references(self, sent: Sentence, spans: list[Span], taken: set[int],
                            ) -> list[Span]:
        """"He"/"She"/"It"/"The film" as a verb's subject standing for the page's subject
        (the rule in the module docstring)."""
        if not self.subject:
            return []
        person = self.subject_type == "PERSON"
        out: list[Span] = []
        for tok in sent.tokens:
            i = tok.i
            if i in taken or not any(rel in ("nsubj", "nsubj:pass")
                                     for rel, _ in sent.heads(i)):
                continue
            word = tok.word.lower()
            if (word == self.pronoun) if person else (word == "it" and tok.pos == "PRP"):
                # The sentence before was about another thing: "it" is more likely that
                # one ("Its predecessor, GPT-2, was announced in 2019. It had 1.5 billion
                # parameters" on the GPT-3 page).
                if not person and self._topic == "thing":
                    continue
                # "It was reported that ...", "It is said to ...": an expletive, whatever the
                # parser calls it.
                if word == "it" and any(sent.deps(g, "ccomp", "csubj", "xcomp")
                                        for rel, g in sent.heads(i) if g):
                    continue
                # ... also where the parser loses the clause ("it was reported that Musk
                # offered ...": "offered" read as a modifier of "Musk"): "it" as the passive
                # subject of a verb of reporting
                if word == "it" and any(rel == "nsubj:pass"
                                        and sent.token(g).lemma.lower() in _REPORTED
                                        for rel, g in sent.heads(i) if g):
                    continue
                first = i
            elif not person and self.lead_lemma and tok.lemma.lower() == self.lead_lemma \
                    and tok.pos.startswith("NN") and not sent.deps(i, "amod", "compound") \
                    and [sent.token(d).lemma.lower() for d in sent.deps(i, "det")] == ["the"]:
                first = min(sent.deps(i, "det"))
            else:
                continue
            # A sentence that names the page's thing elsewhere uses "it" for another thing
            # ("Launched in 2006, it captured its first images of Pluto" on the Pluto page).
            # Not "he" or "she" with the person's name ("In 1846, he fought at the Battle of
            # Sobraon, where Harding was wounded" is the page's person): applied to people,
            # the rule drops many right facts of a person's page to avoid an error seen on
            # things' pages.
            if not person and any(s.is_subject for s in spans):
                continue
            # Another named entity before it could be what it stands for: leave it.
            if any(s.last < first and not s.generic and not s.is_subject
                   and (s.type == "PERSON") == person for s in spans):
                continue
            # ... also a person the resolver could not name ("when former Brazil captain
            # Sócrates was asked ... he replied" on Paul Scholes's page)
            if person and any(m.last < first and m.ner == "PERSON"
                              and not any(s.is_subject and s.covers(m.first) for s in spans)
                              for m in sent.mentions):
                continue
            # A pronoun is a guess where the paragraph has not named the subject before it
            # (it reaches across paragraphs: "In 1960, she married ..." opening a paragraph
            # about the queen's sister), or after a sentence about another person.
            sure = (self._named or any(s.is_subject and s.last < first for s in spans)) \
                and not (person and self._other_person)
            out.append(Span(first, i, self.subject, self.subject_type, False, True,
                            unsure=not sure or self.type_guessed))
        return out

    def subject_span(self) -> Span | None:
        """The page subject as a span of no sentence (for facts whose subject the page
        implies: "The population was 449" on a town's page)."""
        if not self.subject:
            return None
        return Span(0, -1, self.subject, self.subject_type, False, True,
                    unsure=self.type_guessed)

    def _expand(self, name: str, type_: EntityType) -> str | None:
        if len(name.split()) >= 2 or type_ != "PERSON":
            # One-word names of places and organisations (Paris, NASA) stand for
            # themselves; expanding them guessed wrong ("Tours" is not "Grand Tours").
            return name
        full = [f for f in self.full.get(type_, ()) if f.split()[-1] == name
                or f.split()[0] == name]
        # A one-word person name with no unique full form is a surname or a first name we
        # cannot pin down.
        return full[0] if len(full) == 1 else None


_QUOTES = '"“”'
#: A regnal number closing a monarch's or pope's name ("Charles III", "Benedict XVI").
_REGNAL = re.compile(r"^[IVXL]+$")


def _title_word_before(sent: Sentence, first: int) -> bool:
    """A capitalised word right before a name, inside the sentence and in no other name,
    that is no title of a person: the name is the end of a longer title the tagger cut
    ("The documentary The American [Meme]")."""
    k = first - 1
    if k < 2:
        return False
    tok = sent.token(k)
    named = sent.mention_at(k)
    return tok.word[:1].isupper() and tok.word.isalpha() and tok.ner != "TITLE" \
        and (named is None or named.ner not in TYPES) \
        and sent.token(k - 1).word not in (".", ":", ";")


def _quoted(sent: Sentence, text: str, first: int, last: int) -> tuple[int, int, str] | None:
    """Tokens ``first..last`` inside quotation marks that hold more words: the quoted
    title's tokens and text ('"To Know Him Is to Love Him,"' -> the song's whole title);
    None when the name is not quoted or is the whole quotation."""
    opens = [i for i in range(1, first) if sent.token(i).word in ("``", '"', "“")]
    closes = [i for i in range(last + 1, len(sent.tokens) + 1)
              if sent.token(i).word in ("''", '"', "”")]
    if not opens or not closes:
        return None
    a, b = opens[-1] + 1, closes[0] - 1
    if any(sent.token(i).word in ("``", "''", '"', "“", "”") for i in range(a, b + 1)) \
            or b - a > 12:
        return None
    while b > a and not sent.token(b).word[:1].isalnum():
        b -= 1  # '"To Know Him Is to Love Him,"': the comma is the sentence's
    if (a, b) == (first, last):
        return None
    return a, b, text[sent.token(a).start:sent.token(b).end]


#: Relations that join the words of one name ("Warwick Mall", "Rodent Research 3").
_NAME_PARTS = ("compound", "flat", "nummod")


def fragment(sent: Sentence, first: int, last: int) -> bool:
    """Tokens ``first..last`` are part of a longer name: a proper noun or number right
    next to them is joined to them as a name part ("the Soviet Union" tagged as "Soviet" and
    "Union"; "Rodent Research 3"), or an ordinal before it ("the 74th Academy Awards": the
    span alone names every edition). Such a span names nothing by itself."""
    inside = range(first, last + 1)
    if _nickname_next_to(sent, first, last):
        return True
    if first > 1 and sent.token(first - 1).ner == "ORDINAL" and any(
            first - 1 in sent.deps(i, "amod") for i in inside):
        return True
    for k in (first - 1, last + 1):
        if not 1 <= k <= len(sent.tokens) or sent.token(k).pos not in ("NNP", "NNPS", "CD"):
            continue
        if any(h in inside for r, h in sent.heads(k) if r.startswith(_NAME_PARTS)) \
                or any(k in sent.deps(i, *_NAME_PARTS) for i in inside) \
                or any(h == k for i in inside for r, h in sent.heads(i)
                       if r.startswith(_NAME_PARTS)):
            return True
    return False




def _nickname_next_to(sent: Sentence, first: int, last: int) -> bool:
    """A name in brackets inside a longer name, next to tokens ``first..last``: "William
    Grove (Bill) Skelly" gives "William Grove", "Bill" and "Skelly", none of them his name
    (a nickname in quotes is ``_QUOTES``'s)."""
    n = len(sent.tokens)

    def proper(k: int) -> bool:
        return 1 <= k <= n and sent.token(k).pos in ("NNP", "NNPS")

    def word(k: int) -> str:
        return sent.token(k).word if 1 <= k <= n else ""

    def bracketed_name(k: int, step: int) -> bool:
        """From token ``k`` in direction ``step``: a bracket, up to three proper nouns, the
        other bracket, then a proper noun -- "( Bill ) Skelly" read either way."""
        opening, closing = ("(", ")") if step > 0 else (")", "(")
        if word(k) != opening:
            return False
        j = k + step
        while proper(j) and abs(j - k) <= 3:
            j += step
        return j != k + step and word(j) == closing and proper(j + step)

    inside = [word(k) for k in range(first, last + 1)]
    if inside.count("(") != inside.count(")"):
        return True  # the tagger ran the name across a bracket ("Bill ) Skelly")
    # after the span ("[William Grove] ( Bill ) Skelly"), before it ("William Grove ( Bill )
    # [Skelly]"), or the nickname itself between two parts of a name ("( [Bill] )")
    return bracketed_name(last + 1, 1) or bracketed_name(first - 1, -1) or (
        word(first - 1) == "(" and word(last + 1) == ")" and proper(first - 2)
        and proper(last + 2))


def _clean(name: str) -> str:
    name = re.sub(r"['’]s$", "", name.strip())
    return " ".join(name.strip(" ,.;:\"'“”()").split())
