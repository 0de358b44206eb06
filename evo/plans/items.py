"""A list of the game's things, each with its deed or none, as steps (issue 55, waves 54 to 57).

Testers list a route by its things more than by its verbs: "lever\\nlava\\nshrine", "coin 1 -
coin 2 - coin 3 - shrine (use it)", "Steps: (a) lever (pull it) (b) door (walk through)",
"#2 coin then #1 goblin (attack)", "Do: lever, coin_2, lava-jump.", "Skeleton 1 - kill it",
"Door (if open).", "2nd lamp: look up." Each item is a thing, its number ("coin 2", "#2 coin",
"coin #2", "coin number two", "the 2nd coin") and a deed said beside it (in brackets, after a
dash or a colon, or run on: "lava jump", "switch on") or none: then the game's one deed for that
thing (the lever's is pulling it) or else going to it.

A sentence, or a run of lines, is read so only when every piece of it is such an item (two or
more, or one with its deed said), so a sentence with a verb of its own ("Visit lamp 1, lamp 2")
is left to the reader. "#1 lever #2 door #3 shrine" numbers the list, not the things: numbers
after "#" that count 1, 2, 3 in order are labels.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

I = re.IGNORECASE
ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}
NUMBER = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
LABEL = re.compile(r"^\s*(?:\(\s*(?:\d{1,2}|[a-h])\s*\)|(?:\d{1,2}|[a-h])\s*[.)]|[-*•]|\[\s?[xX✓✔]?\s?\]|step\s+\d{1,2}\s*[:.)-])\s*", I)
"""A list item's label: "(a)", "(1)", "1.", "a)", "-", "[ ]", "Step 2:"."""
LEAD = re.compile(r"^\s*(?:meanwhile|also|plus|otherwise|besides|then|next|after\s+that|(?:(?:please\s*,?\s*)?(?:do\s+(?:these\s+|this\s+|it\s+)?)?in\s+(?:this|that|the\s+following)\s+order|do|order|"
                  r"(?:(?:two|three|four|five|six|the|these|my|test)\s+)?steps?(?:\s+to\s+(?:reproduce|repro|follow))?|str|repro(?:duction)?(?:\s+steps)?|to\s*do|"
                  r"(?:(?:the|my|our|your|main|usual|normal|full|standard|speedrun|golden)\s+)*(?:route|path|sequence|plan|run)))\s*:\s*", I)
"""A list's own label before its items ("Steps:", "Do:", "route:", "Please, in this order:", "Meanwhile:")."""
SEPARATOR = re.compile(r"\s*(?:,\s*(?:and\s+)?(?:then\s+)?|;\s*(?:then\s+)?|\s+-{1,2}>?\s+|\s*(?:->|→|=>|>)\s*|\s+then\s+|"
                       r"\s+(?=#\d{1,2}\s+[a-z])|\s+(?=\(\s*(?:\d{1,2}|[a-h])\s*\)\s))", I)
"""What stands between items: commas, semicolons, dashes, arrows, "then", and a "#2" starting the next."""
CONDITION = re.compile(r"^(?:only\s+)?(?:if|once|when)\s+(?:(?:the\s+)?(?P<x>[a-z]+)\s+)?(?:is\s+|'s\s+|gets\s+)?(?P<s>open|on|off|closed|shut)$", I)
"""A condition beside an item ("(if open)", "only if switch on")."""


EACH_LINE = re.compile(r"^\s*\(?\s*(?:just\s+|simply\s+)?(?P<d>[a-z]+(?:\s+(?:up|down|left|right|around|over))?)(?:\s+(?:to|at|on))?\s+"
                       r"(?:each(?:\s+one)?|all(?:\s+of\s+them)?|them\s+all|every\s+one|both)\s*\)?\s*[.!]?\s*$", I)
"""A line under a list that says its deed for every item ("(just walk to each one)", "look up at each")."""


