"""The closed-class words and patterns the clause splitter reads a sentence by.

Joining words, condition and trigger patterns, lead words, particles, directions, determiners,
quantifiers, pronouns: English's closed classes, listed by hand (WordNet lists open-class words
only). :mod:`evo.plans.clauses` splits and reads clauses with them.
"""

from __future__ import annotations

import re

JOINERS = frozenset({",", ";", "and", "then", "next", "after", "that", "afterwards", "finally", "also",
                     "-", "and then", "before", "lastly"})
"""Words between two steps of one sentence."""
STEP_JOINS = frozenset({",", ";", "and", "then"})
"""Joining words after which a verb tagged as an actor starts a step ("and look down at it")."""
CONDITION = re.compile(r"\b(wait (?:until|till|for)|should(?=\s+(?:an?|the|any|some)\s)|once(?!\s+(?:around|round|more|again|over)\b)(?!\s*[,.;]|\s*$)|when|whenever|if|(?<!\bgo )(?<!\bgoing )(?<!\bcome )(?<!\brun )(?<!\bchase )after(?!\s+(?:that|this)\b)|as soon as|every time|each time|any ?time|"
                       r"while)\b", re.IGNORECASE)
TRIGGER = re.compile(r"\b(see|sees|seen|spot|spots|meet|meets|encounter|encounters|find|finds|appear|appears|aggros?|"
                     r"come|comes|approach|approaches|near|nearby|close|around|show up|shows up|in sight|in view|visible|"
                     r"in range|attack you|attacks you|pass|passes|reach|reaches|(?:walk|walks|go|goes|get|gets)\s+(?:past|by|near|to)|"
                     r"comes? to|comes? across|(?:run|runs|bump|bumps|stumble|stumbles|happen|happens)\s+(?:into|upon|on|"
                     r"across)|(?:whenever|every time|each time|any ?time)\s+you\s+\w+|next to|adjacent|beside|in (?:your|the) way|at you|\w+ed by (?:an?|the|any|some)|"
                     r"in front of|(?:an?|the|any|some|every)\s+\w+(?:\s+[\w-]+){1,4}?\s+(?:you|your|yourself))\b", re.IGNORECASE)
"""An actor about: seen or met, near the player, or doing something to the player ("a goblin
attacks you", "an ogre is next to you", "you are attacked by an ogre")."""
RELATIVE = re.compile(r"\b(that|which|who)\s+(you\s+)?(see|spot|meet|encounter|find|come|comes|get|gets|aggros?|"
                      r"approach|approaches|appear|appears|attack|attacks|show|shows|are|is|cross|crosses)\b", re.IGNORECASE)
"""A relative clause of meeting or seeing ("an ogre that you meet", "a door which opens")."""
STATE = re.compile(r"\b(?:is|are|gets|get|has been|have been|was|turns|goes|stays|stayed|remains|remained|is still|has stayed)\s+(?:(?:been|turned|switched|set|"
                   r"flipped)\s+)?(\w+)|\b(opens|opened|closes|"
                   r"closed|unlocks|unlocked|lights|lit)\b|\bto\s+(open|close|unlock|light)\b", re.IGNORECASE)
"""A state an actor is in or comes to ("the door is open", "the lever gets switched on", "opens")."""
LEADS = frozenset({"then", "next", "now", "first", "firstly", "finally", "please", "afterwards", "carefully",
                   "also", "lastly", "and", "after", "that", "this", "once", "there", "step", "quickly", "just",
                   "always", "constantly", "continuously", "continually", "repeatedly"})
"""Words in front of a step's verb ("Then, carefully ...")."""
ADVERBS = frozenset({"always", "also", "just", "quickly", "carefully", "please", "now", "then", "next"})
"""Words between a joining word and the verb of the step it joins ("..., and always fight")."""
BREAKS = frozenset({"then", ";"})
"""Words that always start a new step, tagged action or not ("..., then hop across the gap")."""
PARTICLES = frozenset({"over", "across", "up", "to", "with", "on", "at", "into", "through", "past", "around",
                       "down", "off", "by"})
DIRECTIONS = frozenset({"left", "right", "up", "down", "forward", "forwards", "backward", "backwards", "back",
                        "around", "upward", "upwards", "downward", "downwards", "skyward", "skywards", "heavenward",
                        "earthward"})
