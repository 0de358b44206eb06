"""Steps written out of the order they are done in, or ordered by words the splitter does not
join on, rewritten to "A, then B" before the sentence is read.

Independent testers (``tests/evo/plans/dev/*_dev5.yaml`` to ``*_dev8.yaml``) wrote:

- the later step first, then the earlier: "Touch the shrine, but before that hop over the lava",
  "Pull the lever, but kill the goblin first", "Touch the shrine at the end, but first jump";
- the earlier step first, with "before" and a gerund or a thing: "jump across the lava before
  praying at the shrine", "Visit the second stump before the first lamp";
- steps numbered by ordinal adverbs inside one sentence: "First pull the lever, second jump the
  lava, third touch the shrine";
- "after" for "afterwards", as a second language has it: "Kill the goblin, after kill the
  skeleton", "Go to the door and after to the lava";
- the means after the end: "Open the door by pulling the switch" (the means is the step);
- the place first: "at the lava make a jump, at the shrine pray", "At pillar 1 look up"; and
  "there" for "then, there": "Go to the door and after to the lava, there jump".

Read as written, each gave one step where two were meant (the other refused or lost). Each is
one pattern over closed-class words ("but", "before", "after", "first", ordinal adverbs, "at");
the verbs are WordNet's (:func:`evo.plans.lexicon.is_verb`).
"""

from __future__ import annotations

import re

from evo.plans.said_first import before_chain, done_first, first_of_all

NESTED_FIRST = re.compile(r"^(?P<a>[^,;]+?),\s*but\s+first\s+(?P<b>[^,;]+?),?\s*and\s+before\s+(?:even\s+)?(?:that|this)\s*,?\s*(?P<c>[^.;!?,]+)|"
                          r"^(?P<a2>[^,;]+?),\s*but\s+before\s+(?:that|this|it)\s*,?\s*(?:you\s+(?:need|have)\s+to\s+)?(?P<b2>[^,;]+?),?\s*and\s+(?:(?:of\s+course|obviously)\s+)?"
                          r"(?:first(?:\s+of\s+all)?\s*,?\s*(?P<c2>[^.;!?,]+)|(?P<c3>[^.;!?,]+?)\s+first\b[^.;!?,]*)", re.IGNORECASE)
"""The last step, then the one before it, then the first: "Activate the shrine, but first jump the
lava, and before even that, throw the switch"."""
BUT_BEFORE = re.compile(r"^(?P<a>[^,;]+?)(?:\s+at\s+the\s+end)?,\s*but\s+(?:before\s+(?:that|this|it|(?:you\s+)?do(?:ing)?\s+(?:that|this|so|it)|you\s+do(?=\s*,))|first)\s*,?\s*(?P<b>[^.;!?]+)",
                        re.IGNORECASE)
"""The later step, then "but before that" / "but first" and the earlier."""
BUT_FIRST = re.compile(r"^(?P<a>[^,;]+?),\s*but\s+(?P<b>[^,.;!?]+?)\s+(?:first\b(?!\s+(?!(?:and|then|before)\b)[a-z])|"
                       r"(?:before\s+(?:that|this|you\s+do(?:\s+(?:that|this|it|so))?)|beforehand)\s*(?=[.!?]?\s*$))", re.IGNORECASE)
"""The later step, then "but" and the earlier with "first" after it (an order, not an ordinal:
"but grab the first coin on the way there" is no "first")."""
BEFORE_GERUND = re.compile(r"(?<=\w)\s+before\s+(?P<verb>[a-z]+ing)\b", re.IGNORECASE)
BEFORE_THING = re.compile(r"(?<=\w)\s+before\s+(?=(?:the|a|an)\s+(?:[\w-]+\s+)?[\w-]+\s*(?:[.;!?]|$))", re.IGNORECASE)
"""Not at the sentence's start ("Before you jump, pull the lever" is :mod:`evo.plans.markers`')."""
ORDINAL_ADVERB = re.compile(r",\s*(?:and\s+)?(?:second(?:ly)?|third(?:ly)?|fourth(?:ly)?|fifth|next|finally|lastly|last)\s*,?\s+",
                            re.IGNORECASE)
