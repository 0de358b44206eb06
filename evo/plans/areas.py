"""Things named by where they are ("the ogre in room B", "the goblin in the last room", "the
skeleton (skeleton_2)"): the one of that kind there.

Testers told to write plans the level can complete read in the games reference which room holds
what, and then named things by their room (wave 66: "kill the ogre in the first room, then hit
the switch, then kill the ogre in the second room", "In room B kill the ogre there too"). Read
as the nearest of its kind, such a step was a silent wrong plan. A game that has rooms says which
holds what (its optional ``areas``: a room -> the actors in it, in the order the level is
played) and what testers call them (``area_synonyms``: "first room", "past the lava"); a thing
of a kind the room holds one of is that one, and a room holding several of the kind leaves the
text as written (the reader's doubt: "a coin in room B").
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from evo.run.config import ConfigError

I = re.IGNORECASE
NAMED_AGAIN = re.compile(r"\b(?:the|a|an)\s+(?P<t>[a-z]+)(?P<mid>\s+(?:there|here)|\s+(?:in|inside|past|behind|beyond|across|near|by|at)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?)?\s*\(\s*(?:the\s+)?(?P<t2>[a-z]+)[\s_#]*(?P<n>\d{1,2})\s*\)", I)
"""A thing named again in brackets with its number ("the goblin there (goblin_2)"): that one."""


HERE = re.compile(r"^\s*(?:there|here)$", I)
NICKNAMES = {"skelly": "skeleton", "skellie": "skeleton", "gobbo": "goblin"}
"""A gamer's names for a kind ("the skelly in the starting room")."""


def _numbered(text: str, things: Mapping[str, str]) -> str:
    """``text`` with things of a kind numbered in brackets ("Coins first (1, 2, 3)") as "coins 1, 2 and 3"."""
    def each(m: re.Match[str]) -> str:
        ns = re.findall(r"\d{1,2}", m.group("ns"))
        return f"{m.group('t')} {', '.join(ns[:-1])} and {ns[-1]}{m.group('first') or ''}" if m.group("t").lower() in things else m.group(0)
    return re.sub(r"\b(?:the\s+)?(?P<t>[a-z]+)(?P<first>\s+first)?\s*\(\s*(?:nos?\.?\s*|#\s*)?(?P<ns>\d{1,2}(?:\s*(?:,|and|&)\s*\d{1,2})+)\s*\)", each, text, flags=I)


def _phrases(areas: Sequence[str], synonyms: Mapping[str, str]) -> dict[str, str]:
    out = {a.lower(): a for a in areas}
    out.update({w.lower(): a for w, a in synonyms.items() if a in areas})
    out.update({p.replace("room", "rm"): a for p, a in list(out.items()) if p.startswith("room ")})  # "rm A"
    return out