def _deed_words(deed: str, verbs: Mapping[str, str]) -> bool:
    """A deed said alone: a verb of the game's (or look, turn, circle), a few words, none of them
    for all the things before ("look up at each", "circle both": the reader's) or a condition."""
    from evo.plans.lexicon import _lemma, is_verb

    words = re.findall(r"[a-z]+", deed.lower())
    return 0 < len(words) <= 4 and (words[0] in verbs or words[0] in ("look", "turn", "circle", "interact", "use", "kill", "walk", "step")
                                    or is_verb(words[0]) and _lemma(words[0], "v") == words[0] and words[0] not in ORDINAL and words[0] not in NUMBER
                                    and words[0] not in ("run", "test", "check", "loop", "start", "end", "finish", "last", "next", "then")) \
        and not set(words) & {"each", "both", "all", "every", "them", "when", "whenever", "sight", "if", "once", "until"}


def _plural(word: str, things: Mapping[str, str]) -> bool:
    """A thing's word in the plural ("coins", "enemies")."""
    return word.endswith("s") and (word[:-1] in things or word[:-3] + "y" in things or word[:-2] in things)


def _item(piece: str, things: Mapping[str, str], verbs: Mapping[str, str]) -> dict[str, str | int | None] | None:
    """One item: its thing's word, number, "#" number, deed and condition; None where it is not one."""
    piece = re.sub(r"\b(look|turn)_(up|down|left|right)\b", r"\1 \2", LABEL.sub("", piece.strip()).strip().rstrip(".!"), flags=I)  # "turn_left"
    piece = re.sub(r"^(?:(?:and\s+)?then|finally|lastly|firstly|next|after\s+that)\s*,?\s+|^first\s*,\s*|\s+(?:first|last|next|too|please|pls)$", "", piece, flags=I)
    piece = re.sub(r"^(?:the\s+)?(?:nearest|closest)\s+(?=[a-z]+$|[a-z]+\s*[(:-])", "", piece, flags=I)  # "Nearest goblin: kill": the type
    pre = re.match(r"(?P<deed>[a-z]+(?:\s+(?:up|down|left|right|on|over|across|through|with|at|to|around)){0,2})\s+(?=(?:the\s+)?[a-z#])", piece, I)
    if pre is not None and _deed_words(pre.group("deed"), verbs) and pre.group("deed").split()[0].lower() not in things:
        item = _item(piece[pre.end():], things, verbs)  # "jump the lava": an item with its deed before it
        if item is not None and item["deed"] is None:
            item["deed"], item["pre"] = re.sub(r"\s+(?:at|to|with)$", "", pre.group("deed"), flags=I), True
        return item if item is not None and item["deed"] == re.sub(r"\s+(?:at|to|with)$", "", pre.group("deed"), flags=I) else None
    m = re.fullmatch(r"(?:the\s+)?(?:(?P<ord>first|second|third|fourth|fifth|sixth|seventh|eighth|\d(?:st|nd|rd|th))\s+)?(?:#(?P<hash>\d{1,2})\s*)?"
                     r"(?P<x>[a-z]+)(?:\s*(?:_|#|number\s+|no\.\s*)?\s*(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight)\b)?"
                     r"(?:\s*(?:\((?P<inside>[^()]*)\)|[-:]\s*(?P<after>[a-z][a-z ,']*)|\s+and\s+(?P<and>[a-z]+(?:\s+[a-z]+)?)\s+(?:at\s+)?(?:it|them)|[- ](?P<run>[a-z]+)))?", piece, I)
    if m is None or m.group("x").lower() not in things or _plural(m.group("x").lower(), things):
        return None  # "Coins: grab them when close": a standing order, the reader's
    if m.group("run") and verbs.get(m.group("run").lower()) in (None, "move") and m.group("run").lower() != "on":
        return None  # "Loot run", "Stump run": a title
    deed, condition = (m.group("inside") or m.group("after") or m.group("and") or m.group("run") or "").strip(), None
    parts = [p.strip() for p in re.split(r",\s*", deed) if p.strip()]
    if parts and CONDITION.match(parts[-1]):
        condition = parts.pop()
    deed = ", ".join(parts)
    deed = re.sub(r"\s+(?:it|this|that|one)$", "", deed, flags=I)
    if any(w in things for w in re.findall(r"[a-z]+", deed.lower())):
        return None  # "Goal: use the lever, then ...": a heading, not the goal's deed
    if deed.lower() in ("on", "switched on", "turned on"):
        deed = "turn on"
    if deed and not _deed_words(deed, verbs):
        return None
    n = m.group("n") or (m.group("ord") and str(ORDINAL.get(m.group("ord").lower(), m.group("ord")[:-2])))
    n = str(NUMBER.get(n.lower(), n)) if n else None
    return {"x": m.group("x"), "n": n, "hash": m.group("hash"), "deed": deed or None, "if": condition}