AFTER = re.compile(r"(?:,\s*|\s+and\s+)(?:then\s+)?after(?:wards)?\s*,?\s+(?=(?P<word>[a-z]+)\b)", re.IGNORECASE)
""""after" before a step's verb or its "to": afterwards ("Kill the goblin, after kill the skeleton")."""
AT_FRONT = re.compile(r"(?:(?<=^)|(?<=[,;]\s)|(?<=\band\s)|(?<=\bthen\s))at\s+(?P<place>the\s+(?:(?:first|second|third|fourth|fifth|last|nearest|closest)\s+)?(?!(?:first|second|third|fourth|fifth|last)\b)[a-z]+(?:\s+(?:\d+|#\d+))?|[a-z]+\s+(?:\d+|#\d+))\s*(?P<comma>,)?\s+"
                      r"(?=(?P<verb>[a-z]+)\b)(?P<rest>[^,;.]*)", re.IGNORECASE)
"""A step with its place first ("at the shrine pray"): the place after the deed."""


BEFORE_THAT = re.compile(r"(?P<a>(?:^|(?<=[.;!?]\s))[^.;!?]+?)\s*[.;!]\s+(?:but\s+)?(?P<said>before(?=\s*,)|(?:(?:right|just|immediately)\s+)?before\s+it(?=\s*[:,])|(?:right|just|immediately)\s+before\s+(?:that|this)|before\s+(?:that|this|then|(?:doing|going\s+for|going\s+after|heading\s+for|you\s+go\s+for)\s+(?:that|so|this|it|him|her|them)|"
                         r"you\s+do\s+(?:that|this|so|it)|(?:you\s+)?(?:get(?:ting)?|go(?:ing)?)\s+there|(?:you\s+)?reach(?:ing)?\s+(?:it|there))|(?<=but\s)first|(?:of\s+course\s*,?\s*)?(?:you(?:'ll)?\s+(?:need|have)\s+to\s+)?get\s+there\s+first(?=\s*:)|first\s*,\s*though|though\s*,\s*first)"
                         r"(?:\s*,\s*though)?\s*[,:]?\s+(?P<b>[^.;!?]+)(?P<end>[.!?]?)", re.IGNORECASE)
"""The later step in one sentence, the earlier in the next: "Jump the lava. Before that, hit the
switch.", "Head to the pillar; first, though, stop at stump 1.", "Kill the first skeleton. Before going
for it though, pick up coin 1." The earlier step goes before the
sentence it follows, when that sentence is one step (a "before" clause counted as its own)."""
LAST_FIRST = re.compile(r"(?P<a>(?:^|(?<=[.;!?]\s))[^.;!?,]+?)\s+(?:last|at\s+the\s+end|to\s+finish)\s*[.;,]\s*(?:but\s+)?first\s*,?\s+"
                        r"(?P<b>[^.;!?]+)(?P<end>[.!?]?)(?=\s*$)", re.IGNORECASE)
"""The last step first: "Use the shrine last; first do the switch, then the lava jump." (with more
after it, :func:`_ranked` puts each in its place)."""
AFTER_DONE = re.compile(r"^(?P<a>[^,;]+?)\s+(?:only\s+)?after\s+(?P<thing>the\s+[\w ]+?)\s+(?:has|have)\s+been\s+"
                        r"(?P<verb>[a-z]+)(?P<end>[.!?]?)$", re.IGNORECASE)
"""A step after another said done in the passive ("Interact with the shrine only after the lava
pit has been jumped"): the other, then the step."""
HAVING_FIRST = re.compile(r"^(?P<a>[^,;]+?),\s*having\s+(?:first\s+)?(?P<verb>[a-z]+(?:ed|en|t))\s+(?P<b>[^,.;!?]+)(?P<end>[.!?]?)$", re.IGNORECASE)
""""The tester uses the shrine, having first disposed of the ogre": that deed, then the step."""
AFTER_GERUND = re.compile(r"^(?P<a>[^,;]+?),?\s+(?:but\s+)?(?:only\s+)?after\s+(?:having\s+)?(?P<verb>[a-z]+(?:ing|ed|en|t|ain|wn))\s+(?P<b>[^,.;!?]+)"
                          r"(?P<rest>,\s+(?:and\s+|then\s+)?(?=(?:stand|go|walk|head|run|jump|leap|pull|use|kill|attack|grab|pick|collect|get|interact|touch|activate|flip|circle|look|turn)\b)[^.;!?]+)?(?P<end>[.!?]?)$",
                          re.IGNORECASE)
