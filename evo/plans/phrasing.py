"""Everyday phrasings of a step rewritten to the plain words the parser reads.

Testers wrap a step in words that belong to no step: a request ("Could you pull the lever?",
"I want you to ...", "Let's ..."), a discourse adverb ("Meanwhile, ...", "..., before anything
else"), an order word after the object ("Attack the orc first") or a hedge ("if you can"). They
name a deed as a noun after a light verb ("give the switch a flick", "take a swing at the
goblin"), go somewhere in an idiom ("make your way to"), put a pronoun inside a phrasal verb
("take it out"), go "out of" a door rather than to it, number an instance after its noun
("barrel number 3") and say "when done" for "then". Read as written, each is a wrong step: the
action ``Meanwhile``, the actor ``first``, the direction west. Each family is rewritten here by
one pattern (and WordNet where a word's part of speech decides it), before the sentence is
parsed, so the parser sees "pull the lever", "flick the switch", "go to the skeleton".

The words of requests, fillers and order adverbs are a short hand list (docs/guides/text-plans.md
says so): they are closed classes of English, which WordNet does not list as such.
"""

from __future__ import annotations

import re
from typing import Iterable

NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten"
"""Numbers in words, as list markers and numbered instances write them."""

REQUEST = re.compile(
    r"^\s*(?:(?:please|kindly|just)\s+|(?:could|can|would|will)\s+you\s+(?:please\s+)?|"
    r"i(?:'d| would)?\s+(?:want|need|like|would like|'d like)\s+you\s+(?:to\s+)?|i'd\s+like\s+you\s+to\s+|would\s+you\s+mind\s+(?:just\s+)?|"
    r"let's\s+|let us\s+|you\s+(?:need|ought|have|want)\s+to\s+|(?:try|attempt)\s+to\s+)", re.IGNORECASE)
"""A request or hedge before the step's verb ("Could you ...", "I'd like you to ...", "Let's")."""
FILLER = (r"meanwhile|in the meantime|at the same time|before anything else|first of all|first thing|"
          r"first things first|along the way|on the way|at some point|while you're at it|while you are at it|"
          r"if you can|if possible|if you like|please|also|as well|to start with|to begin with|for now|"
          r"at any point|whenever you like|throughout(?: the (?:test|run|level|session|walk|trial))?|otherwise|"
          r"apart from that|besides that|other than that|in addition|during that time|during this time|"
          r"in this (?:protocol|test|run|session|study|trial|scenario)|for this (?:test|run|session|trial)|"
          r"okay so|ok so|so basically|basically|oh and|oh|alright|actually|of course|obviously|naturally|until then|till then|from then on|from now on|from that point on|the last thing")
"""Discourse fillers that belong to no step (a hand list: closed-class phrases)."""
GO_ON = re.compile(r"^\s*(?:(?:do|repeat)\s+(?:this|that|so|it)(?:\s+(?:all|again))?|keep\s+(?:this|that|it)(?:\s+(?:up|going))?|keep\s+(?:going|at\s+it)|carry\s+on(?:\s+like\s+(?:this|that))?|"
                   r"continue(?:\s+like\s+(?:this|that)|\s+doing\s+(?:this|that|so))?)\s*[.!]?\s*$", re.IGNORECASE)
"""A sentence that only says to go on ("Keep this up for 40 seconds.", its budget already taken
out; "Carry on like that."): no step of its own (a closed class of phrases)."""
LEADING = re.compile(rf"^\s*(?:{FILLER})\s*(?:,\s*|:\s*|\s+(?=[a-z]))", re.IGNORECASE)
TRAILING = re.compile(rf",?\s+(?:{FILLER}|first|next|last|now|right now|straight away|at once|"
                      r"immediately|to start|to begin|first thing|(?:just\s+)?(?:to\s+compare|for\s+(?:comparison|reference|a\s+baseline)|as\s+a\s+(?:baseline|control)))"
                      r"(?=\s*(?:[,.;!?]|$|,?\s+(?:and|then)\b))",
                      re.IGNORECASE)
"""A filler or an order adverb after the step ("Attack the orc first", "pull it if you can")."""
DONE = re.compile(r"^\s*(?:(?:when|once|after)\s+(?:that(?:'s| is| has been)|this(?:'s| is)|it(?:'s| is)|you(?:'re| are| have| 've)"
                  r"|you(?:'ve)?|i(?:'m| am))?\s*(?:done|finished|complete|completed|through)(?:\s+with\s+that)?|"
                  r"having done (?:that|so|this)|once finished|when finished|when done|once done)\s*,?\s*", re.IGNORECASE)
