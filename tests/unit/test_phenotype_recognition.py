"""Phenotypes in a clinician's words: HPO synonyms, paraphrase and word order, quantities, negation."""

from __future__ import annotations

import pytest

from amg.tools.kg.schema import normalize_key
from amg.tools.phenotypes.lexicon import Lexicon, hpo_lexicon, read_obo
from amg.tools.phenotypes.negation import is_negated
from amg.tools.phenotypes.recognizer import recognise

MARFAN = (
    "A 19-year-old man is very tall, with long slender fingers, dislocated lenses of both eyes, pectus "
    "excavatum and a dilated aortic root on echocardiography. What is the most likely diagnosis?"
)
NF1 = (
    "A 7-year-old girl has more than six cafe-au-lait spots, freckling in both axillae, Lisch nodules of the "
    "iris and several soft cutaneous neurofibromas. What is the most likely diagnosis?"
)


def found(text: str) -> dict[str, bool]:
    """{HPO name: negated?} of the phenotypes ``text`` names."""
    return {m.name: m.negated for m in recognise(text)}


def test_a_case_in_a_clinicians_words():
    assert found(MARFAN) == {
        "Arachnodactyly": False,
        "Ectopia lentis": False,
        "Pectus excavatum": False,
        "Aortic root aneurysm": False,
    }
    assert found(NF1) == {
        "Multiple cafe-au-lait spots": False,
        "Axillary freckling": False,
        "Lisch nodules": False,
        "Neurofibroma": False,
    }, "no 'Soft skin' in soft cutaneous neurofibromas"


@pytest.mark.parametrize(
    "text, name",
    [
        ("spider fingers", "Arachnodactyly"),  # layperson synonym
        ("pyrexia for three days", "Fever"),  # exact synonym
        ("cafe au lait macules", "Cafe-au-lait spot"),  # plural synonym, hyphens or not
        ("mitral valve insufficiency", "Mitral regurgitation"),
        ("a patent ductus arteriosus (PDA)", "Patent ductus arteriosus"),
    ],
)
def test_synonyms(text, name):
    assert name in found(text)


@pytest.mark.parametrize(
    "text, name",
    [
        ("dislocated lenses of both eyes", "Ectopia lentis"),  # "Lens dislocation": other word order and forms
        ("her lenses are dislocated", "Ectopia lentis"),
        ("freckling in both axillae", "Axillary freckling"),  # axilla(e) = axillary
        ("a dilated aortic root", "Aortic root aneurysm"),  # "Aortic root dilatation"
        ("clubbing of the fingers", "Clubbing of fingers"),
        ("two or more cafe-au-lait spots", "Multiple cafe-au-lait spots"),  # a quantity is "multiple"
    ],
)
def test_paraphrase_and_word_order(text, name):
    assert name in found(text)


def test_the_finer_of_two_overlapping_terms_wins():
    assert "Lisch nodules" in found("Lisch nodules of the iris") and "Iris nodule" not in found(
        "Lisch nodules of the iris"
    )


def test_words_that_name_no_phenotype():
    assert found("What is the most likely diagnosis? Which drug is first-line?") == {}
    assert "Autistic behavior" not in found("She has an ASD"), "an acronym of several terms names none"


def test_a_capital_a_after_a_word_designates_and_the_article_does_not():
    vitamin_a = "Reduced circulating vitamin A concentration"
    assert vitamin_a not in found("Deficiency of which vitamin causes beriberi?"), "the article is no designator"
    assert vitamin_a in found("A boy with night blindness from vitamin A deficiency")
    assert vitamin_a in found("Deficiency of vitamin A")
    assert "Decreased circulating IgA concentration" in found("Low levels of immunoglobulin A were found.")


@pytest.mark.parametrize(
    "text",
    [
        "A normal spine.",  # one word names a term as written only: "spine" is no "Spinning"
        "vaginal bleeding",  # "vaginal" is no "Vaginitis", an organ no inflammation of it
        "an enlarged thyroid",
        "tears in her eyes",  # no "Epiphora" ("Tearing")
        "the carpal bone",  # no "Fractured carpal bone" (its synonym "bone carpal bone" repeats a word)
        "short\n\nstature",  # a blank line ends a clause
        "A hypertonic solution is:",  # a condition's adjective before a treatment names the treatment
        "Should she continue oral hypoglycemic agents?",
    ],
)
def test_words_that_look_like_a_label_but_are_not_one(text):
    assert found(text) == {}