""""Go through the door once it opens, after activating the switch", "Jump the lava, after having
killed the skeleton": the deed after "after", then the step."""
AFTER_ALL = re.compile(r"^(?P<a>[^;]+?),\s*(?:but\s+)?(?:only\s+)?after\s+(?:having\s+)?(?P<verb>[a-z]+ing)\s+(?P<b>[^,.;!?]+)(?P<end>[.!?]?)$", re.IGNORECASE)
""""Attack goblin 1, goblin 2 and skeleton 1, after pulling the switch": after a comma, after all the steps before."""
AFTER_YOU = re.compile(r"^(?P<a>[^,;]+?),?\s*(?:but\s+)?(?:only\s+)?(?:after|once)\s+(?:you(?:'ve|\s+have)|having)\s+(?P<verb>[a-z]+(?:ed|t|en|ne|ung|un|ught|ew|ck))\s+(?P<b>[^,.;!?]+)"
                       r"(?P<end>[.!?]?)$", re.IGNORECASE)
""""Take down the second goblin, but only after you've cleared the lava": the deed done first."""
BEFORE_CLAUSE = re.compile(r"^before\s+(?:you\s+|the\s+player\s+)?(?P<c>[^,]+),\s*(?P<m>.+)$", re.IGNORECASE)
"""A step with its "before" clause first ("Before you use the shrine, jump the lava")."""


def _before_that(line: str) -> str:
    """``line`` with each :data:`BEFORE_THAT` pair written in the order it is done."""
    def swap(m: re.Match[str]) -> str:
        a, b = m.group("a").strip(), m.group("b").strip()
        if re.search(r",\s*(?:and\s+)?then\b|\band\s+then\b|;", a, re.IGNORECASE) \
                or re.match(r"(?:right|just|immediately)\b", m.group("said"), re.IGNORECASE) and re.search(r",|\band\b", a, re.IGNORECASE):
            return m.group(0)  # "that" could be either step before ("right before that" after three): left as written
        clause = BEFORE_CLAUSE.match(a)
        if clause is not None:
            a = f"{clause.group('m').strip()}, then {clause.group('c').strip()}"
        return f"{b[0].upper()}{b[1:]}, then {a[0].lower()}{a[1:]}{m.group('end') or '.'}"
    line = LAST_FIRST.sub(lambda m: f"{m.group('b')[0].upper()}{m.group('b')[1:].strip()}, then {m.group('a')[0].lower()}"
                                    f"{m.group('a')[1:].strip()}{m.group('end') or '.'}", line)
    return BEFORE_THAT.sub(swap, line)


MEANS = re.compile(r"^(?P<lead>(?:then|after\s+that|afterwards|next|finally|now)\s*,?\s+)?(?P<a>[a-z][^,;]*?)\s+by\s+(?P<verb>[a-z]+ing)\s+(?P<c>[^,.;!?]+)", re.IGNORECASE)
""""Open the door by pulling the switch": the means is the step, the end its purpose ("pull the
switch to open the door")."""
THERE = re.compile(r",\s*there\s*,?\s+(?=(?P<word>[a-z]+)\b)", re.IGNORECASE)
""""..., there jump": then, where the step before ended."""


def _verb(word: str) -> bool:
    from evo.plans.lexicon import is_verb, wordnet

    wordnet()
    return word.lower() not in ("you", "the", "that", "this", "it", "a", "an", "we", "i", "which") and is_verb(word)


def _base(gerund: str) -> str:
    from evo.plans.lexicon import _lemma, wordnet

    wordnet()
    return _lemma(gerund, "v")


RANKS = {"first": 1, "firstly": 1, "second": 2, "secondly": 2, "third": 3, "thirdly": 3, "fourth": 4, "fifth": 5,
         "last": 99, "lastly": 99, "finally": 99}
RANKED = re.compile(r"^\s*(?P<lead>first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth|fifth|last(?:ly)?|finally)\b\s*,?\s+|"
                    r"\s+(?P<tail>first|second|third|fourth|fifth|last)\s*(?P<end>[.!?]?)\s*$", re.IGNORECASE)
"""A sentence's rank said by an order adverb, before its step ("Second, flip the switch") or after
it ("Jump the lava second.")."""
CONDITIONED = re.compile(r"\b(?:when|once|after|as\s+soon\s+as|if)\s+(?:it|the\s+(?P<thing>[a-z]+))\s+(?:(?:is|are|has\s+been|has|gets|'s)\s+"
                         r"(?:now\s+)?(?P<state>open(?:ed)?|unlocked|on|activated|switched\s+on|turned\s+on)|(?P<opens>opens|unlocks))\b", re.IGNORECASE)