"""A clause saying the step before is done ("When you're done, ..."): the sentence after it is
the next step already."""
AFTER_WHICH = re.compile(r",?\s+(?:after which|whereupon|and (?:then )?once that's done,?)\s+", re.IGNORECASE)
ONLY = re.compile(r"^\s*(?:only\s+(?=after|once|when|if)|not\s+until\b|in case\b|(?<![\w'])should\s+(?=(?:a|an|the|any)\s))",
                  re.IGNORECASE)
"""A condition's stress ("Only after the door opens", "Not until ...": once; "In case", "Should
a goblin appear": if)."""
ONLY_AFTER_AND = re.compile(r"(?<=,|;)(\s*(?:and\s+)?)only\s+(?=(?:after|once|when|if)\b)|(?<=\band)(\s+)only\s+(?=(?:after|once|when|if)\b)", re.IGNORECASE)
"""The same stress after "and" or a comma ("Use the switch, and only if it's on, jump the lava"):
the condition of the step after it, as without "only"."""
PROVIDED = re.compile(r"\b(?:provided|providing|(?:as|so)\s+long\s+as)(?:\s+that)?\s+(?=(?:the|it)\b)|(?<=\bis)\s+still\b(?=\s+(?:on|open)\b)",
                      re.IGNORECASE)
""""provided the switch is still on", "as long as the door is open": if the switch is on."""
IDIOM = re.compile(r"\b(?:(?:make|find|work|wend|pick)\s+(?:your|our|one's)\s+way|get\s+yourself|head\s+on)\s+"
                   r"(?:over\s+|back\s+)?(?=to\b|towards?\b)", re.IGNORECASE)
"""A motion idiom ("make your way to", "get yourself over to", "head on over to"): go."""
LIGHT = re.compile(r"\b(?:give|gives)\s+(?P<thing>(?:the|a|an|that|this)\s+\w+)\s+(?:a|an|one)\s+(?:quick\s+|good\s+|little\s+)?"
                   r"(?P<deed>\w+)\b|\b(?:take|have|make|do)\s+(?:a|an)\s+(?:quick\s+)?(?P<deed2>\w+)\s+(?P<prep>at|for|over|across|to)\b",
                   re.IGNORECASE)
"""A light verb with the deed as a noun ("give the switch a flick": flick the switch; "take a
swing at the goblin": swing at the goblin)."""
LAP = re.compile(r"\b(?:do|does|make|makes|take|takes|have|go|run|walk|complete)\s+(?:a|an|one)\s+"
                 r"(?:(?:full|complete|whole|quick|little|big|small|wide|slow)\s+)?(?:circle|loop|lap|round|orbit|ring|circuit)"
                 r"\s+(?=(?:around|round)\b)", re.IGNORECASE)
"""A path around a thing said as a noun ("make a circle around it", "do a full loop round the
pillar"): going around it, which is circling; the noun is no actor."""
PHRASAL = re.compile(r"\b(?P<verb>[a-z]+)\s+(?P<pron>it|them|him|her|one)\s+(?P<part>out|down|up|on|off|over|in)\b"
                     r"(?=\s*(?:[,.;!?]|$|,?\s+(?:and|then)\b))", re.IGNORECASE)
"""A pronoun inside a phrasal verb ("take it out"): the particle beside its verb."""
PATH = re.compile(r"\b(?P<verb>walk|go|run|head|step|move|leave|exit|get|hurry|dash|sprint|jog|stroll|pass)\s+"
                  r"(?:out\s+of|out\s+through|out|through|into|in\s+through|in|via|by\s+way\s+of)\s+(?=(?:the|a|an)\s|it\b)|"
                  r"\b(?:step|stand|stay|wait|finish|end|end\s+up|stop)\s+(?:on|onto|upon|by|beside|next\s+to|at|on\s+top\s+of)\s+"
                  r"(?=(?:the|a|an|every|each|any)\s|it\b)", re.IGNORECASE)
"""A way through a place after a verb of going ("walk out the door", "leave via the gate"), or
standing at a place ("step onto the coin", "stand by the pillar", "finish at the lamp"): to it."""
NUMBERED = re.compile(rf"\b(?:the\s+)?(?P<noun>[a-z]+)\s+(?:number\s+|no\.\s*|#\s*)(?P<n>\d+|{NUMBER_WORDS})\b", re.IGNORECASE)
BARE_NUMBER = re.compile(r"\b(?:(?P<lead>to|at|around|round|near|by|circle|orbit)\s+)?(?:the\s+)?(?P<noun>[a-z]+)\s+"
                         rf"(?P<n>\d+|{NUMBER_WORDS})\b(?=\s*(?:[,.;!?]|$)(?!\d)|\s+\d{{1,2}}[.)]\s|\s+(?:and|then|or|before|after|first|next|"
                         r"twice|once|again|to|at|in|with|on|near|by|for|as|too|also|please|now|while|when|until|so|but|if|because|"
                         r"from|instead|afterwards|right|immediately|quickly|carefully)\b)", re.IGNORECASE)
