"""What testers write around their steps, taken out before the steps are read.

Two independent testers who read only the user docs (``tests/evo/plans/dev/*_dev5.yaml``,
``*_dev6.yaml``) framed a third of their texts in words that belong to no step, and the reader
refused them, or read a step that was meant not to be done:

- **a greeting or a closing** ("Hi,", "Dear tester,", "Thanks!", "Many thanks.");
- **a step labelled with its thing** ("Switch: flip it.", "Coins: pick them up."): the thing is
  the step's object;
- **a label before the steps** ("Your route:", "Three things:") and a remark that tells rather
  than asks ("I think the lamp is too big.", "It should stay locked.", "Nothing else."); a line
  naming or describing the test ("TC-014 Door check", "Precondition: ...") is
  :mod:`evo.plans.conventions`';
- **a heading of what is tested** before a colon ("Verify shrine works: walk to shrine, use it.",
  "Smoke test: ..."), where the steps follow on the same line;
- **a reason or an aside** ("because otherwise the door stays locked", "so we can check the
  texture at the top", "we only want to check that the path is clear", "to see whether it is
  locked"), up to the next comma or full stop;
- **a step not to take** ("but please don't activate it yet", "Don't bother with the coins"),
  which is no step at all; "don't forget to" is the step itself;
- **a flow told of the player in the present tense** ("Player walks to the lever and pulls it.");
- **the one who plays, named** ("the player should go to the lever", "they should leap across",
  "The task is simply to reach the shrine"): the step is the verb after it;
- **the step before, said done** ("After you have defeated it, pick up the coin"), a step as a
  state to reach ("make sure you have pulled the lever") and a step in the passive ("Any foes you
  encounter should be attacked");
- **aimless exploring under a budget** ("wander the dungeon for 120 steps and attack any enemy",
  "Spend half a minute roaming; ..."): a plan of rules already plays the whole level until its
  budget (:func:`aimless`).

Each family is one pattern over closed-class words (pronouns, modals, conjunctions, testing
verbs), not over any set's wording; ``evo plan from-text --explain`` prints the text as read. A
clause left that names a thing of the game no step goes to is still refused
(:mod:`evo.plans.doubts`).
"""

from __future__ import annotations

import re

GREETING = re.compile(r"^\s*(?:hi|hello|hey|dear\s+[\w ]{1,30}?|good\s+(?:morning|afternoon|evening))"
                      r"(?:\s+(?:there|all|team|tester|everyone))?\s*[,!:]\s*", re.IGNORECASE)
CLOSING = re.compile(r"(?:^|(?<=[.!?])\s+)(?:thanks|thank you|many thanks|thanks a lot|cheers|regards|best regards|"
                     r"kind regards|best)\b[^.!?\n]{0,30}[.!?]?\s*$", re.IGNORECASE)
TESTED = re.compile(r"^\s*(?:(?:smoke|sanity|regression|quick)\s+test|check|verify|confirm|ensure|validate|test|"
                    r"make sure)\b[^:.;\n]{0,60}:(?:\s+|$)", re.IGNORECASE)
"""A heading of what is tested, the steps after its colon."""
ASIDE = re.compile(r"[,;]?\s*(?:\bbecause\b|\bso\s+that\s+(?:its|it|the|their|this)\b|\bso\s+(?:that\s+)?(?:we|i|you|they)\s+"
                   r"(?:can|could|may|might)\b|\bso\s+(?:that\s+)?the\s+[a-z]+\s+(?:opens?|unlocks?|gets\s+opened|is\s+open|will\s+open|can\s+open)\b|"
                   r"\b(?:we|i)\s+(?:only\s+|just\s+|really\s+)?(?:want|need|would like|'d like)"
                   r"\s+to\s+(?:see|check|know|test|verify|make sure|find out|confirm)\b|\bto\s+(?:see|check|find out|test|"
                   r"verify|confirm)\s+(?:whether|if|that)\b|,\s*(?:just\s+)?(?:so\s+as\s+)?to\s+(?:compare|see|check|confirm|verify|test|make\s+sure|find\s+out)\b)[^,.;\n]*",
                   re.IGNORECASE)
"""A reason or an aside, up to the next comma or full stop ("..., just to compare the two")."""
OBSERVING = re.compile(r",?\s*\band\s+(?:then\s+)?(?:compare|note(?:\s+down)?|record|watch|observe|check|verify|read|write\s+down)\s+"
                       r"(?:the|what|how|if|whether)\b[^,.;!?\n]*", re.IGNORECASE)