def _said(item: dict, things: Mapping[str, str], deeds: Mapping[str, str], label: bool) -> str:
    """The item as a step in words ("pull the lever", "look up at the lamp 2", "go to the door if the door is open")."""
    n = item["n"] or (None if label else item["hash"])
    np = f"the {item['x']}" + (f" {n}" if n else "")
    deed = item["deed"] or deeds.get(str(item["x"]).lower()) or "go to"
    at = " at" if re.match(r"(?:look|turn)\s+(?:up|down|left|right)$", deed, I) else ""
    said = f"{deed}{at} {np}"
    if item["if"]:
        c = CONDITION.match(str(item["if"]))
        said += f" if the {c.group('x') or item['x']} is {c.group('s')}" if c else ""
    return said


def _items(sentence: str, things: Mapping[str, str], verbs: Mapping[str, str], deeds: Mapping[str, str]) -> list[dict] | None:
    """Every piece of ``sentence`` as an item, a deed alone joined to the item before ("goblin one - attack"); None otherwise."""
    sentence = LEAD.sub("", LABEL.sub("", sentence)).strip().rstrip(".!")
    if not sentence:
        return None
    items: list[dict] = []
    every = re.search(r"\s*\((?P<d>[^()]*\b(?:them|all|each|every\s+one|both)\b[^()]*)\)\s*$", sentence, I)  # "coin 4 -> coin 3 (pick them all up)"
    to_all = re.sub(r"\s+", " ", re.sub(r"\b(?:them|all|each|every\s+one|both|of)\b", "", every.group("d"), flags=I)).strip() if every else ""
    if every is not None and _deed_words(to_all, verbs):
        sentence = sentence[:every.start()]
    else:
        to_all = ""
    guarded = re.sub(r"\([^()]*\)", lambda m: m.group(0).replace(",", "\0"), sentence)  # "(jump, only if switch on)": one item
    guarded = re.sub(r"(?<=[;,])\s*(?:step|action)\s+\d{1,2}\s*[:.)–-]\s*", " ", guarded, flags=I)  # "Step 1 - coin 1; step 2 - coin 8"
    guarded = re.sub(r"\b([a-z]{3,})(\d{1,2})\b", lambda m: f"{m.group(1)} {m.group(2)}" if m.group(1).lower() in things else m.group(0), guarded, flags=I)
    tail = re.search(r"\s*(?:,|;|\s-)\s*(?P<d>[a-z]+(?:\s+(?:up|down|around|over))?)\s+(?:them\s+)?(?:all|both|each)(?:\s+(?:two|three|four|of\s+them))?"
                     r"(?:\s+in\s+(?:that|this|the\s+same)\s+order)?\s*$", guarded, I)  # "goblin 1; goblin 2; goblin 3 - kill all three in that order"
    if tail is not None and not to_all and _deed_words(tail.group("d"), verbs):
        guarded, to_all = guarded[:tail.start()], tail.group("d")
    for piece in SEPARATOR.split(guarded):
        piece = piece.replace("\0", ",")
        if not piece.strip():
            continue
        item = _item(piece, things, verbs)
        deed = re.sub(r"\s+(?:it|them)$", "", piece.strip().rstrip(".!"), flags=I)
        if item is None and _deed_words(deed, verbs) and not any(w in things for w in deed.lower().split()):
            action = verbs.get(deed.split()[0].lower())
            if items and items[-1]["deed"] is None and deeds.get(str(items[-1]["x"]).lower()) in (None, action):
                items[-1]["deed"] = deed  # "goblin one - attack", "barrel 4 -> turn left"
                continue
            only = {t for w, t in things.items() if deeds.get(w) == action} if action else set()
            if len(only) == 1:  # "lever, jump, altar": jumping is done to the lava alone
                items.append({"x": only.pop(), "n": None, "hash": None, "deed": deed, "if": None})
                continue
        if item is None:
            return None
        items.append(item)
    for item in items if to_all else ():
        item["deed"] = item["deed"] or to_all
    return items or None