"""An instance numbered after its noun ("barrel number 3", "lamp #4", "go to barrel 4")."""
ELIDED_NUMBER = re.compile(rf"(?:(?<=\bthen\s)|(?<=\band\s)|(?<=,\s))(?:number\s+|no\.\s*|#\s*)(?P<n>\d+|{NUMBER_WORDS})\b", re.IGNORECASE)
"""An instance's number with its noun left out ("goblin number one, then number two"): the one of the kind before."""
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_WORD_NUMBERS = {w: i + 1 for i, w in enumerate(NUMBER_WORDS.split("|"))}
_NOT_NOUNS = frozenset({"for", "in", "within", "after", "at", "than", "of", "then", "and", "or", "now", "step", "steps", "play", "spend", "have",
                        "number", "no", "level", "room", "test", "case", "phase", "part", "wave", "round", "stage",
                        "minute", "minutes", "second", "seconds", "hour", "hours", "about", "around", "only", "just",
                        "last", "first", "next", "top", "every", "each", "all", "than", "over", "under", "least", "most"})


def _noun(word: str) -> bool:
    """A word WordNet knows as a noun and that is no verb's form alone ("barrel", "lamp"; not
    "jump" in "jump 3 times", which the lookahead leaves, nor "for" in "for 2 steps")."""
    from evo.plans.lexicon import is_noun, wordnet

    wordnet()
    return word.isalpha() and is_noun(word)


def _ordinal(n: str) -> str | None:
    value = int(n) if n.isdigit() else _WORD_NUMBERS.get(n.lower(), 0)
    return _ORDINALS[value - 1] if 1 <= value <= len(_ORDINALS) else None


def numbered(line: str, things: Iterable[str] = ()) -> str:
    """``line`` with instances numbered after their noun as ordinals ("barrel number 3": the
    third barrel); run on a whole line, before it is cut at "no."'s full stop. ``things``: the
    game's words for its things, nouns where WordNet has none ("orc 2")."""
    names = {t.lower() for t in things}

    def ordinal(m: re.Match[str]) -> str:
        nth = _ordinal(m.group("n"))
        if nth is None or m.group("noun").lower() in _NOT_NOUNS or not (m.group("noun").lower() in names or _noun(m.group("noun"))) \
                or re.search(r"\b(?:you|they|we|i|he|she|it|player)\s*$", line[:m.start()], re.IGNORECASE):
            return m.group(0)  # "whenever you find one": a verb after its subject, no instance
        lead = f"{m.group('lead')} " if "lead" in m.groupdict() and m.group("lead") else ""
        return f"{lead}the {nth} {m.group('noun')}"

    def one(m: re.Match[str]) -> str:
        nth = _ordinal(m.group("n"))
        return m.group(0) if nth is None else f"the {nth} one"

    return ELIDED_NUMBER.sub(one, BARE_NUMBER.sub(ordinal, NUMBERED.sub(ordinal, line)))


def _light(m: re.Match[str]) -> str:
    """A light verb's deed as the verb, when WordNet knows the noun as a verb too."""
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    deed = m.group("deed") or m.group("deed2")
    if not is_verb(deed):
        return m.group(0)
    verb = _lemma(deed, "v")
    return f"{verb} {m.group('thing')}" if m.group("thing") else f"{verb} {'to' if m.group('prep').lower() == 'for' else m.group('prep')}"


def plain(sentence: str) -> str:
    """``sentence`` in the plain words the parser reads (the families above)."""
    sentence = GO_ON.sub("", re.sub(r"\?\s*$", ".", sentence.strip()))
    before = None
    while before != sentence:
        before = sentence
        sentence = REQUEST.sub("", LEADING.sub("", DONE.sub("", sentence)))  # the sentences are in order
    sentence = ONLY.sub(lambda m: "if " if m.group(0).strip().lower() in ("in case", "should") else
                        ("once" if m.group(0).strip().lower().startswith("not") else ""), sentence)
    sentence = ONLY_AFTER_AND.sub(lambda m: m.group(1) or m.group(2), sentence)
    sentence = re.sub(r"^(?:and\s+)?(?:the\s+)?same\s+(?:for|with|goes\s+for)\s+(?=\S)", "Do the same with ", sentence, flags=re.IGNORECASE)  # "Same for goblins."
    sentence = PROVIDED.sub(lambda m: "" if m.group(0).strip().lower() == "still" else "if ", sentence)
    sentence = AFTER_WHICH.sub(", then ", TRAILING.sub("", sentence))
    sentence = IDIOM.sub("go ", LIGHT.sub(_light, LAP.sub("go ", sentence)))
    sentence = PHRASAL.sub(lambda m: f"{m.group('verb')} {m.group('part')} {m.group('pron')}", sentence)
    sentence = PATH.sub("go to ", sentence)
    return sentence