def in_areas(text: str, things: Mapping[str, str], areas: Mapping[str, Sequence[str]], synonyms: Mapping[str, str]) -> str:
    """``text`` with each thing named by its room, or named again with its number, as that one
    (``things``: a word -> the type it names)."""
    things = {w.lower(): t for w, t in things.items()}
    things.update({nick: things[w] for nick, w in NICKNAMES.items() if w in things})
    text = _numbered(text, things)
    text = NAMED_AGAIN.sub(lambda m: f"{things[m.group('t').lower()]}_{m.group('n')}{HERE.sub('', m.group('mid') or '')}"
                           if things.get(m.group("t").lower()) is not None and things.get(m.group("t").lower()) == things.get(m.group("t2").lower())
                           else m.group(0), text)
    if not areas:
        return text
    phrases = _phrases(list(areas), synonyms)
    area = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in sorted(phrases, key=len, reverse=True))
    kinds = "|".join(re.escape(w) for w in sorted(things, key=len, reverse=True) if " " not in w)
    where = rf"(?:(?:in|inside|from|of|at|on|within)\s+)?(?:the\s+)?(?P<area>{area})(?![\w-])"
    named = re.compile(rf"\b(?P<det>(?:(?:all|both|each|every)\s+(?:of\s+)?)?(?:(?:the|a|an|that|one|any)\s+)?(?:(?:two|three|four|\d)\s+)?)(?P<t>{kinds})(?P<pl>s)?(?P<n>[\s_]*#?\d{{1,2}})?(?:\s+(?:that|which|who)(?:\s+is|'s)|\s+that's)?\s+{where}(?:\s+there)?", I)

    def single(kind: str) -> bool:
        return sum(a.rsplit("_", 1)[0] == kind for held in areas.values() for a in held) == 1

    def one(kind: str, room: str) -> str | None:
        held = [a for a in areas[room] if a.rsplit("_", 1)[0] == kind]
        return held[0].rsplit("_", 1)[1] if len(held) == 1 else None

    def thing(m: re.Match[str]) -> str:
        kind, room = things[m.group("t").lower()], phrases[re.sub(r"\s+", " ", m.group("area").lower())]
        if single(kind):
            return m.group(0)[:m.end("t") - m.start()]  # "the lever in the first room": the one lever, as written
        if m.group("n"):
            return f"{kind}_{m.group('n').strip(' _#')}"
        n = one(kind, room)
        if n is not None:
            return f"{m.group('det') if m.group('det').strip().lower() not in ('the', 'a', 'an', 'that', 'one', 'any') else ''}{kind}_{n}"
        held = [a for a in areas[room] if a.rsplit("_", 1)[0] == kind]
        plural = m.group("pl") or (m.group("t").lower().endswith("s") and things.get(m.group("t").lower()[:-1]) == kind)
        if re.match(r"\s*[:(]", m.string[m.end():]):
            return m.group(0)  # "both coins past the lava: coin 7 and coin 8": named after
        if len(held) > 1 and (plural or re.match(r"(?:all|both|each|every)\b", m.group("det"), I)):
            return f"{', '.join(held[:-1])} and {held[-1]}"  # "the coins in room B": each of them, in order
        if len(held) > 1:
            raise ConfigError(f"plan from text: {m.group(0).strip()!r}: {room} holds {len(held)} of them "
                              f"({', '.join(held)}); name the one meant")
        return m.group(0)

    def listed(m: re.Match[str]) -> str:
        room = phrases[re.sub(r"\s+", " ", m.group("area").lower())]
        kinds_said = re.findall(rf"\b(?:the\s+)?({kinds})\b", m.group("list"), I)
        numbers = [one(things[k.lower()], room) for k in kinds_said]
        if None in numbers or len(numbers) < 2:
            return m.group(0)
        out = [f"{things[k.lower()]}_{n}" for k, n in zip(kinds_said, numbers)]
        return f"{', '.join(out[:-1])} and {out[-1]}"

    def colon_list(m: re.Match[str]) -> str:
        room, whole = phrases[re.sub(r"\s+", " ", m.group("area").lower())], [True]

        def number(k: re.Match[str]) -> str:
            n = one(things[k.group("t").lower()], room)
            whole[0] = whole[0] and n is not None
            return k.group(0) if n is None else f"{things[k.group('t').lower()]}_{n}"
        said = re.sub(rf"\b(?:the\s+)?(?P<t>{kinds})\b(?![\s_]*#?\d)", number, m.group("list"), flags=I)
        return said if whole[0] and said != m.group("list") else m.group(0)
    text = re.sub(rf"\b(?:(?:every|each|all(?:\s+(?:of\s+)?the)?|the\s+(?:two|three|four))\s+)?(?:{kinds})(?:\s+types?)?(?:\s+once)?\s+{where}\s*:\s*"
                  r"(?P<list>[^.!?;\n]+)", colon_list, text, flags=I)  # "Kill every enemy in room A: the goblin, the skeleton and the ogre."

    anywhere = where.replace("(?P<area>", "(?:")

    def both(m: re.Match[str]) -> str:
        kind = things[m.group("t").lower()]
        held = [a for room in areas for a in areas[room] if a.rsplit("_", 1)[0] == kind]
        if len(held) != 2 or m.group("t").lower() == kind or re.search(rf"\b(?:{m.group('t')[:-1]}|{kind})[\s_#]*\d", re.split(r"[.!?;\n]", m.string[m.end():])[0], I):
            return m.group(0)  # "hit both ogres, first ogre 2 then ogre 1": named after
        if m.group("area") and phrases[re.sub(r"\s+", " ", m.group("area").lower())] not in [r for r in areas if held[0] in areas[r]]:
            held.reverse()  # "both ogres, the one in the second room first"
        if m.group("n") and f"{kind}_{m.group('n')}" == held[1]:
            held.reverse()  # "both ogres, ogre 2 first"
        return f"{held[0]} and {held[1]}"
    text = re.sub(rf"\bboth\s+(?:of\s+)?(?:the\s+)?(?P<t>{kinds})\b(?:\s*,\s*(?:the\s+)?(?:one\s+{where}|[a-z]+[\s_#]*(?P<n>\d))\s+first\b)?(?!\s+(?:there\b|{anywhere}))", both, text, flags=I)

    def kind_before(m: re.Match[str]) -> str:
        said = [w for w in re.findall(rf"\b({kinds})\b", m.string[:m.start()], I) if sum(a.rsplit("_", 1)[0] == things[w.lower()] for held in areas.values() for a in held) > 1]
        return f"the {things[said[-1].lower()]} " if said else m.group(0)
    text = re.sub(rf"\bthe\s+(?:other\s+)?one\s+(?={where})", kind_before, text, flags=I)  # "attack the one past the door"
    item = rf"(?:the\s+)?(?:{kinds})"
    text = re.sub(rf"\b(?P<list>{item}(?:\s*,\s*{item})*\s*,?\s+and\s+{item})\s+{where}", listed, text, flags=I)  # "the skeleton and the ogre in room A"
    text = named.sub(thing, text)
    comma = re.compile(named.pattern.replace(r"\s+(?:(?:in|inside", r"\s*,\s+(?:(?:in|inside", 1) + r"(?=\s*(?:[.!?,;]|$))", I)
    text = comma.sub(thing, text)  # "Attack the ogre, in the first room."
    text = re.sub(rf"\b(?:whatever|whichever)\s+(?P<t>{kinds})\s+is\s+(?=(?:in\s+)?there\b|in\s+(?:that|this|the\s+same)\s+room\b)", r"the \g<t> ", text, flags=I)
    text = _there(text, things, phrases, kinds, one, lambda room: areas[room])
    text = re.sub(rf"\bthat\s+(?P<t>{kinds})\b(?![\s_]*#?\d)", lambda m: (re.findall(rf"\b{things[m.group('t').lower()]}_\d+\b", m.string[:m.start()]) or [m.group(0)])[-1],
                  text, flags=I)  # "the ogre in room B hits too hard ... fight that ogre": that one
    rooms = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in sorted(phrases, key=len, reverse=True) if "room" in p)
    text = _all_in(text, rooms, phrases, kinds, things, one, single)
    lead = re.compile(rf"(?:^|(?<=[.!?;]\s)|(?<=\n)|(?<=,\s))(?P<lead>(?:and\s+)?(?:then\s+)?(?:once\s+)?(?:in|inside|within|from|clear|clean\s+out|sweep)\s+(?:the\s+)?(?P<area>{rooms})(?![\w-])\s*[,:]?\s+)(?P<rest>[^.!?;\n]+)", I)

    def led(m: re.Match[str]) -> str:
        room = phrases[re.sub(r"\s+", " ", m.group("area").lower())]
        done = [False]

        def number(k: re.Match[str]) -> str:
            n = one(things[k.group("t").lower()], room)
            if n is None or single(things[k.group("t").lower()]):
                return k.group(0)
            done[0] = True
            return f"{things[k.group('t').lower()]}_{n}"
        rest = re.sub(rf"\b(?:the\s+)?(?P<t>{kinds})\b(?![\s_]*#?\d)(?:\s+there\b)?", number, m.group("rest"), flags=I)
        done[0] = done[0] or any(re.search(rf"\b{a}\b", rest) for a in areas[room])  # "in room B kill the ogre there": named already
        return rest if done[0] else m.group(0)

    return lead.sub(led, text)


