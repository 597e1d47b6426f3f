"""The words a patient or a clinician uses for what the DDXPlus questions ask, read as comparable keys.

A word's keys are its word key (amg.tools.phenotypes.word_keys: a Snowball stem, folded) and the keys of the
question's own words it stands for: "hurts" keys {hurt, pain}, "tummy" {abdomen}, "phlegm" {phlegm, sputum},
"temperature" {temperature, fever}. A few runs of words stand for others ("passed out": lost consciousness, "pins and
needles": tingling). These lists are general English (lay, British and clinical words for a finding, a body part, a
kind of pain, a grade); none is drawn from a case's text, and none names a DDXPlus code: the reader finds the
evidences through the keys of their own questions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from amg.tools.phenotypes.word_keys import key as word_key
from amg.tools.phenotypes.word_keys import tokens

# a word -> the question words it stands for (each also keeps its own key)
LAY: dict[str, tuple[str, ...]] = {
    # pain
    **dict.fromkeys(
        ("hurt", "hurts", "hurting", "ache", "aches", "aching", "achy", "sore", "painful", "tender"), ("pain",)
    ),
    **dict.fromkeys(
        ("worse", "worsens", "worsened", "worsening", "aggravated", "aggravates", "intensifies"), ("increased",)
    ),
    **dict.fromkeys(
        ("better", "eases", "eased", "relieved", "relieves", "relief", "alleviated", "alleviates"), ("improves",)
    ),
    # breathing
    **dict.fromkeys(
        ("breathless", "breathlessness", "winded", "breathe", "breathing", "inhale", "exhale"), ("breath",)
    ),
    "inhaling": ("breath", "inhaling"),
    "exhaling": ("breath", "exhale"),
    **dict.fromkeys(("suffocate", "suffocation", "smothering", "choke", "choked"), ("choking", "suffocating")),
    **dict.fromkeys(("wheeze", "wheezy", "wheezes", "whistling"), ("wheezing",)),
    **dict.fromkeys(("phlegm", "mucus", "gunk"), ("sputum",)),
    # gut
    **dict.fromkeys(("throw", "threw", "thrown", "throwing", "puke", "puked", "puking", "vomited"), ("vomit",)),
    **dict.fromkeys(("nauseous", "nauseated", "queasy", "sick"), ("nausea",)),
    **dict.fromkeys(("poop", "poo", "feces", "faeces", "motions", "bowel"), ("stool",)),
    "diarrhoea": ("diarrhea",),
    **dict.fromkeys(("bloating", "bloat", "distension", "distention"), ("bloated",)),
    "swollen": ("bloated", "swelling"),
    **dict.fromkeys(("swell", "swells", "puffy", "puffiness", "oedema", "edema"), ("swelling", "swollen")),
    "glands": ("lymph", "nodes"),
    **dict.fromkeys(("tummy", "stomach", "abdominal", "gut"), ("abdomen",)),
    "hungry": ("appetite",),
    "heartbeat": ("heart", "beating"),
    "heartbeats": ("heart", "beating"),
    **dict.fromkeys(("bit", "mildly", "somewhat", "mild"), ("slightly",)),
    **dict.fromkeys(
        ("can't", "cannot", "couldn't", "unable", "struggle", "struggling"), ("difficulty", "trouble", "unable")
    ),
    "asthmatic": ("asthma",),
    "allergic": ("allergy", "allergies"),
    "arthritic": ("arthritis",),
    "anemic": ("anemia",),
    "anaemic": ("anemia",),
    "lost": ("loss", "lose"),
    "losing": ("loss", "lose"),
    "lose": ("loss",),
    "gained": ("gain",),
    "gaining": ("gain",),
    # general
    **dict.fromkeys(("temperature", "feverish", "febrile", "pyrexia", "hot"), ("fever",)),
    **dict.fromkeys(("shivering", "shivery", "shiver", "shivers", "chilly", "rigors", "shaking"), ("chills",)),
    **dict.fromkeys(("sweat", "sweats", "sweaty", "sweated", "perspiring", "perspiration"), ("sweating",)),
    **dict.fromkeys(("tired", "exhausted", "worn", "weary", "drained", "fatigued", "tiredness"), ("fatigue",)),
    **dict.fromkeys(("dizzy", "giddy", "woozy", "lightheaded", "unsteady"), ("dizziness", "lightheaded")),
    "faint": ("faint", "lightheaded"),
    **dict.fromkeys(("weak", "feeble"), ("weakness",)),
    **dict.fromkeys(("numb",), ("numbness",)),
    **dict.fromkeys(("tingly", "tingle", "tingles", "prickling"), ("tingling",)),
    **dict.fromkeys(("itchy", "itches", "itchiness", "scratchy", "pruritus"), ("itching",)),
    **dict.fromkeys(("nervous", "worried", "anxiety", "panicky", "uneasy"), ("anxious",)),
    **dict.fromkeys(("confusion", "disoriented", "muddled"), ("confused",)),
    **dict.fromkeys(("grumpy", "cranky", "moody", "snappy"), ("irritable",)),
    **dict.fromkeys(("raspy", "husky", "croaky", "hoarseness"), ("hoarse",)),
    **dict.fromkeys(("racing", "fluttering", "thumping", "palpitation"), ("palpitations", "racing")),
    **dict.fromkeys(("fast", "rapid", "quick", "quickly", "rapidly"), ("fast",)),
    # skin
    **dict.fromkeys(("hives", "urticaria", "eruption"), ("rash",)),
    **dict.fromkeys(("spots", "spot", "bumps", "blotches", "patches", "patch", "blisters", "pimples"), ("lesions",)),
    "redness": ("red",),
    "flaking": ("peel",),
    **dict.fromkeys(("bigger", "wider", "big"), ("larger",)),
    **dict.fromkeys(("centimetre", "centimeter", "centimetres", "centimeters"), ("cm",)),
    "flaky": ("peel",),
    "peeling": ("peel",),
    "scaly": ("peel",),
    # head, nose and throat
    "nasal": ("nose",),
    **dict.fromkeys(("stuffy", "blocked", "congested", "stuffed"), ("congestion",)),
    "snot": ("nasal", "discharge"),
    "runny": ("run",),
    "running": ("run",),
    "greenish": ("green",),
    "yellowish": ("yellow",),
    **dict.fromkeys(("green", "yellow", "brown", "coloured", "discoloured", "discolored"), ("colored",)),
    "pharynx": ("throat",),
    **dict.fromkeys(("teary", "watery", "watering", "tearing"), ("tears",)),
    **dict.fromkeys(("drool", "drooling", "spit", "spittle"), ("saliva",)),
    "droopy": ("eyelids",),
    # history
    **dict.fromkeys(("smoke", "smoker", "smokes", "smoking", "cigs", "cigarette"), ("smoke", "cigarettes")),
    **dict.fromkeys(("overseas", "abroad", "trip", "travelled", "traveling", "travelling"), ("traveled", "country")),
    **dict.fromkeys(("diabetic",), ("diabetes",)),
    **dict.fromkeys(("obese", "obesity", "heavyset"), ("overweight",)),
    **dict.fromkeys(("skinny",), ("underweight",)),
    **dict.fromkeys(("nsaid", "nsaids", "ibuprofen", "naproxen", "aspirin", "advil"), ("anti", "inflammatory")),
    **dict.fromkeys(("steroids", "steroid", "prednisone", "cortisone"), ("corticosteroids",)),
    **dict.fromkeys(("inhaler", "puffer", "salbutamol", "ventolin"), ("bronchodilator",)),
    "expecting": ("pregnant",),
    "pregnancy": ("pregnant",),
    "nursery": ("daycare",),
    "kindergarten": ("daycare",),
    "booze": ("alcohol",),
    "drinker": ("alcohol", "drink"),
    "menstrual": ("menstruation",),
    "periods": ("menstruation",),
    "anticoagulant": ("anticoagulants",),
    "immunocompromised": ("immunosuppressed",),
    "operation": ("surgery",),
    "operated": ("surgery",),
    "jogging": ("exercise",),
    "workout": ("exercise",),
}

# runs of words that stand for question words: (words as written, lower case) -> the words they stand for
MULTI: dict[tuple[str, ...], tuple[str, ...]] = {
    ("passed", "out"): ("lost", "consciousness"),
    ("blacked", "out"): ("lost", "consciousness"),
    ("fainted",): ("lost", "consciousness"),
    ("unconscious",): ("lost", "consciousness"),
    ("knocked", "out"): ("lost", "consciousness"),
    ("pins", "and", "needles"): ("tingling",),
    ("light", "headed"): ("lightheaded",),
    ("short", "of", "breath"): ("shortness", "breath"),
    ("out", "of", "breath"): ("out", "breath", "shortness"),
    ("blood", "thinners"): ("anticoagulants",),
    ("blood", "thinner"): ("anticoagulants",),
    ("anti", "inflammatories"): ("anti", "inflammatory"),
    ("throw", "up"): ("vomit",),
    ("threw", "up"): ("vomit",),
    ("throwing", "up"): ("vomit",),
    ("thrown", "up"): ("vomit",),
    ("heart", "attack"): ("heart", "attack"),
    ("high", "blood", "pressure"): ("high", "blood", "pressure"),
    ("put", "on", "weight"): ("gained", "weight"),
    ("weight", "gain"): ("gained", "weight"),
    ("seeing", "double"): ("double", "vision"),
    ("see", "double"): ("double", "vision"),
    ("stopped", "smoking"): ("former", "smoker"),
    ("quit", "smoking"): ("former", "smoker"),
    ("used", "to", "smoke"): ("former", "smoker"),
    ("ex", "smoker"): ("former", "smoker"),
    ("day", "care"): ("daycare",),
    ("city",): ("city",),
    ("countryside",): ("rural",),
    ("farm",): ("agriculture", "rural"),
    ("farmer",): ("agriculture",),
    ("mine",): ("mining",),
    ("miner",): ("mining",),
    ("building", "site"): ("construction",),
    ("keep", "down"): ("vomit",),
    ("all", "the", "time"): ("constantly",),
    ("all", "over"): ("widespread", "diffuse"),
    ("secondhand", "smoke"): ("secondhand", "smoke", "exposed"),
    ("second", "hand", "smoke"): ("secondhand", "smoke", "exposed"),
    ("passive", "smoking"): ("secondhand", "smoke", "exposed"),
    ("every", "day"): ("daily",),
    ("without", "trying"): ("involuntary", "unintentionally"),
    ("without", "dieting"): ("involuntary", "unintentionally"),
    ("without", "meaning", "to"): ("involuntary", "unintentionally"),
    ("not", "on", "a", "diet"): ("involuntary", "unintentionally"),
}

# words for another person: a finding said of them is no finding of the patient's ("my mother has asthma")
KIN = frozenset(
    "family mother mom mum mommy mummy father dad daddy parent parents brother brothers sister sisters sibling "
    "siblings relative relatives aunt aunts uncle uncles grandmother grandfather grandma grandpa grandparent "
    "grandparents cousin cousins son sons daughter daughters".split()
)
MOTHER = frozenset("mother mom mum mommy mummy".split())
OTHERS = KIN | frozenset(
    "someone somebody anyone anybody person people friend friends coworker coworkers colleague colleagues partner "
    "partners classmate classmates neighbour neighbor".split()
)
FAMILY_KEY, OTHER_KEY = "~family", "~other"  # the keys a kin word or another person's word adds
_PREPOSITIONS = frozenset("with to from for by like at around near as".split())

# words of a question that ask rather than say: they are not the finding ("Have you ever been diagnosed with ...")
FRAME = frozenset(
    "do does did you your yours yourself have has had having ever recently currently lately feel feeling felt "
    "noticed notice experiencing experience been being are is am was were there any think find know known "
    "believe that which who how what where when whether would could can may might it its i my me "
    "suffer from diagnosed diagnosis person".split()
)

# words that time, grade or link what a question asks without saying what it is: no key of a phrase
FILLER = frozenset(
    "after before when while during since until then than also even still just only so too very much more less most "
    "such same other another one both each every all again last past over within month months week weeks year years "
    "day days today ago time times several significantly significant way disease diseases problem problems issue "
    "sound symptoms symptom condition compared people usual usually like but out off get gets getting got become "
    "becomes up down".split()
)

# what a case's place, grade or value belongs to: the first of these words a question (or the one it follows) holds
ROLE_WORDS = {
    "radiation": ("radiate",),
    "skin": ("rash", "lesion", "lesions", "skin"),
    "swelling": ("swelling", "swollen"),
    "travel": ("traveled", "travel"),
    "pain": ("pain",),
}
# the words of a case that say which of those it speaks of
ROLE_CUES = {
    "radiation": "radiate radiates radiating radiated spread spreads spreading spreading shoot shoots shooting "
    "travel travels travelling traveling goes go going moves move moving extends extend extending reaches "
    "reach",
    "skin": "rash rashes lesion lesions spot spots patch patches blotch blotches hives bump bumps blister "
    "blisters eruption",
    "swelling": "swelling swollen swell swells puffy puffiness oedema edema",
    "travel": "travel traveled travelled trip abroad overseas went visited visiting returned",
    "pain": "pain pains painful hurt hurts hurting ache aches aching sore soreness tender discomfort",
}

# a scale's aspect: the words of a case that say which scale a grade is on (besides the question's own words)
ASPECT_CUES = {
    "intense": "intense intensity severe severity bad strong rate rated rating level score",
    "precisely": "precisely precise pinpoint point localized localised located exactly exact diffuse",
    "fast": "fast quickly quick sudden suddenly abruptly gradually gradual slowly slow came come started start "
    "onset appeared appear began begin developed crept",
    "swollen": "swollen swelling swell puffy",
    "itching": "itching itchy itch itches scratch",
}
# a grade told in words: 0-10
GRADE_WORDS = {
    "intense": {
        "barely": 1,
        "slight": 2,
        "slightly": 2,
        "mild": 2,
        "mildly": 2,
        "little": 2,
        "moderate": 5,
        "moderately": 5,
        "medium": 5,
        "quite": 6,
        "pretty": 6,
        "strong": 7,
        "bad": 7,
        "severe": 8,
        "intense": 8,
        "very": 8,
        "really": 8,
        "terrible": 9,
        "awful": 9,
        "excruciating": 10,
        "unbearable": 10,
        "worst": 10,
    },
    "precisely": {
        "vague": 2,
        "diffuse": 2,
        "spread": 3,
        "hard": 3,
        "roughly": 4,
        "fairly": 6,
        "clearly": 8,
        "precisely": 8,
        "exactly": 9,
        "pinpoint": 9,
        "one": 8,
    },
    "fast": {
        "gradually": 2,
        "gradual": 2,
        "slowly": 2,
        "slow": 2,
        "progressively": 3,
        "crept": 2,
        "quickly": 7,
        "fast": 7,
        "rapidly": 7,
        "suddenly": 9,
        "sudden": 9,
        "abruptly": 9,
        "instantly": 10,
        "immediately": 10,
    },
    "swollen": {"not": 0, "slightly": 2, "little": 2, "bit": 2, "mildly": 2, "quite": 5, "very": 7, "really": 7},
    "itching": {
        "not": 0,
        "slightly": 2,
        "little": 2,
        "bit": 2,
        "mildly": 2,
        "quite": 5,
        "very": 8,
        "really": 8,
        "intensely": 9,
        "terribly": 9,
        "unbearably": 10,
    },
}
NUMBERS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten".split())}

# a kind of pain (the dataset's words, some translated literally from French) -> the words a patient uses
CHARACTERS = {
    "heartbreaking": ("tearing", "ripping", "torn", "tear", "heartbreaking", "lacerating"),
    "haunting": ("haunting", "nagging", "persistent", "obsessive", "relentless", "constant"),
    "tedious": ("tedious", "dull", "annoying", "wearing", "grinding", "bothersome"),
    "sensitive": ("sensitive", "tender", "sore", "touchy"),
    "a knife stroke": ("knife", "stabbing", "stab", "stabbed", "knifelike", "lancinating"),
    "tugging": ("tugging", "pulling", "dragging", "tug", "pull"),
    "burning": ("burning", "burn", "burns", "scalding", "searing"),
    "a cramp": ("cramp", "cramping", "cramps", "crampy", "cramplike", "colicky", "griping"),
    "heavy": ("heavy", "heaviness", "weight", "pressure", "pressing", "tight", "tightness", "squeezing", "crushing"),
    "a pulse": ("pulse", "pulsing", "throbbing", "pounding", "pulsating", "beating"),
    "violent": ("violent", "savage", "fierce", "vicious"),
    "sharp": ("sharp", "acute", "piercing", "shooting"),
    "sickening": ("sickening", "nauseating", "sickly"),
    "scary": ("scary", "frightening", "scaring", "terrifying", "alarming", "worrying"),
    "exhausting": ("exhausting", "draining", "tiring", "wearying"),
}
COLOURS = {
    "dark": ("dark", "darker", "purple", "brownish", "brown", "bluish"),
    "yellow": ("yellow", "yellowish"),
    "pale": ("pale", "paler", "white", "whitish", "light"),
    "pink": ("pink", "pinkish", "rosy"),
    "red": ("red", "reddish", "bright", "scarlet", "crimson"),
}

# a body place as the dataset names it (without its side) -> the words a patient uses; each is read as a run of keys
PLACES: dict[str, tuple[str, ...]] = {
    "iliac wing": ("iliac wing", "hip bone", "pelvic bone"),
    "groin": ("groin", "inguinal"),
    "axilla": ("axilla", "armpit", "underarm"),
    "tonsil": ("tonsil", "tonsils"),
    "anus": ("anus", "anal", "back passage", "rectum"),
    "posterior aspect of the ankle": ("back of the ankle", "achilles", "heel cord"),
    "back of head": ("back of head", "back of the skull"),
    "back of the neck": ("back of the neck", "nape", "neck"),
    "forearm": ("forearm",),
    "lower chest": ("lower chest", "bottom of the chest", "lower part of the chest"),
    "biceps": ("biceps", "upper arm", "front of the arm"),
    "mouth": ("mouth", "oral"),
    "thyroid cartilage": ("thyroid cartilage", "adam apple", "voice box", "larynx", "front of the neck", "throat"),
    "ankle": ("ankle",),
    "clitoris": ("clitoris",),
    "coccyx": ("coccyx", "tailbone", "tail bone"),
    "cervical spine": ("cervical spine", "neck spine", "neck vertebrae"),
    "thoracic spine": ("thoracic spine", "upper back", "mid back", "middle of the back", "between the shoulder blades"),
    "lumbar spine": ("lumbar spine", "lower back", "low back", "lumbar", "small of the back"),
    "commissure": ("commissure", "corner of the mouth", "corner of the lips"),
    "lateral side of the foot": ("lateral side of the foot", "outer side of the foot", "outside of the foot"),
    "elbow": ("elbow",),
    "popliteal fossa": ("popliteal fossa", "back of the knee", "hollow of the knee"),
    "iliac crest": ("iliac crest", "top of the hip bone"),
    "thigh": ("thigh",),
    "side of the neck": ("side of the neck",),
    "side of the chest": ("side of the chest", "chest side", "ribs", "rib cage", "ribcage"),
    "lower teeth": ("lower teeth", "bottom teeth", "lower tooth"),
    "upper teeth": ("upper teeth", "top teeth", "upper tooth"),
    "above the tongue": ("above the tongue", "top of the tongue", "tongue"),
    "top of the head": ("top of the head", "crown", "vertex"),
    "finger (ring finger)": ("ring finger",),
    "finger (little finger)": ("little finger", "pinky", "pinkie"),
    "finger (index)": ("index finger", "pointer finger", "forefinger"),
    "finger (middle)": ("middle finger",),
    "dorsal aspect of the foot": ("dorsal aspect of the foot", "top of the foot", "instep", "foot"),
    "dorsal aspect of the wrist": ("dorsal aspect of the wrist", "back of the wrist", "wrist"),
    "dorsal aspect of the hand": ("dorsal aspect of the hand", "back of the hand", "hand"),
    "palmar side of the forearm": ("palmar side of the forearm", "inner forearm", "inside of the forearm"),
    "palmar face of the wrist": ("palmar face of the wrist", "inside of the wrist", "inner wrist"),
    "buttock": ("buttock", "bottom", "butt", "glute"),
    "flank": ("flank",),
    "iliac fossa": ("iliac fossa", "lower abdomen", "lower belly", "lower stomach", "lower quadrant"),
    "forehead": ("forehead", "brow", "front of the head"),
    "lower gum": ("lower gum", "bottom gum", "gum"),
    "upper gum": ("upper gum", "top gum", "gum"),
    "knee": ("knee", "kneecap"),
    "glans": ("glans", "tip of the penis"),
    "labia majora": ("labia majora", "labia", "outer lips"),
    "big toe": ("big toe",),
    "hip": ("hip",),
    "upper chest": ("upper chest", "top of the chest", "upper part of the chest"),
    "hymen": ("hymen",),
    "hypochondrium": (
        "hypochondrium",
        "upper abdomen",
        "upper belly",
        "upper quadrant",
        "under the ribs",
        "below the ribs",
    ),
    "ischio jambier": ("ischio jambier", "hamstring", "back of the thigh"),
    "cheek": ("cheek", "cheekbone"),
    "internal cheek": ("internal cheek", "inside of the cheek", "inner cheek"),
    "renal fossa": ("renal fossa", "kidney area", "loin"),
    "uvula": ("uvula",),
    "bottom lip": ("bottom lip", "lower lip"),
    "upper lip": ("upper lip", "top lip"),
    "chin": ("chin",),
    "calf": ("calf", "calves"),
    "jaw": ("jaw", "jawbone"),
    "nose": ("nose", "nostril", "sinuses", "sinus"),
    "occiput": ("occiput", "back of head", "back of the skull"),
    "eye": ("eye", "eyeball", "eyes"),
    "scapula": ("scapula", "shoulder blade"),
    "ear": ("ear", "ears"),
    "toe (1)": ("first toe",),
    "toe (2)": ("second toe",),
    "toe (3)": ("third toe", "middle toe"),
    "palace": ("palace", "palate", "roof of the mouth"),
    "vaginal wall": ("vaginal wall",),
    "palm": ("palm",),
    "little toe (4)": ("little toe", "fourth toe", "pinky toe"),
    "labia minora": ("labia minora", "inner lips"),
    "pharynx": ("pharynx", "throat", "back of the throat"),
    "sole": ("sole", "bottom of the foot", "underside of the foot"),
    "thumb": ("thumb",),
    "pubis": ("pubis", "pubic", "pubic bone"),
    "penis": ("penis",),
    "scrotum": ("scrotum",),
    "breast": ("breast",),
    "under the tongue": ("under the tongue", "beneath the tongue"),
    "under the jaw": ("under the jaw", "below the jaw", "beneath the jaw", "jawline", "neck glands"),
    "heel": ("heel",),
    "temple": ("temple", "temples", "side of the head"),
    "testicle": ("testicle", "testis", "testes"),
    "posterior chest wall": ("posterior chest wall", "back of the chest", "upper back"),
    "tibia": ("tibia", "shin", "shinbone"),
    "trachea": ("trachea", "windpipe"),
    "trapezius": ("trapezius", "top of the shoulder"),
    "triceps": ("triceps", "back of the arm", "back of the upper arm"),
    "urethra": ("urethra",),
    "vagina": ("vagina", "vaginal"),
    "belly": ("belly", "abdomen", "stomach", "tummy", "abdominal"),
    "vermilion": ("vermilion", "lip", "lips"),
    "vulval vestibule": ("vulval vestibule", "vulva"),
    "shoulder": ("shoulder",),
    "epigastric": ("epigastric", "epigastrium", "pit of the stomach", "upper stomach", "upper abdomen", "upper belly"),
}
SIDES = {"right": "R", "left": "L", "r": "R", "l": "L"}
BOTH = frozenset("both either each two bilateral".split())
_POSSESSIVE = frozenset("my your his her their our the a an of on in".split())

YES = frozenset("yes yeah yep yup y true correct indeed sure definitely absolutely".split())
NO = frozenset("no nope n never none not false".split())


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    keys: frozenset[str]  # its own key and those of the question words it stands for


_LAY_STEMS: dict[str, set[str]] = {}
for _word, _others in LAY.items():
    _LAY_STEMS.setdefault(word_key(_word), set()).update(word_key(o) for o in _others)


@lru_cache(maxsize=50_000)
def word_keys(word: str) -> frozenset[str]:
    """The keys of one word: its own and those of the words it stands for ("hurts": hurt, pain), found by the word
    as written or by its stem ("races", "raced" as "racing")."""
    lower = word.lower().replace("’", "'")
    lower = lower[:-2] if lower.endswith("'s") else lower
    own = word_key(lower)
    found = {own, *_LAY_STEMS.get(own, ())}
    for other in LAY.get(lower, ()):
        found.add(word_key(other))
    if lower in KIN:
        found.add(FAMILY_KEY)
    if lower in MOTHER:
        found.add(word_key("mother"))
    if lower in OTHERS:
        found.add(OTHER_KEY)
    found.discard("")
    return frozenset(found)


_LONGEST_MULTI = max(len(words) for words in MULTI)
_APOSTROPHE = re.compile(r"[’']")


def read_tokens(text: str) -> list[Token]:
    """The words of ``text`` with their keys; a run of MULTI is one token with the keys of the words it stands for.
    A word with no key (a stop word) is kept with none: it still counts as a word between two others."""
    raw = tokens(_APOSTROPHE.sub("'", text))
    found, at = [], 0
    while at < len(raw):
        for size in range(min(_LONGEST_MULTI, len(raw) - at), 0, -1):
            run = tuple(w.lower() for w, _, _ in raw[at : at + size])
            if run in MULTI:
                start, end = raw[at][1], raw[at + size - 1][2]
                keys = frozenset().union(*(word_keys(w) for w in MULTI[run]))
                found.append(Token(text[start:end], start, end, keys))  # one word: "passed out" fills both slots
                at += size
                break
        else:
            word, start, end = raw[at]
            found.append(Token(word, start, end, word_keys(word)))
            at += 1
    return found


def content_keys(text: str) -> list[str]:
    """The keys of the words of a question that say what it asks about (its frame words left out), in order."""
    return [word_key(w) for w, _, _ in tokens(text) if w.lower() not in FRAME and word_key(w)]


def about_others(words: list[Token], before: int) -> bool:
    """Whether a word for another person ("my mother", "a coworker") is a subject before position ``before``: the
    finding after it is theirs. One after a preposition ("I live with my brothers") is no subject."""
    for i in range(before):
        if OTHER_KEY in words[i].keys:
            previous = {w.text.lower() for w in words[max(0, i - 2) : i]}
            if not previous & _PREPOSITIONS:
                return True
    return False
