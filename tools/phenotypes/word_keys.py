"""Word forms that compare equal across morphology: a token's key is its Snowball stem, folded further.

"dislocated" and "dislocation" share the stem "disloc"; "lens" and "lenses", "axilla", "axillae" and
"axillary", "aorta" and "aortic" share a key once a plural s and an adjectival or Latin ending are dropped.
An adjective of a condition is the condition ("hypoplastic" = "hypoplasia", "scoliotic" = "scoliosis"), a
Latin plural its singular ("neurofibromata", "nevi"), a British "ae" the American "e" ("haematoma"), but an
inflammation is not its organ ("thyroiditis", "thyroid"). Accents are dropped ("café").
A verb of becoming is its adjective ("shortened", "shortening" = "short"). A digit's number is one key however
written ("5th", "fifth", "Vth"), and a series of digits ("II-V", "second and third") is read by the recogniser.
A few words a clinician uses for a term's word are folded into it ("several" into "multiple", "skin" into
"cutaneous"; after FastHPOCR's base synonyms). Stop words carry no meaning for the match and are skipped.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import snowballstemmer

from amg.tools.kg.schema import normalize_key

_STEMMER = snowballstemmer.stemmer("english")
TOKEN = re.compile(r"\d+(?:st|nd|rd|th)\b|[^\W\d_](?:[^\W\d_]|')*|\d+")
ENDINGS = ("ari", "al", "ic", "ous", "ae", "a", "um", "us", "e")  # after stemming: axillari, aortic, aorta
MIN_ROOT = 4
STOP = frozenset(
    "a an the of in on at to for from by with and or both either "
    "his her their its is are was were be been has have had very some any this that these those "
    "who which whose as into onto over under".split()
)
DESIGNATOR_A = "A"  # the key of a capital "A" after a word (keys are lower case: it is no other word's)
# words with one meaning for the match: a clinician's word -> the word HPO's labels use
SAME = {
    "several": "multiple",
    "numerous": "multiple",
    "many": "multiple",
    "skin": "cutaneous",
    "swelling": "edema",
    "oedema": "edema",
    "heart": "cardiac",
    "kidney": "renal",
    "lung": "pulmonary",
    "belly": "abdomen",
    "tummy": "abdomen",
    "elevated": "increased",
    "raised": "increased",
    "enlarged": "increased",
    "diminished": "decreased",
    "reduced": "decreased",
    "lump": "mass",
    "widened": "dilatation",
    "halluces": "hallux",
    "tooth": "dental",
    "teeth": "dental",
}

# a verb of becoming is its adjective: "shortened", "shortening" = "short" (stems)
BECOME = {
    "shorten": "short",
    "thicken": "thick",
    "flatten": "flat",
    "broaden": "broad",
    "widen": "wide",
    "lengthen": "long",
    "deepen": "deep",
}

# an adjective's ending -> its condition's ending, before stemming
CONDITION = {
    "plastic": "plasia",
    "otic": "osis",
    "trophic": "trophy",
    "penic": "penia",
    "tonic": "tonia",
    "taxic": "taxia",
    "oxic": "oxia",
    "emic": "emia",
    "cephalic": "cephaly",
}
CONDITION_WORDS = {"obese": "obesity", "ataxic": "ataxia"}  # too short for an ending
_CONDITION = re.compile(rf"(?<=\w\w)(?:{'|'.join(CONDITION)})$")
_BRITISH = re.compile(r"ae(?=\w)")  # haem-, anaemia, but not the plural of axillae
INFLAMMATION = "itis"
LATIN_PLURAL = {"omata": "oma", "as": "a", "ae": "a", "i": "us"}  # neurofibromata, -omas, axillae, nevi
_LATIN_PLURAL = re.compile(rf"(?<=\w\w\w)(?:{'|'.join(LATIN_PLURAL)})$")

ORDINALS = {
    w: str(i) for i, w in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth".split(), start=1)
}
ROMAN = {r: str(i) for i, r in enumerate("i ii iii iv v vi vii viii ix x".split(), start=1)}
_ORDINAL = re.compile(r"(?:(\d+)|([ivx]+))(?:st|nd|rd|th)")

# a series of digits: "II-V", "second and third", "2nd, 3rd and 4th", "I to V"
_ROMAN = "(?:" + "|".join(sorted((r.upper() for r in ROMAN), key=len, reverse=True)) + ")"  # the longest first
_DIGIT = (
    r"(?:\d{1,3}(?:st|nd|rd|th)?|(?i:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)"
    rf"|{_ROMAN}(?:st|nd|rd|th)?)"
)
_THROUGH = re.compile(r"\s*(?:[-–—]|to|through)\s*")
SERIES = re.compile(
    rf"\b{_DIGIT}(?:\s*[-–—]\s*|\s+(?:to|through)\s+){_DIGIT}\b"
    rf"|\b{_DIGIT}(?:(?:\s+(?:and|or)\s+|\s*,\s*(?:(?:and|or)\s+)?){_DIGIT}\b)+"
)  # a range or a list
_SERIES_DIGIT = re.compile(_DIGIT)
LONGEST_SERIES = 10

_NUMBER = r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a dozen)"
# "more than six cafe-au-lait spots" is "multiple cafe-au-lait spots"
QUANTITY = re.compile(
    rf"(?:\b(?:more than|over|at least|greater than|in excess of)\s+|[>≥]\s*){_NUMBER}\b|"
    rf"\b(?:dozens of|{_NUMBER} or more)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=100_000)
def key(word: str) -> str:
    """The comparison key of one word ("" for a stop word)."""
    if number := ordinal(word):
        return number
    word = _plain_letters(word.lower().replace("'", ""))
    if word in STOP:
        return ""
    word = SAME.get(word, word)
    word = _spelled(word)
    if word.endswith(INFLAMMATION):
        return word
    stem = _STEMMER.stemWord(word)
    stem = BECOME.get(stem, stem)
    if stem.endswith("s") and not stem.endswith("ss") and len(stem) > 3:
        stem = stem[:-1]
    for ending in ENDINGS:
        if stem.endswith(ending) and len(stem) - len(ending) >= MIN_ROOT:
            return stem[: -len(ending)]
    return stem


def ordinal(word: str) -> str:
    """A digit's number as digits, however written: "5th", "fifth", "Vth", "V" ("" for any other word).
    A bare Roman numeral counts only in capitals, and "I" not alone (it is the pronoun)."""
    lower = word.lower()
    if lower in ORDINALS:
        return ORDINALS[lower]
    if match := _ORDINAL.fullmatch(lower):
        digits, roman = match.group(1), match.group(2)
        return digits or ROMAN.get(roman, "")
    return ROMAN.get(lower, "") if word.isupper() and word != "I" else ""


def series(text: str) -> list[str]:
    """The numbers a series of digits names, in order: "II-V" 2, 3, 4, 5; "2nd, 3rd and 4th" 2, 3, 4."""
    numbers: list[str] = []
    last_end = 0
    for match in _SERIES_DIGIT.finditer(text):
        digit = match.group()
        number = ordinal(digit) or ROMAN.get(digit.lower()) or digit  # "I" too in "I-V"
        if numbers and _THROUGH.fullmatch(text, last_end, match.start()):
            low, high = int(numbers[-1]), int(number)
            if low < high <= low + LONGEST_SERIES:
                numbers.extend(str(n) for n in range(low + 1, high))
        numbers.append(number)
        last_end = match.end()
    return list(dict.fromkeys(numbers))


def condition_adjective(word: str) -> bool:
    """Whether a word is a condition's adjective ("hypotonic", "obese"), which alone names the condition."""
    plain = _plain_letters(word.lower())
    return plain in CONDITION_WORDS or bool(_CONDITION.search(plain))