"""A look after a step ("attack goblin 2 and compare the counter"): what to watch, no step (a thing of
the game it names, no step takes up, is refused over the whole text)."""
CONTRACTIONS = {"it's": "it is", "there's": "there is", "you're": "you are", "they're": "they are", "you've": "you have"}
CONTRACTED = re.compile(r"\b(?:it|there|you|they)(?:'s|'re|'ve)\b", re.IGNORECASE)
"""A subject and its verb in one word ("once it's open"): written out, as the conditions read them."""
TOPIC = re.compile(r"(?:^|(?<=[.!?;]))\s*(?P<q>every|each|any)\s+(?P<thing>[\w-]+(?:\s+[\w-]+)?)\s+(?P<verb>you\s+(?:see|meet|find|"
                   r"encounter|pass|come\s+across|run\s+into)|that\s+(?:comes?|appears?|shows?\s+up)(?:\s+\w+)?)\s*,\s*",
                   re.IGNORECASE | re.MULTILINE)
"""A standing order with its object first ("Every monster you see, kill it."): whenever."""
NOT_TO = re.compile(r"[,;]?\s*(?:\bbut\s+)?(?:\b(?:please|just)\s+)?\b(?:(?:do not|don't|dont|never|avoid|ignore|skip(?!\s+(?:over|across)\b)|"
                    r"(?:there\s+is\s+)?no\s+need\s+to)\s+|without\s+(?=\w+ing\b))"
                    r"(?!(?:forget|fail|hesitate|mind)\b)(?![^,.;:\n]*\b(?:until|till|unless|before|without)\b)(?:(?!\s*\(\d{1,2}\))[^,.;:\n])*",
                    re.IGNORECASE)
"""A step not to take, up to the next comma, colon or full stop ("until" or "before" in it: a
condition on a step, left as written)."""
NO_WORRY = re.compile(r"(?:^|(?<=[.!?]\s))if\s+[^,;:.!?\n]+,\s*(?:(?:do\s+not|don't)\s+worry|never\s+mind|no\s+problem)\b[^.!?\n]*[.!?]?", re.IGNORECASE)
"""A sentence that says what not to mind if a step goes wrong ("If it's too much, don't worry about it."): no step."""
NO_HARM = re.compile(r"(?:^|(?<=[.!?]\s))(?:you|the\s+(?:player|agent|bot|character|hero|tester))\s+(?:should|must|shall|will|can|may)(?:n't|\s+not|\s+never)\s+"
                     r"(?:(?:take|get|receive|suffer)\s+(?:any\s+|a\s+|much\s+|a\s+single\s+)?(?:damage|hits?|harm|hurt|injur\w*)|lose\s+(?:any\s+)?(?:health|hp|life|lives)|die|"
                     r"be\s+(?:hurt|damaged|harmed|killed)|get\s+(?:hurt|damaged|harmed|killed|stuck))\b[^.!?\n]*[.!?]?", re.IGNORECASE | re.MULTILINE)
"""A sentence of what must not happen to the player ("You should not take any damage while doing
this."): what the run checks, no step."""
OUTCOME = re.compile(r"(?:^|(?<=[.!?;]\s))(?:if|when|once|should)\b[^.!?;\n]*?,?\s*(?:then\s+)?(?:(?:that(?:'s|\s+is|\s+would\s+be)|it(?:'s|\s+is)|this\s+is|we(?:'ve|\s+have))\s+"
                     r"(?:a\s+|the\s+|our\s+|your\s+)?(?:bug|problem|issue|failure|fail|regression|defect)|(?:the\s+[a-z]+|it|the\s+test|we)\s+(?:works|passes|is\s+fixed|"
                     r"(?:is|are)\s+(?:ok(?:ay)?|good|fine)|pass(?:ed)?))\b[^.!?\n]*[.!?]?", re.IGNORECASE | re.MULTILINE)