@pytest.mark.parametrize(
    "text, name",
    [
        ("Thyroiditis.", "Thyroiditis"),
        ("She was scoliotic.", "Scoliosis"),  # a condition's adjective, as written
        ("hypoplastic thumbs", "Short thumb"),  # "Thumb hypoplasia"
        ("anaemia", "Anemia"),  # British spelling
        ("neurofibromata", "Neurofibroma"),  # a Latin plural
        ("café-au-lait spots", "Cafe-au-lait spot"),  # accents
        ("crowded teeth", "Dental crowding"),
        ("short\nstature", "Short stature"),  # a line wrapped inside a finding
        ("He was hypotonic at birth.", "Hypotonia"),  # a condition's adjective, one word
        ("He is morbidly obese.", "Obesity"),
        ("She was ataxic.", "Ataxia"),
        ("the femurs were shortened", "Short femur"),  # a verb of becoming is its adjective
        ("shortening of the humeri", "Short humerus"),
        ("a thickened helix", "Thickened helices"),
    ],
)
def test_spelling_and_word_forms(text, name):
    assert name in found(text)


@pytest.mark.parametrize(
    "text, names",
    [
        ("clinodactyly of the Vth fingers", {"Clinodactyly of the 5th finger"}),  # Roman, ordinal and digits agree
        ("clinodactyly of the fourth fingers", {"Clinodactyly of the 4th finger"}),
        ("syndactyly of the second and third toes", {"2-3 toe syndactyly"}),  # a series read by its ends
        ("4th and 5th toes syndactyly", {"4-5 toe syndactyly"}),
        (
            "short metacarpals II-V",
            {"Short 2nd metacarpal", "Short 3rd metacarpal", "Short 4th metacarpal", "Short 5th metacarpal"},
        ),  # or as each of its digits
        (
            "clinodactyly of his 2nd and 5th fingers",
            {"Clinodactyly of the 2nd finger", "Clinodactyly of the 5th finger"},
        ),
        ("syndactyly of toes 1–2 and 2–3", {"1-2 toe syndactyly", "2-3 toe syndactyly"}),  # two ranges, not 1 to 3
    ],
)
def test_digits_written_as_clinicians_write_them(text, names):
    assert set(found(text)) == names


def test_numbers_that_name_no_digit_term():
    second_and_third = found("syndactyly of the second and third toes with overlapping fourth")
    assert "2-3 toe syndactyly" in second_and_third, "numbers of two places make no range"
    assert not {"2-4 toe syndactyly", "3-4 toe syndactyly"} & set(second_and_third)
    apgar = found("Apgar scores were 1, 3, and 5 at 1, 5, and 10 minutes")
    assert not any(name[0].isdigit() for name in apgar), "a number is never the word a mention skips"


def test_a_synonym_two_terms_share_names_the_finer():
    """ "Shortened limbs" (Aplasia/hypoplasia of the extremities) and "Limb shortening" (Limb undergrowth) read
    alike."""
    assert set(found("The limbs were short.")) == {"Limb undergrowth"}


@pytest.mark.parametrize(
    "text, names",
    [
        ("bilateral cleft lip", {"Cleft lip"}),  # a grading word only qualifies the term it names
        ("severe short stature", {"Severe short stature"}),  # severity stays: the differential tells them apart
        ("cleft lip and palate", {"Cleft lip", "Cleft palate"}),  # list items share a word
        ("short and broad thumbs", {"Short thumb", "Broad thumb"}),
        ("short hands, feet and fingers", {"Short palm", "Short foot", "Short finger"}),
        ("a long philtrum and thin upper lip", {"Long philtrum", "Thin upper lip vermilion"}),  # no "thin philtrum"
        ("a high arched clefted palate", {"High palate", "Cleft palate"}),  # the word a mention skips names another
        ("a short 5th finger with clinodactyly", {"Short 5th finger", "Clinodactyly of the 5th finger"}),  # overlapping
        ("lens dislocation and pectus excavatum", {"Ectopia lentis", "Pectus excavatum"}),
    ],
)
def test_grading_words_lists_and_overlaps(text, names):
    assert set(found(text)) == names


@pytest.mark.parametrize(
    "text, name",
    [
        ("No fever.", "Fever"),
        ("He denies chest pain.", "Chest pain"),
        ("A tall man without lens dislocation.", "Ectopia lentis"),
        ("Lens dislocation was absent.", "Ectopia lentis"),
        ("Negative for night sweats.", "Night sweats"),
        ("Her lenses are not dislocated.", "Ectopia lentis"),  # the negation inside the finding's words
    ],
)
def test_negated_findings(text, name):
    assert found(text)[name] is True