def _plain_letters(text: str) -> str:
    """Without accents: "café" is "cafe"."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode() if not text.isascii() else text


@lru_cache(maxsize=100_000)
def _spelled(word: str) -> str:
    """A Latin plural singular, British spelling American, a condition's adjective the condition."""
    word = _LATIN_PLURAL.sub(lambda m: LATIN_PLURAL[m.group()], word)
    word = CONDITION_WORDS.get(word, word)
    return _CONDITION.sub(lambda m: CONDITION[m.group()], _BRITISH.sub("e", word))


@lru_cache(maxsize=1 << 18)  # every run of words a text holds is looked up as written
def written(text: str) -> str:
    """``text`` as written, but for case, plurals, British spelling and a condition's adjective."""
    return " ".join(_spelled(w) for w in normalize_key(_plain_letters(text)).split())


def tokens(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) of each word or number in ``text``."""
    return [(m.group(), m.start(), m.end()) for m in TOKEN.finditer(text)]


def key_in_place(word: str, after_a_word: bool) -> str:
    """``key``, but a capital "A" after another word is a designator ("Vitamin A deficiency", "hepatitis A"), never
    the article it is anywhere else: without it, "Deficiency of which vitamin" named vitamin A deficiency."""
    return DESIGNATOR_A if after_a_word and word == "A" else key(word)


def keys(text: str) -> tuple[str, ...]:
    """The keys of a label's meaningful words, in order."""
    return tuple(k for n, (w, _, _) in enumerate(tokens(text)) if (k := key_in_place(w, n > 0)))