"""Words that finish a movement verb ("turn left", "look up"): the action is both."""
IDIOMS = frozenset({"out", "off"})
"""Particles that make an idiom of the verb before them ("take out", "wipe out", "finish off")."""
GOING = frozenset({"go", "come", "run", "chase"})
"""Verbs after which "after" is the verb's (pursue), not a condition's (the lookbehinds of
:data:`CONDITION`)."""
DETERMINERS = frozenset({"the", "a", "an", "any", "every", "each", "all", "that", "this", "those", "these", "some"})
ALWAYS = re.compile(r"\b(?:always|constantly|continuously|continually|repeatedly|forever|at all times|all the time|"
                    r"whenever (?:you can|possible)|every time|each time|on sight|over and over)\b", re.IGNORECASE)
"""Words that make a step a rule whatever else it says ("Always attack the enemies", "Attack the
skeletons at all times", "Keep attacking" read as "always attack")."""
QUANTIFIERS = frozenset({"any", "every", "all", "each", "always", "whenever", "everything", "anything"})
"""Words that make a clause of a longer sentence a rule; without one it is a step."""
PHRASE_ENDS = frozenset({"and", "then", "it", "once", "when", "whenever", "if", "that", "you", "which", "who",
                         "is", "are", "was", "were", "be", "has", "have", "gets", "get", "comes", "come",
                         "appears", "appear", "shows", "show", "turns", "goes", "opens", "closes", "lights"})
"""Words that end a noun phrase ("the gate is open": gate)."""
DONE_WORDS = frozenset({"here", "done", "finished", "complete", "completed", "over", "through"})
"""No state of a thing: "once you get there", "once it is done"."""
PRONOUNS = frozenset({"it", "them", "one", "ones", "there", "that", "this", "those"})
MOVEMENT = re.compile(r"^\s*(?:get\s+(?:(?:over|up|back|close|closer|right|next)\s+)?(?:to|towards?|near)\b|\w+\s+(?:your|my|our|their|his|her)\s+way\b(?:\s+(?:over|back|across|up|down))?"
                      r"(?:\s+(?:to|towards?|into))?|make\s+(?:for|towards?)\b|(?:carry|press|move|push|keep\s+going)\s+on\s+(?:to|towards?)\b|"
                      r"(?:proceed|continue|beeline|bail|path|go\s+straight|head\s+straight|run\s+straight|straight)\s+(?:to|towards?|for)\b|"
                      r"make\s+a\s+beeline\s+(?:for|to)\b|keep\s+(?:on\s+)?going\s+(?:to|towards?)\b|(?:walk|go|step|head|move|run)\s+into\b|(?:just\s+)?(?:stand|stay|remain)(?:\s+(?:there|here|"
                      r"in(?:\s+front(?:\s+of)?)?|next(?:\s+to)?|beside|by|near|at))?\s*$|finish(?:\s+up)?\s+(?:at|next\s+to|beside|by|near)\b|(?:find|seek\s+out|locate|track\s+down)\s*$)",
                      re.IGNORECASE)
"""A movement phrase ("make your way to", "find your way over to", "make for", "carry on to",
"beeline to", "find", "seek out"): one move."""
LIGHT = frozenset({"do", "make", "take", "have", "give", "go", "walk", "run", "head", "move", "travel", "complete", "spin", "jog"})
"""Verbs that, with a path "around" a thing, are circling it ("do a lap around", "go once round")."""
AROUND = frozenset({"around", "round"})
DEEDS = frozenset({"give", "do", "make", "have"})
"""Verbs whose deed is the noun after them ("give it a pull", "do a jump", "have a look")."""
REPEATS = frozenset({"twice", "once", "again", "thrice"})
"""How often a step is done: no actor, and no end to a verb ("hop twice")."""
POSITIONS = frozenset({"next", "near", "nearby", "close", "beside", "by", "behind", "front", "adjacent"})
"""Words of a position ("next to"): no step of their own when the tagger marks them."""
ROTATIONS = frozenset({"clockwise", "counterclockwise", "anticlockwise", "counter", "anti", "-", "round", "around"})
"""Words of a way round ("counter-clockwise around"): no step and no actor of their own."""
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
            "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7, "8th": 8, "9th": 9, "10th": 10}
"""Up to ten: the dungeon has eight coins ("coin 8" is read as "the eighth coin")."""
PURSUIT = re.compile(r"^(?:chase|pursue|engage(?:\s+with)?|hunt(?:\s+down)?|track\s+down|(?:go|run|come)\s+after|go\s+for)$",
                     re.IGNORECASE)
"""A verb that goes after a thing (the dungeon reads "chase" as attacking): followed by a deed on
"it", it is the way there, not a deed of its own."""