ENABLES = re.compile(r"\b(?P<verb>open|unlock|turn\s+on|switch\s+on|activate|"
                     r"pull|flip|press|hit|use|toggle|throw|push|yank|flick|trip|operate|interact\s+with)\s+"
                     r"(?:it|the\s+(?P<thing>[a-z]+))\b", re.IGNORECASE)
"""A step that waits for a state, then one that brings it about ("Go through the door when it is
open. Open it with the switch."): the second is done first, or the first would wait forever."""


BETWEEN = 50
"""The rank of a step said "in between" the first and the last, or with no rank beside them."""
STARTED = ((re.compile(r"^(?P<s>\s*)(?:start|begin)(?:\s+off)?\s+by\s+(?P<g>[a-z]+ing)\b", re.IGNORECASE), lambda m: f"{m.group('s')}First {_base(m.group('g'))}"),
           (re.compile(r"^(?P<s>\s*)(?:start|begin)(?:\s+off)?\s+at\s+(?=(?:the\s+)?[a-z]+)", re.IGNORECASE), lambda m: f"{m.group('s')}First go to "),
           (re.compile(r"^(?P<s>\s*)(?:end|finish)(?:\s+up)?\s+at\s+(?=(?:the\s+)?[a-z]+)", re.IGNORECASE), lambda m: f"{m.group('s')}Finally go to "),
           (re.compile(r"^(?P<s>\s*)(?:in\s+between|in\s+the\s+middle|somewhere\s+in\s+between)\s*(?:those|these|them)?\s*[,:]?\s*", re.IGNORECASE), lambda m: m.group("s")))
"""A sentence said to come first ("Start by killing skeleton 2.", "Start at stump 3."), last ("End at
lamp 4.") or in between."""


def _ranked(sentences: list[str]) -> list[str]:
    """Sentences that each carry an order adverb, in that order ("Jump the lava second. First,
    flip the switch. Last, use the shrine."); as written when any has none or two share one,
    except that beside only a first and a last, a sentence with none comes in between ("Use the
    shrine last. First kill goblin 1. (In between,) pick up coin 2.")."""
    ranks, said = [], []
    for sentence in sentences:
        for pattern, started in STARTED[:3]:
            sentence = pattern.sub(started, sentence)
        between = STARTED[3][0].match(sentence)
        said.append(sentence[between.end():] if between and between.end() < len(sentence) else sentence)
        m = RANKED.search(said[-1])
        ranks.append(BETWEEN if between else RANKS[(m.group("lead") or m.group("tail")).lower()] if m else None)
    if None in ranks and set(ranks) - {None} <= {1, BETWEEN, 99} and ranks.count(1) <= 1 and ranks.count(99) <= 1 \
            and [r for r in ranks if r is not None] != sorted(r for r in ranks if r is not None):
        ranks = [BETWEEN if r is None else r for r in ranks]
        return [t for _, t in sorted(zip(ranks, said), key=lambda p: p[0])]
    if len(sentences) < 2 or None in ranks or len(set(ranks)) < len(ranks) or ranks == sorted(ranks):
        return said
    tails = [re.sub(r"\s+(?:first|second|third|fourth|fifth|last)\s*(?=[.!?]?\s*$)", "", s, flags=re.IGNORECASE) for s in said]
    return [t for _, t in sorted(zip(ranks, tails), key=lambda p: p[0])]


TWICE_BEFORE = re.compile(r"^(?P<a>[^,;]+?)\s+before\s+(?:you\s+)?(?P<b>[^,;]+?),\s*and\s+before\s+(?P<g>[a-z]+ing)\s+(?:it|them|that|this|him|her)\s*,\s*(?P<c>[^,;.!?]+)$",
                          re.IGNORECASE)
"""Two steps said before another, nested: "Kill goblin 2 before you jump the pit, and before killing
it, pull the lever": the lever, the goblin, the pit."""


AND_BEFORE = re.compile(r"^(?!\s*before\b)(?P<a>[^,;]+?),?\s*and\s+before\s+(?:even\s+)?(?:that|this|then|any\s+of\s+(?:that|this|it)|all\s+(?:of\s+)?(?:that|this)|the\s+(?:jump|kill|fight|pull|climb|leap|hop|visit)(?=\s*,))\s*,?\s*(?P<b>[^,.;!?]+)",
                        re.IGNORECASE)
""""Jump the lava pit, and before THAT, hit the switch": the second step first."""