"""A sentence of what an outcome means ("If the door never opens that's the bug.", "If the player
lands on the far side, the jump works."): what the run checks, no step."""
REMEMBER = re.compile(r"\b(?:do not|don't|dont|never)\s+(?:forget|fail|hesitate)\s+to\s+", re.IGNORECASE)
PLAYER = re.compile(r"\b(?:(?:the\s+)?(?:player|participant|tester|agent|bot|user|character|subject)s?|they|he|she|you)\s+(?:(?:should|must|will|would|can|shall|"
                    r"ought\s+to|may)(?:\s+(?:then|first|next|now|also|just|need\s+to|have\s+to|be\s+able\s+to))*|"
                    r"needs?\s+to|has\s+to|have\s+to|is\s+to|are\s+to|(?:is|are)\s+(?:supposed|expected|meant|going|required)\s+to|want\s+to|"
                    r"'ll(?:\s+(?:then|first|next|need\s+to|have\s+to|want\s+to))*|wanna|gotta)\s+(?:then\s+|first\s+|next\s+)?"
                    r"|(?:^\s*|(?<=[;,]\s))(?:the|your|our)\s+(?:(?:only|main|first|second|third|next|last|final|actual)\s+)?"
                    r"(?:(?:task|job|goal|aim|idea|plan|route|step|one)\s+)?(?:here\s+)?is\s+(?:simply\s+|just\s+)?to\s+"
                    r"|\b(?:the\s+(?:player|participant|tester|agent|user)|participants|players|testers|(?:our|the)\s+(?:hero|heroine|character)|"
                    r"(?:(?<=^)|(?<=[.!?;]\s))(?:she|he))\s+(?:first\s+|then\s+|next\s+)?(?=[a-z]+s\b)", re.IGNORECASE | re.MULTILINE)
"""The one who plays, named before the step's verb."""
PLACES = r"(?:the|this)\s+(?:whole\s+|entire\s+)?(?:level|park|dungeon|map|area|world|place|room)"
DEED_DONE = re.compile(r"(?:^|(?<=[.!?;]))\s*(?:after|once|when)\s+(?:you(?:'ve|\s+have)|you|it\s+is|it's|they\s+are|they're)\s+"
                       r"(?:\w+\s+){0,2}?(?:\w+ed|done|finished|dealt\s+with|killed|beaten|taken\s+care\s+of)\s+"
                       r"(?:with\s+)?(?:it|them|that|this|him|her)\s*,\s*", re.IGNORECASE | re.MULTILINE)
"""The step before said done again ("After you have defeated it, ..."): only the order, which
the sentences already give."""
REACHING = re.compile(r"^(?P<a>[^,;]+?)\s+(?:when|once|as soon as|after)\s+you\s+(?:reach|get\s+to|arrive\s+at|come\s+to)\s+"
                      r"(?P<b>the\s+[^,.;!?]+|[a-z]+\s+\d{1,2})(?P<end>[.!?]?)$|^(?:when|once|as soon as|after)\s+you\s+(?:reach|get\s+to|arrive\s+at|"
                      r"come\s+to)\s+(?P<b2>the\s+[^,]+|[a-z]+\s+\d{1,2}),\s*(?P<a2>.+)$", re.IGNORECASE)
"""A step at one place said by arriving there ("Look down when you reach the second stump", "Once
you reach the 2nd pillar, jump"): go there, then the step."""
AS_MET = re.compile(r"\bas\s+(?=(?:you\s+(?:see|find|meet|pass|encounter|come\s+across)|they\s+(?:come|appear|show\s+up|approach))\b)",
                    re.IGNORECASE)
""""Collect coins as you see them", "attack goblins as they come": whenever."""
NARRATED = re.compile(r"\b(?:the\s+)?(?:participant\s+)?(?:player|character|avatar|hero|agent|bot|subject)\s+"
                      r"(?=(?:always\s+|then\s+|first\s+|next\s+|simply\s+)?[a-z]+s\b)", re.IGNORECASE)
"""A flow told in the present tense ("Player walks to the lever and pulls it."): the one who plays,
before a verb in its third person."""
CLAUSE_VERB = re.compile(r"(?:^|(?<=,\s)|(?<=\band\s)|(?<=\bthen\s)|(?<=\bor\s)|(?<=\balways\s)|(?<=\bfirst\s)|(?<=\bnext\s))"
                         r"(?P<verb>[a-z]+(?:s|es))\b", re.IGNORECASE)


def _narrated(sentence: str) -> str:
    """A sentence told of the player in the present tense as steps: the subject out, each clause's
    verb in its base form (WordNet's morphy: "walks", "goes", "pulls")."""
    if not NARRATED.search(sentence):
        return sentence
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    sentence = NARRATED.sub("", sentence)
    return CLAUSE_VERB.sub(lambda m: _lemma(m.group("verb"), "v") if is_verb(m.group("verb"))
                           and _lemma(m.group("verb"), "v") != m.group("verb").lower() else m.group(0), sentence)