def _labels(items: Sequence[dict]) -> bool:
    """The "#" numbers count the list (1, 2, 3 in order), not the things."""
    hashes = [int(i["hash"]) for i in items if i["hash"]]
    return len(hashes) == len(items) and len(items) >= 2 and hashes == list(range(1, len(items) + 1))


ELIDED = re.compile(r"(?P<pre>(?:,\s*|\b(?:and|then)\s+)(?:and\s+)?(?:then\s+)?)(?P<n>the\s+(?:\d(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth)"
                    r"|(?:#\s*)?\d|one|two|three|four|five|six|seven|eight)(?=\s*(?:[.;!?]|,|$|\s+(?:and|then|one)\b))", I | re.M)
"""A number or ordinal with its thing left out ("the 5th coin and then the 6th", "pillar two. then three.")."""


def elided(text: str, things: Mapping[str, str]) -> str:
    """``text`` with the thing put back where a number or ordinal stands for one more of the kind
    named just before it (:data:`ELIDED`)."""
    def put_back(m: re.Match[str]) -> str:
        window = text[max(0, m.start() - 80):m.start()]
        named = [(w.group(2), bool(w.group(1) or w.group(3))) for w in re.finditer(
                 r"\b(?:the\s+(\d(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth)\s+)?([a-z]+)"
                 r"(?:\s+(?:#\s*)?(\d|one|two|three|four|five|six|seven|eight)\b)?", window, I)
                 if w.group(2).lower() in things and not _plural(w.group(2).lower(), things)]
        if not named or not named[-1][1]:
            return m.group(0)  # one more of a kind named with its number ("goblin 1 and then 2"), not of "the lever"
        named = [w for w, _ in named]
        n = m.group("n")
        return f"{m.group('pre')}{n} {named[-1]}" if n.lower().startswith("the ") else f"{m.group('pre')}{named[-1]} {n}"
    return ELIDED.sub(put_back, text)


def _takes(item: dict, action: str | None, deeds: Mapping[str, str]) -> bool:
    """Whether a verb gapped from the item before fits the item: its thing's one deed, or, for a
    thing with none, a verb the game does to any thing ("jump lava -> coin 8": no jump on the coin)."""
    return action not in set(deeds.values()) or deeds.get(str(item["x"]).lower()) == action


def _clash(items: Sequence[dict], verbs: Mapping[str, str], deeds: Mapping[str, str]) -> bool:
    """A thing alone after a deed said before its thing that the deed does not fit ("activate switch
    → jump lava → coin 8"): a route of steps each on its own, not one verb gapped."""
    return any(before.get("pre") and not item["deed"] and not _takes(item, verbs.get(str(before["deed"]).split()[0].lower()), deeds)
               for before, item in zip(items, items[1:]))


def _sentences(line: str) -> list[str]:
    """A line's sentences, its list label ("1.") kept with the first."""
    label = LABEL.match(line)
    cut = label.end() if label else 0
    sentences = re.split(r"(?<=[.!?])\s+", line[cut:])
    return [line[:cut] + sentences[0], *sentences[1:]]