def _brings_about(waits: re.Match[str], enables: re.Match[str]) -> bool:
    """The deed of :data:`ENABLES` brings about the state :data:`CONDITIONED` waits for: "open it" for
    "once it is open"; a deed on the very thing for "once the switch is on" ("Pull the switch")."""
    thing, other = waits.group("thing"), enables.group("thing")
    opened = (waits.group("state") or waits.group("opens")).lower().startswith(("open", "unlock"))
    verb = enables.group("verb").lower()
    if (thing and other and thing.lower() != other.lower()) or opened != (verb in ("open", "unlock")):
        return False
    return verb in ("open", "unlock", "activate") or verb.endswith(" on") or bool(thing and other)


def _enabler_first(sentences: list[str]) -> list[str]:
    """:data:`ENABLES` after :data:`CONDITIONED`, one step each, in the order done."""
    out = list(sentences)
    for k in range(len(out) - 1):
        waits = CONDITIONED.search(out[k])
        leads = waits is not None and not out[k][:waits.start()].strip()  # "As soon as the door opens, run through it and jump": all of it waits
        if waits is None or (not leads and (re.search(r"\bthen\b|;|\band\b", out[k], re.IGNORECASE) or out[k].count(",") > 1)) \
                or re.search(r"\bthen\b", out[k + 1], re.IGNORECASE) \
                or re.match(r"\s*(?:next|after|afterwards|later|finally)\b", out[k + 1], re.IGNORECASE):
            continue
        if any(_brings_about(waits, enables) for enables in ENABLES.finditer(out[k + 1])):
            out[k], out[k + 1] = out[k + 1], out[k]
    return out


CHAINED = re.compile(r"(?:^|(?<=[.!?]\s))(?P<lead>before|after)\s+you\s+(?P<x>[a-z][^,.;!?]*?)\s*,\s*(?P<y>[a-z][^.;!?]*?)\s*[.!?]", re.IGNORECASE)
"""A step ordered by one said before it: "Before you touch the shrine, jump the lava. Before you jump
the lava, flip the lever." (the second "jump the lava" is the first one, not a step again)."""


def _chained(text: str) -> str:
    """``text`` with each :data:`CHAINED` sentence whose other step was said earlier put next to it
    there ("..., flip the lever, then jump the lava.") and taken out where it stood."""
    at = 0
    while (m := CHAINED.search(text, at)) is not None:
        said = list(re.finditer(rf"\b{re.escape(m.group('x'))}\b", text[:m.start()], re.IGNORECASE))
        if not said:
            verb = m.group("x").split()[0]
            again = re.match(rf"\s*(?:and\s+)?then\s+(?:you\s+)?{re.escape(verb)}(?:\s+(?:it|there|over\s+it|across|now))?\s*[.!?]", text[m.end():], re.IGNORECASE)
            if m.group("lead").lower() == "before" and again is not None:  # "Before you jump the lava, kill the skeleton. Then jump.": one jump
                text = text[:m.end()] + text[m.end() + again.end():]
            at = m.end()
            continue
        x, y = said[-1].group(0), m.group("y")
        both = f"{y}, then {x.lower()}" if m.group("lead").lower() == "before" else f"{x}, then {y}"
        text = text[:said[-1].start()] + both + text[said[-1].end():m.start()].rstrip(" ") + text[m.end():]
        at = said[-1].start() + len(both)
    return text


PURPOSE_FIRST = re.compile(r"(?:^|(?<=[.!?]\s))(?:in\s+order\s+)?to\s+(?P<verb>[a-z]+)\s+(?P<thing>(?:the|a|an|it)\b(?:\s+[a-z]+)?)\s*,\s*"
                           r"(?P<step>[a-z][^.;!?,]*?)(?P<end>[.!?]|$)", re.IGNORECASE | re.MULTILINE)
""""To open the door, use the switch.": the step, for its purpose ("use the switch to open the
door"), and not the purpose as a step of its own ("open the door" would interact with a door)."""


def _purpose_after(m: re.Match[str]) -> str:
    from evo.plans.markers import REACHING

    if m.group("verb").lower() in REACHING or not _verb(m.group("verb")) or not _verb(m.group("step").split()[0]):
        return m.group(0)  # "To reach the shrine, ...": reaching it is a step
    step = m.group("step").strip()
    return f"{step[0].upper()}{step[1:]} to {m.group('verb')} {m.group('thing')}{m.group('end')}"