CLOSEST = re.compile(r"\bthe\s+(?P<thing>[\w-]+)\s+(?:closest|nearest)\s+to\s+(?:you|the\s+player)\b|"
                     r"\bthe\s+first\s+(?P<met>[a-z]+)\s+(?:that\s+)?(?:you|the\s+player|the\s+agent)\s+(?:meet|see|find|encounter|spot|run\s+into|come\s+across)\b",
                     re.IGNORECASE)
""""the stump closest to you", "the first goblin you meet": the nearest one, one thing (no rule's
trigger, and no first of a numbered row)."""
ANY_ONE = re.compile(r"\b(?:a|an)\s+(?P<x>[a-z]+)\s*,\s*any\s+(?:one|of\s+them)\b(?:\s+(?:will\s+do|is\s+fine))?", re.IGNORECASE)
""""Hit a skeleton, any one.": one, the nearest (no standing order)."""
WHERE = re.compile(r",\s*where\s+(?=(?:you|they|the\s+player)\s+(?:should|must|need\s+to|have\s+to|will|ought\s+to)\s)", re.IGNORECASE)
"""A step at the place just named ("go to the shrine, where you should interact with it"): then."""
SURE = re.compile(r"\b(?:make sure|ensure|be sure|check)\s+(?:that\s+)?you(?:'ve|\s+have)\s+(?P<verb>[a-z]+ed)\b|"
                  r"\b(?:make sure|be sure)\s+(?:that\s+)?you\s+(?P<verb2>[a-z]+)\b(?<!\bhave)", re.IGNORECASE)
"""A step said as a state to reach ("make sure you have pulled the lever"): the deed."""
PASSIVE = re.compile(r"(?:^|(?<=:)|(?<=:\s)|(?<=[.!?;]\s)|(?<=\bthen\s)|(?<=\bnext,\s)|(?<=\bfinally,\s)|(?<=\bafter\swhich\s)|(?<=\bbefore\sthat\s)|(?<=\bbefore\sthat,\s)|(?<=\band\s))\s*(?P<object>(?:any|all|every|each|the)\s+[^,.;:]+?)\s+(?:(?:should|must|shall|will|are\s+to|is\s+to|need\s+to|"
                     r"needs\s+to|have\s+to|has\s+to)\s+be|(?P<got>gets?))\s+(?P<verb>[a-z]+)\b(?:\s+by\s+the\s+(?:agent|player|tester|bot))?",
                     re.IGNORECASE | re.MULTILINE)
"""A step in the passive ("Any foes you encounter should be attacked", "any enemy in range gets
hit"): the verb on its object."""
AIMLESS = re.compile(r"\b(?:(?:keep|just|simply|go|let\s+(?:it|the\s+agent|the\s+bot|him|her))\s+)?(?:(?:(?:free\s+)?(?:wander(?:ing)?|roam(?:ing)?|surviv(?:e|ing)|explor(?:e|ing)|meander(?:ing)?|idl(?:e|ing)(?=\s+(?:around|about)))|(?:of\s+)?free\s+play)\b"
                     r"(?:\s+(?:around|about|freely|at random|randomly))?(?:\s+(?:around\s+|about\s+)?" + PLACES + r")?|"
                     r"(?:walk|run|move|stroll|go)(?:ing)?\s+(?:around|about)(?:\s+" + PLACES + r"|(?=\s*(?:[,.;]|$|and\b)|\s+\w+ing\b))|"
                     r"(?:walk|stroll|jog|tour)(?:ing)?\s+(?:through\s+|across\s+|round\s+)?" + PLACES + r"|free[\s-](?:walk|run)(?:ing)?\b|(?:let|set)\s+(?:the\s+)?(?:agent|bot|player)\s+(?:loose|free)\b)",
                     re.IGNORECASE)
"""Going about with nowhere to go: no step of a plan of rules, which plays the whole level."""


ROUTE = re.compile(r"^\s*(?:(?:your|the|our)\s+)?(?:actual\s+|whole\s+)?(?:route|path|itinerary|order)(?:\s+is)?\s*:\s*|"
                   r"\b(?:\d+|one|two|three|four|five|six)\s+(?:things|places|stops|spots|points|tasks|steps)\s*:\s*",
                   re.IGNORECASE)