ENTERED = {"door": r"(?:through|thru|past|into|beyond|in\s+through)\s+(?:the\s+)?(?:{w})|(?:{w})\s+(?:and\s+)?(?:go|walk|head)\s+(?:in|through)",
           "lava": r"(?:jump|hop|leap|cross|vault)\w*\s+(?:over\s+|across\s+)?(?:the\s+)?(?:{w})|(?:over|across)\s+(?:the\s+)?(?:{w})"}
"""A step that enters the room past a thing ("go through the door", "hop over the lava"): the room past it."""


def _there(text: str, things: Mapping[str, str], phrases: Mapping[str, str], kinds: str, one, areas_of) -> str:  # type: ignore[no-untyped-def]
    """``text`` with a thing said "there", "on the other side" or "behind it" as the one in the room
    the text is in at that point: the room a step entered last, or the room named last."""
    gates = {kind: phrases.get(f"past the {kind}") for kind in ENTERED}
    marks: list[tuple[int, str]] = []
    for kind, room in gates.items():
        words = "|".join(re.escape(w) for w, t in things.items() if t == kind and " " not in w)
        if room and words:
            marks += [(m.end(), room) for m in re.finditer(ENTERED[kind].format(w=words), text, I)]
            marks += [(m.end(), room) for m in re.finditer(rf"\b(?:{words})\b[^.!?]*?\b(?:behind|past|beyond)\s+it\b", text, I)]
            marks += [(m.end(), room) for m in re.finditer(r"\b(?:go|walk|head|step|run|move)\s+(?:in\s+)?(?:through|thru)\s+it\b", text, I)
                      if kind == "door" and re.search(rf"\b(?:{words})\b", text[:m.start()], I)]  # "The door opens. Go through it."
    named = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in sorted(phrases, key=len, reverse=True) if "room" in p)
    marks += [(m.end(), phrases[re.sub(r"\s+", " ", m.group(1).lower())]) for m in re.finditer(rf"\b(?:in|inside|from)\s+(?:the\s+)?({named})(?![\w-])", text, I)]
    said = re.compile(rf"\b(?P<det>(?:both|all)\s+(?:(?:of\s+)?the\s+)?(?:two\s+|three\s+)?|the\s+)?(?P<t>{kinds})(?![\s_]*#?\d)\s+"
                      r"(?:(?:that's\s+|that\s+is\s+)?(?:in\s+)?there|on\s+the\s+other\s+side|(?:behind|past|beyond)\s+it|(?:that's\s+|that\s+is\s+)?in\s+(?:that|this|the\s+same)\s+room)\b", I)

    def here(m: re.Match[str]) -> str:
        before = [at for at, _ in marks if at <= m.end()]
        if not before or re.search(r"\b(?:not|don't|never|no)\b", re.split(r"[.!?\n]", m.string[:m.start()])[-1], I):  # "do not jump the lava, the coins past it are out of scope"
            return m.group(0)
        room = next(room for a, room in marks if a == max(before))
        kind = things[m.group("t").lower()]
        n = one(kind, room)
        if n is not None:
            return f"{kind}_{n}"
        held = [a for a in areas_of(room) if a.rsplit("_", 1)[0] == kind]
        if len(held) > 1 and ((m.group("det") or "").strip().lower() not in ("", "the") or m.group("t").lower() != kind):
            return f"{', '.join(held[:-1])} and {held[-1]}"  # "grab both coins there", "the coins past it": each of them
        return m.group(0)
    return said.sub(here, text)


def _all_in(text: str, rooms: str, phrases: Mapping[str, str], kinds: str, things: Mapping[str, str], one, single) -> str:  # type: ignore[no-untyped-def]
    """``text`` with a closing "All in the first room." said of each thing before it: the ones there."""
    end = re.search(rf"(?:^|(?<=[.!?]\s)|(?<=\n))(?:(?:and\s+)?(?:all|everything)\s+(?:of\s+(?:them|it)\s+)?in\s+(?:the\s+)?(?P<area>{rooms}))(?![\w-])\s*[.!]?\s*$", text, I)
    if end is None:
        return text
    room, whole = phrases[re.sub(r"\s+", " ", end.group("area").lower())], [True]

    def number(k: re.Match[str]) -> str:
        if single(things[k.group("t").lower()]):
            return k.group(0)
        n = one(things[k.group("t").lower()], room)
        whole[0] = whole[0] and n is not None
        return k.group(0) if n is None else f"{things[k.group('t').lower()]}_{n}"
    said = re.sub(rf"\b(?:the\s+)?(?P<t>{kinds})\b(?![\s_]*#?\d)", number, text[:end.start()], flags=I)
    return said.rstrip() if whole[0] and said != text[:end.start()] else text