PURPOSE_IT = re.compile(r"\bto\s+(?P<verb>[a-z]+)\s+(?P<thing>the\s+[a-z]+)\s*(?P<stop>[.!;]\s+)(?P<next>(?:(?!\b(?:the|a|an)\s)[^.!?\d])*?)\bit\b", re.IGNORECASE)
""""Use the switch to open the door. Then go through it.": "it" is the door the step was for."""


def _purpose_it(text: str) -> str:
    from evo.plans.markers import REACHING

    return PURPOSE_IT.sub(lambda m: m.group(0) if m.group("verb").lower() in REACHING else
                          f"{m.group(0)[:m.start('next') - m.start()]}{m.group('next')}{m.group('thing')}", text)


GOAL_HEADING = re.compile(r"^(?P<lead>\s*(?:(?:as\s+soon\s+as|once|when|after)\s+[^,:.;!?]+,\s*)?)(?P<goal>(?:[a-z]+\s+){1,3}(?:the|a|an)\s+(?P<x>[a-z]+))\s*:\s*(?P<rest>\S.*?)(?P<end>[.!]?)\s*$",
                          re.IGNORECASE | re.MULTILINE)
""""Get to the shrine: flip the switch, jump the lava, then walk up to the shrine": the goal heads
the steps that end at its thing; no step of its own (else the shrine is gone to twice)."""


def _goal_headed(text: str) -> str:
    def cut(m: re.Match[str]) -> str:
        first = re.split(r"[.!?]\s", m.group("rest"))[0]  # "go for the shrine: jump the lava and use the shrine. Start by ..."
        last = [re.split(r",|;|\bthen\b|\band\b|[.!?]\s", said)[-1] for said in (m.group("rest"), first)]
        return f"{m.group('lead')}{m.group('rest')}{m.group('end')}" if any(re.search(rf"\b{re.escape(m.group('x'))}\b", said, re.IGNORECASE) for said in last) \
            and _verb(m.group("goal").split()[0]) else m.group(0)
    return GOAL_HEADING.sub(cut, text)


ON_THE_WAY = re.compile(r"^(?P<a>.*(?:,|\bthen)\s+)?(?P<b>[^,;]+?)\s*,\s*(?:and\s+)?(?P<g>[a-z]+ing)\s+(?P<x>(?:(?:over|across|past)\s+)?(?:the|a|an)\s+[a-z]+(?:\s+(?:pit|\d+))?|[a-z]+\s+\d+)\s+(?:on|along)\s+(?:the|your)\s+way"
                        r"(?:\s+there)?\s*$", re.IGNORECASE)
"""A step folded in after the one it comes on the way to ("go to the shrine and activate it, jumping
the lava on the way"): before it."""


WAY_THEN = re.compile(r"^(?P<a>[^,;]+?)\s*,\s*(?:but\s+|and\s+)?(?:on|along)\s+(?:the|your)\s+way(?:\s+there)?\s*,?\s+(?P<b>(?P<verb>[a-z]+)\b[^,;]*?)\s*$", re.IGNORECASE)
""""Get to the door, but on the way pick up coin 1": that first."""


def _on_the_way(body: str) -> str:
    way = WAY_THEN.match(body)
    if way is not None and _verb(way.group("verb")):
        return f"{way.group('b')[0].upper()}{way.group('b')[1:]}, then {way.group('a')[0].lower()}{way.group('a')[1:]}"
    m = ON_THE_WAY.match(body)
    if m is None or _base(m.group("g")) == m.group("g").lower():
        return body
    a, b = m.group("a") or "", m.group("b").strip()
    joined = list(re.finditer(r"\s+and\s+(?:then\s+)?(?=(?P<verb>[a-z]+)\b)", b, re.IGNORECASE))
    if not a and joined and _verb(joined[-1].group("verb")) and not re.search(r"\b(?:it|them|there)\b", b[joined[-1].end():], re.IGNORECASE):
        # "Turn the switch on and walk to the shrine, jumping the lava on the way"; not "go to the shrine and activate it, ...": it is the shrine
        a, b = f"{b[:joined[-1].start()]}, then ", b[joined[-1].end():]
    return f"{a}{_base(m.group('g'))} {m.group('x').strip()}, then {b[0].lower() if not a else b[0]}{b[1:]}"