"""A label before the steps ("Your route: ...", "Three things: ...", "Go to 3 places: ...")."""
REMARK = re.compile(r"^\s*(?:(?:so|and|but|also|btw|fyi|note)\s*[,:]?\s+)?(?:(?:i|we)\s+(?:think|believe|had|have|saw|noticed|found|suspect|got|heard|know|guess|expect|hope|"
                    r"(?:only\s+|mostly\s+|just\s+|really\s+)?care)\b|(?:i|we)(?:'re|'m|\s+are|\s+am)\s+(?:only\s+|just\s+|mostly\s+)?(?:testing|checking|chasing|interested\s+in)\b|"
                    r"(?:last\s+(?:week|time|night|sprint|build)|yesterday|earlier(?:\s+today)?|previously|(?:in|on|with)\s+the\s+(?:last|previous|old|current|new|latest)\s+build)\b"
                    r"(?![^;:]*(?:,\s*|\bthen\s+|\bso\s+|\bplease\s+)(?:go|walk|head|run|kill|attack|jump|use|flip|press|grab|collect|touch)\b)[^;:]*$|"
                    r"if\s+(?:not\b|[^,;:]*\b(?:bug|issue|problem|regression|broken|glitch)\b[^;:]*\b(?:will|would|should|won't|is|shows?)\b)[^;:]*$|"
                    r"if\s+[^,;:]+,\s*(?:great|good|fine|perfect|cool|nice|ok(?:ay)?|(?:just\s+)?(?:ping|tell)\s+(?:me|us)|(?:just\s+)?let\s+(?:me|us)\s+know|"
                    r"(?:do\s+not|don't)\s+worry|never\s+mind|no\s+problem|that\s+is\s+fine|(?:just\s+)?(?:note|write\s+down|record))\b[^;:]*[;.!]?\s*$|"
                    r"(?:it|this|that|there)\s+(?:is|was|are|were|has|had|looks|seems|should|might|may|must|will)\b[^,;:]*(?:,\s*(?:but|and|though)\s+(?:i|we)\b[^;:]*)?$|"
                    r"(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:check|test|look\s+(?:at|into)|verify|inspect)\s+[^.;:!?]*?\bfor\s+(?:me|us)\W*$|"
                    r"(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:run|play|go|walk)\s+(?:through|to)\s+(?:the\s+)?(?:level|game|map|build|whole\s+thing)\s+for\s+(?:me|us)\W*$|"
                    r"(?:take\s+your\s+time|no\s+(?:rush|hurry)|there\s+is\s+no\s+(?:rush|hurry))\b[^;:]*$|"
                    r"(?:seen|found|noticed|observed|reported|happens)\s+(?:on|in|with)\s+(?:the\s+|a\s+|every\s+)?[\w-]*\s*(?:build|version|nightly|release|branch)\b[^;:]*$|"
                    r"(?:the|this|that|these|those|my|our)\s+(?:[\w-]+\s+){1,6}?(?:is|are|was|were|looks|seems|feels|appears|has|"
                    r"had|does|do|did|felt|looked|seemed|broke|worked|look|seem|feel|appear)(?:n't|\s+not)?\b[^,;:]*"
                    r"(?:,\s*(?:[a-z]+\s+\d+\s+)?(?:especially|particularly|in\s+particular|mostly|mainly)\b[^,;:]*)?$|(?:nothing\s+(?:else|more)|in\s+(?:that|this|the\s+same)\s+order|that(?:'s|\s+is)\s+(?:it|all)|"
                    r"ok(?:ay)?|done|the\s+end)\W*$)", re.IGNORECASE)
"""A sentence that tells, not asks: a remark ("I think the lamp is too big.", "It should stay
locked.", "The texture of lamp 2 looks strange.", "Nothing else.", "In that order.")."""
FOLLOWING = re.compile(r",?\s*(?:(?:while|as)\s+you\s+)?(?:please\s+)?(?:do|follow|complete|perform|carry\s+out|run|execute|try)\s+the\s+following(?:\s+steps)?"
                       r"(?:\s+in\s+(?:this\s+|that\s+)?order)?(?:\s+whenever\s+applicable)?(?:\s*[.:]?\s*$|\s*:\s*)",
                       re.IGNORECASE)
"""A lead into a list ("... while you do the following:"): the list is the steps."""
STATE_IS = re.compile(r"\b(?P<thing>[a-z]+)'s\s+(?=(?:open|opened|on|off|"
                      r"closed|shut|lit|up|down|unlocked|locked|active|pressed|pulled)\b)", re.IGNORECASE)
CONDITION_COMMA = re.compile(r"\b(?P<cond>(?:once|when|whenever|after|as soon as|if)\s+(?:the\s+)?[\w-]+\s+(?:is|are|has been|gets|was)\s+"
                             r"(?:open|opened|on|off|closed|shut|lit|unlocked|up|down|active|activated|pressed|pulled))\s+"
                             r"(?=[a-z]+\b)(?!and\b|or\b|then\b)", re.IGNORECASE)