def itemized(text: str, things: Mapping[str, str], verbs: Mapping[str, str], deeds: Mapping[str, str]) -> str:
    """``text`` with each sentence or run of lines that is only a list of things (:mod:`evo.plans.items`)
    as the steps it lists; ``things``: a word -> the thing it names; ``verbs``: a verb -> its action;
    ``deeds``: a word for a thing -> the one action the game does to it."""
    things = {w.lower(): t for w, t in things.items()}
    deed_words = {w.lower(): d for w, d in deeds.items()}
    text = elided(text, things)
    lines = text.split("\n")
    for k in range(1, len(lines)):  # "3. barrel 3\n4. barrel 4, walk to each one": the deed on a line of its own
        tail = re.search(r",\s*(?P<e>(?:just\s+)?[a-z]+(?:\s+[a-z]+){0,2}\s+(?:each(?:\s+one)?|all(?:\s+of\s+them)?|them\s+all|every\s+one|both)\s*[.!]?)\s*$", lines[k], I)
        if tail is not None and LABEL.match(lines[k]) and LABEL.match(lines[k - 1]):
            lines[k:k + 1] = [lines[k][:tail.start()], tail.group("e")]
            break
    parsed = [[_items(s, things, verbs, deed_words) for s in _sentences(line)] for line in lines]
    bare_lines = [len(p) == 1 and p[0] is not None and len(p[0]) == 1 and p[0][0]["deed"] is None for p in parsed]
    item_lines = [all(s is not None for s in p) for p in parsed]
    if any(LABEL.match(line) and line.strip() and not item_lines[k] for k, line in enumerate(lines)):
        parsed = [[None] * len(p) if LABEL.match(line) else p for p, line in zip(parsed, lines)]  # a numbered list read whole or not at all
    if len(lines) > 1 and not (item_lines[1] and parsed[1][0] and not parsed[1][0][0].get("pre")):
        parsed[0] = [None] * len(parsed[0])  # "Ogre fight\n- walk up to the ogre ...": the first line a title
    for k, line in enumerate(lines):  # "1. barrel 1\n2. barrel 2\n(just walk to each one)": that deed for each item above
        each = EACH_LINE.match(line)
        if each is not None and k > 0 and item_lines[k - 1] and _deed_words(each.group("d"), verbs):
            for p in parsed[:k]:
                for items in p:
                    for item in items or ():
                        item["deed"] = item["deed"] or each.group("d")
            lines[k], parsed[k], item_lines[k] = "", [None], False
    out, listing = [], False
    for k, (line, sentences) in enumerate(zip(lines, parsed)):
        run = bare_lines[k] and ((k > 0 and bare_lines[k - 1]) or (k + 1 < len(lines) and bare_lines[k + 1]))
        said, gapping = [], False
        for j, (sentence, items) in enumerate(zip(_sentences(line), sentences)):
            after = sentences[j + 1] if j + 1 < len(sentences) else None
            ahead = after is not None and not after[0].get("pre") and (j == 0 or listing)  # "Lever first. Then the 3rd coin.": a list in sentences
            before = sentences[j - 1] if j > 0 else None
            own = items is not None and before is not None and before[-1].get("pre") and len(items) == 1 and not items[0]["deed"] \
                and deed_words.get(str(items[0]["x"]).lower()) not in (None, verbs.get(str(before[-1]["deed"]).split()[0].lower()))
            bare = items is not None and all(not i["deed"] and not i["if"] and not i["hash"] for i in items)
            verb = verbs.get(str(before[-1]["deed"]).split()[0].lower()) if before and before[-1].get("pre") else None
            fits = bare and bool(before and before[-1].get("pre")) and all(_takes(i, verb, deed_words) for i in items)
            gapping = not own and (fits or (gapping and j > 0 and bare))  # "Circle pillar 1. Then pillar 2, pillar 3.": the verb gapped
            if items is None or gapping or not (run or listing or ahead or own or len(items) >= 2 or any(i["deed"] or i["if"] or i["hash"] for i in items)) \
                    or items[0].get("pre") and not (_clash(items, verbs, deed_words) and re.search(r"->|→|=>|\(\s*\d{1,2}\s*\)", sentence)):  # "Circle lamp 4, then stump 4": the reader's, its verb gapped
                said.append(sentence)
                listing = False
                continue
            listing = True  # "Door (if open). Lava (jump). Shrine.": the list goes on
            label = _labels(items)
            for before, item in zip(items, items[1:]):
                if before.get("pre") and item["deed"] is None and _takes(item, verbs.get(before["deed"].split()[0].lower()), deed_words):
                    item["deed"] = before["deed"]  # "lever, circle pillar 2, pillar 3": the verb gapped where it fits
            lead = LABEL.match(sentence)
            said.append((lead.group(0) if lead and not LEAD.match(sentence) else "")
                        + ", then ".join(_said(i, things, deed_words, label) for i in items) + ".")
        out.append(" ".join(said))
    return "\n".join(out)