SO_FIRST = re.compile(r"(?P<prev>(?:^|(?<=[.!?]\s))[^.!?;]+?)\s*[.!?;]\s+(?P<why>(?:the|that|this)\s+(?P<x>[a-z]+)\b[^.;!?,]*?)\s*,\s*so\s+"
                      r"(?:(?:you\s+)?(?:need\s+to|have\s+to|must|should)\s+)?(?P<b>[a-z][^.;!?,]*?)\s+first\s*(?P<end>[.!?]|$)", re.IGNORECASE | re.MULTILINE)
"""A step, then why another comes before it, and that one ("Leap across; the switch has to be on
before you can get there, so pull it first."): that one, then the step; the reason is no step."""


TO_GET_THERE = re.compile(r"(?P<prev>(?:^|(?<=[.!?]\s))[^.!?;]+?)\s*[.!?;]\s+(?:(?:you(?:'ll|\s+will)?\s+(?:have|need)\s+to|you\s+must)\s+)?(?P<b>[a-z][^.;!?]*?)\s+"
                          r"(?:in\s+order\s+)?to\s+(?:get|reach|make\s+it)\s+(?:there|to\s+it|it)\s*(?P<end>[.!?]|$)", re.IGNORECASE | re.MULTILINE)
"""A step, then another it takes to get there ("Go to the shrine. You will have to jump the lava to
get there."): that one before the step."""


def _to_get_there(m: re.Match[str]) -> str:
    prev = m.group("prev")
    going = list(re.finditer(r"(?:^|:\s*|,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?)(?=(?:go|walk|head|run|reach|get\s+to|make\s+your\s+way|move)\b)", prev, re.IGNORECASE))
    if not going:
        return m.group(0)  # no step of going there: left as written
    at = going[-1]
    head, tail, b = prev[:at.start()], prev[at.end():], m.group("b")
    lead = f"{head}{at.group(0) if head else ''}"
    return f"{lead}{b if head else b[0].upper() + b[1:]}, then {tail[0].lower()}{tail[1:]}{m.group('end') or '.'}"


OPENS_IT = re.compile(r"(?P<prev>(?:^|(?<=[.!?]\s))[^.!?;]*\b(?:once|when|after|as\s+soon\s+as)\s+(?:it|the\s+[a-z]+)\s+(?:is|gets|has\s+been|'s)\s+(?:open|opened|unlocked)\b[^.!?;]*?)"
                      r"\s*[.;]\s+(?:the\s+)?(?P<x>[a-z]+)\s+(?:opens|unlocks)\s+(?:it|the\s+[a-z]+)\s*(?P<end>[.!?]|$)", re.IGNORECASE | re.MULTILINE)
"""A step that waits for the door, then what opens it ("Hit the ogre once the door is open; the lever
opens it."): that thing used first."""


def opener_first(text: str) -> str:
    """``text`` with what opens the door, said after a step that waits for it (:data:`OPENS_IT`), used
    first; before the remarks are left out (:func:`evo.plans.framing.unframed` reads "the lever opens
    it" as one)."""
    return OPENS_IT.sub(lambda m: f"Use the {m.group('x')}. {m.group('prev')}{m.group('end') or '.'}", text)


def _so_first(m: re.Match[str]) -> str:
    b = re.sub(r"\b(?:it|that)\b", f"the {m.group('x')}", m.group("b"), count=1, flags=re.IGNORECASE)
    return f"{b[0].upper()}{b[1:]}. {m.group('prev')}{m.group('end') or '.'}"