"""A condition with no comma before its step ("once the door is open walk through it")."""
LABELLED = re.compile(r"^(?P<marker>\s*(?:\d+[.)]|[-*•]|\(\d+\))?\s*)(?P<label>[A-Za-z]+(?:\s+[A-Za-z]+)?)\s*:\s+(?P<rest>[a-z][^:]*)$",
                      re.IGNORECASE)
"""A step labelled with its thing ("Switch: flip it.", "Goblins: attack them on sight.", "Door: walk
through."): the thing is the step's object."""
LABEL_WORDS = frozenset({"note", "notes", "nb", "ps", "plan", "steps", "step", "goal", "goals", "task", "tasks", "route", "tip",
                         "hint", "reminder", "warning", "important", "update", "todo", "remark", "test", "check", "case",
                         "scenario", "objective", "mission", "budget", "time", "rules", "rule", "order", "summary"})
"""Labels that head a text or a part of it, not a thing of the game ("Note:", "Test plan:")."""
APPOSITIVE = re.compile(r"\b(?:a|an|one)\s+(?P<t>[a-z]+)(?P<mid>(?:\s+[a-z]+){0,4}?)\s*,\s*(?:the\s+)?(?P=t)\s+(?P<n>\d+)\b", re.IGNORECASE)
"""A thing named again with its number ("there's a barrel by the path, barrel 1"): that one."""
ORDINAL_AFTER = re.compile(r"\b(?:a|an|one)\s+(?P<t>[a-z]+)(?P<mid>(?:\s+[a-z]+){0,4}?)\s*,\s*the\s+(?P<o>first|second|third|fourth|fifth|last|\d(?:st|nd|rd|th))\s+one\b",
                           re.IGNORECASE)
"""A thing made precise after a comma ("There's a stump, the second one."): that one."""
ORDER_TAIL = re.compile(r",?\s+in\s+(?:that|this|the\s+same|the\s+given)\s+order\b", re.IGNORECASE)


TELLS = re.compile(r"^\s*(?:(?:the|this|that|these|those|my|our)\s+(?:[\w-]+\s+){0,3}?|(?:it|he|she)\s+)(?:(?P<verb>[a-z]+(?:s|ed))\b|[\w-]+'s\s)[^,;:]*[.!]?$",
                   re.IGNORECASE)
"""A sentence about the level or the test, with its own subject and verb ("This procedure checks
the door mechanism.", "The level ends at the shrine.", "this part's bugged sometimes", "It hits really
hard in the current build")."""


CHECKED = re.compile(r"(?:^|(?<=[.!?]\s))\s*(?:so\s+)?(?:the\s+(?:thing|bit|part)|what)\s+(?:i|we)\s+(?:want|need|would\s+like|'d\s+like)\s+to\s+"
                     r"(?:check|test|see|verify|look\s+at)\s+is\b[^.;!?\n]*[.;!?]?\s*", re.IGNORECASE)
"""What the test is about ("the thing I want to check is the kill counter."): no step."""


GOAL_IS = re.compile(r"\b(?:is|are|will\s+be)\s+(?:the|our|your)\s+(?:(?:main|final|real)\s+)?(?:goal|target|objective|destination|aim|finish)\b",
                     re.IGNORECASE)
"""A remark that names where the test is to go ("The shrine is the goal."): a step, read or refused."""


FOR_PURPOSE = re.compile(r"(?:^|(?<=[.!?]\s))\s*(?:(?:ok(?:ay)?\s+)?so\s+)?for\s+(?:my|our|the|this|a|an|your|[a-z]+'s)\s+(?:[\w'-]+\s+){0,3}?"
                         r"(?:assignment|project|thesis|paper|study|course|class|homework|report|replication|experiment|benchmark|demo|"
                         r"run|pass|check|test|session|sprint|build|suite|ticket|playtest|regression|review|investigation|analysis|purposes?)"
                         r"(?:\s+(?:we|i)\s+(?:use|used|run|ran|want|need|are\s+using|'re\s+using)\s+[^.!?\n]*[.!?]|\s*[,:]?)\s*", re.IGNORECASE)
"""What the test is for, before its steps ("For my assignment, ...", "For tomorrow's smoke test
please run ...", "For the replication we use the article's level."): no step (testers of wave 66)."""