def test_the_reach_of_a_negation():
    assert found("She denies fever, chills and night sweats.") == {"Fever": True, "Chills": True, "Night sweats": True}
    assert found("No fever, chills or night sweats.") == {"Fever": True, "Chills": True, "Night sweats": True}
    listed = found("Long slender fingers, no lens dislocation, pectus excavatum and a dilated aortic root.")
    assert listed == {
        "Arachnodactyly": False,
        "Ectopia lentis": True,
        "Pectus excavatum": False,
        "Aortic root aneurysm": False,
    }, "a bare 'no' in a list joined by 'and' negates its own item"
    assert found("No fever but a cough.") == {"Fever": True, "Cough": False}
    assert found("Not only a cough but also fever.") == {"Cough": False, "Fever": False}, "a pseudo-negation"
    text = "Tuberculosis cannot be excluded in a patient with hemoptysis."
    assert not is_negated(text, text.index("hemoptysis"), end=text.index("hemoptysis") + 10)


def test_a_heading_of_absence_negates_its_list_to_the_end_of_its_line_or_sentence():
    case = "Observed features: Lipodystrophy; Hypertension.\nExplicitly absent (excluded) features: Hepatomegaly; Gout."
    assert found(case) == {"Lipodystrophy": False, "Hypertension": False, "Hepatomegaly": True, "Gout": True}
    assert found("Pertinent negatives: fever, rash. She has seizures.") == {
        "Fever": True,
        "Skin rash": True,
        "Seizure": False,
    }, "the heading's list ends with its sentence"
    assert found("He does not have: ataxia, nystagmus\nHe has hypotonia.") == {
        "Ataxia": True,
        "Nystagmus": True,
        "Hypotonia": False,
    }
    assert found("Features: ataxia; absent ankle reflexes") == {"Ataxia": False, "Absent Achilles reflex": False}


def test_a_negation_word_in_a_findings_own_name_negates_nothing():
    said = "Generalized muscular hypotonia, absent ankle reflexes and defective or absent horizontal voluntary eye "
    assert found(said + "movements.") == {
        "Generalized hypotonia": False,
        "Absent Achilles reflex": False,
        "Oculomotor apraxia": False,
    }
    said = "Absence of the corpus callosum and seizures."
    assert found(said) == {"Agenesis of corpus callosum": False, "Seizure": False}
    assert found("No speech or language development and poor head control.") == {
        "Absent speech": False,
        "Poor head control": False,
    }
    assert found("Absent ankle reflexes and no fever.") == {"Absent Achilles reflex": False, "Fever": True}, (
        "a negation outside the finding's name still negates"
    )


def test_a_label_as_written_that_repeats_a_word():
    assert found("Scar tissue replaces healthy tissue in the liver.") == {"Cirrhosis": False}
    assert found("Cleft lip, cleft palate.") == {"Cleft lip": False, "Cleft palate": False}, (
        "a broad synonym (Orofacial cleft's) says less than its items"
    )


OBO = """format-version: 1.2

[Term]
id: HP:0000118
name: Phenotypic abnormality

[Term]
id: HP:0000001
name: Lens abnormality
synonym: "Abnormal lens" EXACT []
is_a: HP:0000118 ! Phenotypic abnormality

[Term]
id: HP:0000002
name: Ectopia lentis
synonym: "Lens dislocation" EXACT []
synonym: "Displaced lens" RELATED layperson []
synonym: "EL" EXACT abbreviation []
is_a: HP:0000001 ! Lens abnormality

[Term]
id: HP:0000003
name: Old lens term
is_obsolete: true

[Term]
id: HP:0000004
name: Bilateral ectopia lentis
is_a: HP:0000002 ! Ectopia lentis
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Lexicon:
    path = tmp_path_factory.mktemp("obo") / "hp.obo"
    path.write_text(OBO)
    return Lexicon(read_obo(path))


def test_an_obo_file_read_into_a_lexicon(small):
    assert "HP:0000003" not in small.terms, "obsolete terms are left out"
    assert small.labels[frozenset({"len", "disloc"})] == (1.0, "HP:0000002")
    assert small.labels[frozenset({"displac", "len"})] == (0.9, "HP:0000002"), "related synonyms weigh less"
    assert small.acronyms == {"EL": (1.0, "HP:0000002")}
    assert [m.name for m in recognise("the lens was displaced; EL", small)] == ["Ectopia lentis"]
    lens, bilateral = normalize_key("Lens abnormality"), normalize_key("Bilateral ectopia lentis")
    assert small.implied({"ectopia lentis"}) == {lens, normalize_key("Phenotypic abnormality"), bilateral}
    assert small.implied(set(), {"ectopia lentis"}) == {bilateral}, "an absent finding rules out finer ones only"


def test_the_hierarchy_says_what_a_stated_finding_settles():
    implied = hpo_lexicon().implied({"cafe au lait spot"})
    assert {"multiple cafe au lait spot", "hypermelanotic macule"} <= implied