def in_order(text: str) -> str:
    """``text`` with each sentence's steps in the order they are done, joined by "then"."""
    lines = []
    for line in _chained(_purpose_it(PURPOSE_FIRST.sub(_purpose_after, _goal_headed(TO_GET_THERE.sub(_to_get_there, SO_FIRST.sub(_so_first, text)))))).splitlines():
        sentences = []
        for sentence in done_first(_ranked(re.split(r"(?<=[.!?])\s+", _before_that(before_chain(first_of_all(line)))))):
            end = sentence[-1] if sentence and sentence[-1] in ".!?" else ""
            body = _on_the_way(sentence[:-1] if end else sentence)
            you = AFTER_YOU.match(body)
            if you is not None and _base(you.group("verb")) != you.group("verb").lower():
                a, done = you.group("a").strip(), f"{_base(you.group('verb'))} {you.group('b').strip()}"
                last = list(re.finditer(r"(?:,\s*|\s+)(?:and\s+)?then\s+", a, re.IGNORECASE))  # "A and then B once you've C": C before B
                body = f"{a[:last[-1].start()]}, then {done}, then {a[last[-1].end():]}" if last else f"{done}, then {a[0].lower()}{a[1:]}"
            gerund = (AFTER_GERUND.match(body) or HAVING_FIRST.match(body) or AFTER_ALL.match(body)) if you is None else None
            if gerund is not None and _base(gerund.group("verb")) != gerund.group("verb").lower() \
                    and not re.search(r"\b(?:then|first)\b", gerund.group("a"), re.IGNORECASE):
                a = gerund.group("a").strip()
                done = f"{_base(gerund.group('verb'))} {gerund.group('b').strip()}"
                last = None if re.search(r",\s*(?:but\s+)?(?:only\s+)?after\b", body, re.IGNORECASE) else \
                    next((m for m in reversed(list(re.finditer(r"\s+and\s+(?=(?P<verb>[a-z]+)\b)", a, re.IGNORECASE))) if _verb(m.group("verb"))), None)
                body = f"{a[:last.start()]}, then {done}, then {a[last.end():]}" if last is not None \
                    else f"{done}, then {a[0].lower()}{a[1:]}"  # "Pull the lever and use the shrine after jumping the lava": the shrine's
                body += gerund.groupdict().get("rest") or ""  # "Go through the door after using the switch, stand at ...": then those
            done = AFTER_DONE.match(body)
            if done is not None and _base(done.group("verb")) != done.group("verb").lower():
                a = done.group("a").strip()
                body = f"{_base(done.group('verb'))} {done.group('thing')}, then {a[0].lower()}{a[1:]}"
            means = MEANS.match(body)
            if means is not None and _base(means.group("verb")) != means.group("verb").lower() \
                    and means.group("a").strip().lower() not in ("start", "begin", "finish", "end", "start off", "end up"):
                end_, c = means.group("a").strip(), means.group("c").strip()
                thing = re.search(r"\b(?:the|a)\s+[a-z]+(?:\s+(?:pit|\d+))?$", end_, re.IGNORECASE)
                if thing is not None and re.search(r"\bit\b", c):  # "cross the lava by jumping over it": it is the lava
                    c = re.sub(r"\bit\b", thing.group(0), c, count=1)
                body = f"{means.group('lead') or ''}{_base(means.group('verb'))} {c} to {end_[0].lower()}{end_[1:]}{body[means.end():]}"
            twice = TWICE_BEFORE.match(body)
            if twice is not None and _base(twice.group("g")) != twice.group("g").lower():
                a, c = twice.group("a").strip(), twice.group("c").strip()
                body = f"{c[0].upper()}{c[1:]}, then {a[0].lower()}{a[1:]}, then {twice.group('b').strip()}"
            before = AND_BEFORE.match(body)
            if before is not None:
                a = before.group("a").strip()
                body = f"{before.group('b').strip()}, then {a[0].lower()}{a[1:]}{body[before.end():]}"
            nested = NESTED_FIRST.match(body)
            if nested is not None:  # "..., but before that jump the lava, and first of all pull the switch": the same
                a, b, c = ((nested.group(g) or nested.group(f"{g}2") or nested.groupdict().get(f"{g}3") or "").strip() for g in "abc")
                body = f"{c}, then {b}, then {a[0].lower()}{a[1:]}{body[nested.end():]}"
            m = BUT_BEFORE.match(body) or BUT_FIRST.match(body)
            if m is not None:
                body = f"{m.group('b').strip()}, then {m.group('a').strip()[0].lower()}{m.group('a').strip()[1:]}"
            body = BEFORE_GERUND.sub(lambda g: f", then {_base(g.group('verb'))}" if _base(g.group("verb")) != g.group("verb").lower()
                                     else g.group(0), body)  # "before anything else" is no gerund
            body = THERE.sub(lambda g: ", then " if _verb(g.group("word")) else g.group(0), body)
            body = BEFORE_THING.sub(", then ", body)
            body = ORDINAL_ADVERB.sub(", then ", body)
            body = AFTER.sub(lambda g: ", then " if g.group("word").lower() == "to" or _verb(g.group("word")) else g.group(0), body)
            body = AT_FRONT.sub(lambda g: f"{g.group('rest').strip()} at {g.group('place')}" if _verb(g.group("verb"))
                                and g.group("rest").strip() and not (g.group("comma") and re.search(r"\b(?:it|them|there|and|then)\b", g.group("rest"), re.IGNORECASE))
                                else g.group(0), body)
            sentences.append(body + end)
        lines.append(" ".join(_enabler_first(sentences)))
    return "\n".join(lines)