def _tells(sentence: str) -> bool:
    """A remark (:data:`REMARK`), or a sentence whose subject is a thing and whose verb is
    WordNet's verb in its third person ("checks", "ends"), not the one who plays."""
    if GOAL_IS.search(sentence):
        return False
    if REMARK.match(sentence):
        return True
    m = TELLS.match(sentence)
    if m is None or re.match(r"^\s*the\s+(?:player|participant|tester|agent|user)", sentence, re.IGNORECASE):
        return False
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    verb = m.group("verb")
    return verb is None or (is_verb(verb) and _lemma(verb, "v") != verb.lower())


def unframed(text: str) -> str:
    """``text`` without its greetings, closings, test headings, asides, steps not to take and
    named players (the module's families), line by line."""
    lines = []
    for line in text.splitlines():
        line = CHECKED.sub("", _labelled(line))
        line = ROUTE.sub("", ORDER_TAIL.sub("", _shorthand(line)))
        line = CLOSING.sub("", GREETING.sub("", re.sub(r"^\s*ok(?:ay)?\s*[,!.]\s*", "", line, flags=re.IGNORECASE)))
        line = TESTED.sub("", FOR_PURPOSE.sub("", line))
        line = CONTRACTED.sub(lambda m: CONTRACTIONS.get(m.group(0).lower(), m.group(0)), FOLLOWING.sub("", line))
        line = CONDITION_COMMA.sub(lambda m: m.group("cond") + ", ", STATE_IS.sub(lambda m: m.group("thing") + " is ", line))
        line = TOPIC.sub(lambda m: f" Whenever {m.group('verb').replace('that ', 'a ' + m.group('thing') + ' ', 1) if m.group('verb').startswith('that') else m.group('verb') + ' a ' + m.group('thing')}, ", line)
        line = re.sub(r"(?<=[.!?])(?!(?<=\d\.)\d)(?=[,\w])", " ", NOT_TO.sub(" ", REMEMBER.sub("", NO_WORRY.sub("", NO_HARM.sub("", OUTCOME.sub("", line))))))
        line = CLOSEST.sub(lambda m: f"the nearest {m.group('thing') or m.group('met')}", ANY_ONE.sub(r"the nearest \g<x>", line))
        line = re.sub(r"\b((?:every|any|all|each|whatever)\s+(?:[a-z]+\s+){1,2}?)you\s+(?:can|could|might|may|will)\s+", r"\1you ", line,
                      flags=re.IGNORECASE)  # "every coin you can reach": its thing's relative clause, no step of "you"
        line = PLAYER.sub("", ASIDE.sub("", OBSERVING.sub("", WHERE.sub(", then ", DEED_DONE.sub(" ", AS_MET.sub("whenever ", line))))))
        line = PASSIVE.sub(lambda m: f"{_base(m.group('verb'))} {m.group('object')}" if (_base(m.group("verb")) != m.group("verb").lower()
                                                                                        or m.group("verb").lower() in ("hit", "beat"))
                           and not (m.group("got") and m.group("object").split()[0].lower() == "the") else m.group(0), SURE.sub(lambda m: _base(m.group("verb") or m.group("verb2")), line))  # "slain": slay
        line = re.sub(r"\s*,\s*(?=[,.;])|^\s*[,;]\s*|(?<=[.!?;])\s*,|\s+(?=[.;!?])|,?\s+(?:so|and|but|then)(?=\s*[.;!?])", "", line).strip()  # ", , and", ", so ." after a cut
        sentences = [_reaching(_narrated(s)) for s in re.split(r"(?<=[.!?;])\s+", re.sub(r"\.{2,}", ".", line))]
        kept = " ".join(s for k, s in enumerate(sentences) if not _tells(s) or _refers_back(sentences[k + 1:]))
        lines.append("" if re.fullmatch(r"[\W_]*", kept) else kept)  # "." left of a step not to take
    return "\n".join(lines)


def renamed(text: str) -> str:
    """``text`` with each thing named again with its number said once, numbered (:data:`APPOSITIVE`)."""
    text = APPOSITIVE.sub(lambda m: f"{m.group('t')} {m.group('n')}{m.group('mid')}", text)
    return ORDINAL_AFTER.sub(lambda m: f"the {m.group('o')} {m.group('t')}{m.group('mid')}", text)


def _base(verb: str) -> str:
    """A past participle's verb ("pulled": pull), by WordNet's morphy."""
    from evo.plans.lexicon import _lemma, wordnet

    wordnet()
    return _lemma(verb, "v")


SHORTHAND = ((re.compile(r"(?<=[.!?])[ \t]*(?:->|=>|→)[^\n]*"), ""),
             (re.compile(r"\s*(?:->|=>|→|>>)\s*"), ", then "),
             (re.compile(r"\b(?:right|just|immediately|directly)\s+(?=(?:after|before)\s)", re.IGNORECASE), ""), (re.compile(r"\bthru\b", re.IGNORECASE), "through"),
             (re.compile(r"\b(?:til|'til|till)\b", re.IGNORECASE), "until"),
             (re.compile(r"\ball the way\s+(?=(?:a?round|to|up|down|over|across|back)\b)|\ball\s+(?=a?round\s+(?:it|them|the|that|this|[a-z]+\s+\d)\b)", re.IGNORECASE), ""), (re.compile(r"\b(?:pls|plz)\b", re.IGNORECASE), "please"),
             (re.compile(r"\b(?P<side>left|right)(?:[\s-]+hand)?\s+side\b", re.IGNORECASE), r"\g<side>"),
             (re.compile(r"(?<=\w)(?<!\band)(?<!\bshall)(?<!\bshould)(?<!\bmust)(?<!\bwill)(?<!\bcan)(?<!'ll)\s+then\s+(?=[a-z])", re.IGNORECASE), ", then "))
"""Shorthand: an arrow between steps (after a full stop: what to expect, "1. Flip the switch. -> door_1
opens"), "thru", "til", "pls", "the right side", "right after"; "then" with no comma before it (a
condition before it ends there: "wait for the door to open then go through it")."""


def _shorthand(line: str) -> str:
    for pattern, plain in SHORTHAND:
        line = pattern.sub(plain, line)
    return line


def _labelled(line: str) -> str:
    """"Switch: flip it." as "flip the switch", "Coins: pick them up." as "pick up the coins", "Door:
    walk through." as "walk through the door": where the label names a thing (a WordNet noun)."""
    from evo.plans.lexicon import is_noun, wordnet

    m = LABELLED.match(line)
    head = m.group("label").split()[-1].lower() if m is not None else ""
    if m is None or head in LABEL_WORDS or not (wordnet() and is_noun(head)):
        return line
    thing, rest = f"the {m.group('label').lower()}", m.group("rest").rstrip()
    end = rest[-1] if rest[-1] in ".!;" else ""
    rest = rest[:-1] if end else rest
    phrasal = re.compile(r"\b(?P<verb>[a-z]+)\s+(?:it|them)\s+(?P<part>up|down|out|over|off)\b", re.IGNORECASE)
    if phrasal.search(rest):
        rest = phrasal.sub(lambda p: f"{p.group('verb')} {p.group('part')} {thing}", rest, count=1)
    elif re.search(r"\b(?:it|them)\b", rest, re.IGNORECASE):
        rest = re.sub(r"\b(?:it|them)\b", thing, rest, count=1, flags=re.IGNORECASE)
    elif len(rest.split()) <= 3:  # "walk through", "activate": the thing after the deed
        rest = f"{rest} {thing}"
    else:
        return line
    return f"{m.group('marker')}{rest}{end}"


def _reaching(sentence: str) -> str:
    m = REACHING.match(sentence)
    if m is None:
        return sentence
    if m.group("a") is not None:
        return f"Go to {m.group('b').strip()}, then {m.group('a').strip()}{m.group('end')}"
    return f"Go to {m.group('b2').strip()}, then {m.group('a2').strip()}"


def _refers_back(after: list[str]) -> bool:
    """The sentence after a remark points back into it before it names a thing of its own ("I think
    the lamp is too big. Go to it"): the remark is kept, and read or refused as written."""
    pronoun = re.search(r"\b(?:it|there|them|that one)\b", after[0], re.IGNORECASE) if after else None
    thing = re.search(r"\b(?:the|a|an)\s|\b[a-z]+[ _]\d{1,2}\b", after[0], re.IGNORECASE) if after else None  # "lamp 3": a thing
    return pronoun is not None and (thing is None or pronoun.start() < thing.start()) \
        and not re.match(r"^\s*(?:it|there)\b", after[0], re.IGNORECASE)


def aimless(text: str) -> str:
    """``text`` without aimless exploring ("wander the dungeon", "roaming"): for a text with a
    budget, whose rules play the whole level until it ends."""
    return "\n".join(re.sub(r"^\s*(?:and\s+|,\s*|;\s*)", "", AIMLESS.sub("", line)).strip() for line in text.splitlines())
