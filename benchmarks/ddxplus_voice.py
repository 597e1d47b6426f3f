"""DDXPlus cases retold in a patient's own voice, from their gold codes, by templates that are not the dataset's frames.

Each evidence is said the way a patient might say it, in the first person and other words (one of a few sayings,
drawn at random): "Do you have a fever?" becomes "I've been running a temperature" or "I've felt feverish". The pain
is told as a story (where, what it feels like, how bad on a 0-10 scale said in one of several ways, where it spreads,
how fast it came), places and kinds of pain in a patient's words ("my Adam's apple", "stabbing"). Statements are
shuffled within the symptoms and within the history, some facts are left out (``drop``), and a few evidences the
patient does not have are denied ("I don't smoke") to test negation. The retelling returns the codes it tells, so a
reader is scored against what the text says.

The fit half draws each saying from the even places of its list, the report half from the odd ones, so what the
reader was tuned on (fit) is not what it is reported on, where an evidence has two sayings or more. The sayings were
written by the author of the reader (tools/records/ddxplus_reading.py), who knew its word lists:
figures on these texts are an estimate of how it reads other words, not a held-out measure. An evidence without a
saying here is said from its question turned into the first person ("Do you have X?" -> "I have X").
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from amg.tools.records.ddxplus import NOWHERE, Dictionary, Patient, join_code, split_code

# evidence -> ways a patient says it is there
SAYINGS: dict[str, tuple[str, ...]] = {
    "E_91": ("I've been running a temperature.", "I've felt feverish, hot and cold.", "I have had a fever."),
    "E_201": ("I've been coughing a lot.", "I have this cough that won't go away.", "I keep coughing."),
    "E_66": ("I get short of breath.", "I'm having real trouble breathing.", "I can't catch my breath."),
    "E_181": ("My nose is stuffed up and runny.", "I've got a blocked, runny nose.", "My nose keeps running."),
    "E_79": ("I'm a smoker.", "I smoke cigarettes.", "I smoke about a pack a day."),
    "E_50": ("I've been sweating a lot more than normal.", "I sweat heavily, even at rest."),
    "E_49": ("I work at a daycare.", "I go to daycare."),
    "E_48": ("There are five of us living at home.", "I live with four other people."),
    "E_41": ("Someone I've been around had the same symptoms recently.", "My coworker had the same thing last week."),
    "E_124": ("I have asthma and use an inhaler.", "I'm asthmatic."),
    "E_97": ("My throat is sore.", "I have a sore throat.", "It hurts to have this throat."),
    "E_144": ("My muscles ache all over.", "I have aches in my muscles everywhere."),
    "E_77": ("I'm coughing up yellow-green phlegm.", "My cough brings up more mucus than usual, and it's colored."),
    "E_78": ("I drink too much alcohol.", "I'm a heavy drinker."),
    "E_151": ("I have some swelling.", "Part of my body has swollen up."),
    "E_148": ("I feel sick to my stomach.", "I'm nauseous.", "I feel like I'm going to throw up."),
    "E_45": ("I've coughed up some blood.", "There's blood when I cough."),
    "E_70": ("I'm quite overweight.", "I'm obese."),
    "E_82": ("I feel like I'm going to pass out.", "I get light-headed, like I might faint."),
    "E_89": ("I'm tired all the time and don't sleep well.", "I feel worn out constantly."),
    "E_104": ("I have high blood pressure.", "I take pills for my blood pressure."),
    "E_69": ("I'm diabetic.", "I have diabetes."),
    "E_222": ("I'm around secondhand smoke every day.", "My partner smokes around me every day."),
    "E_88": ("I'm so exhausted I can't do my normal activities.", "I've been stuck in bed all day from tiredness."),
    "E_227": ("My immune system is weak; I'm immunosuppressed.", "I'm on immunosuppressants."),
    "E_226": ("I tend to get allergies easily.", "I'm allergic to lots of things."),
    "E_155": ("My heart races and pounds.", "I feel palpitations.", "My heartbeat feels fast and irregular."),
    "E_214": ("I wheeze when I breathe out.", "There's a wheezing noise when I exhale."),
    "E_105": ("I had a heart attack in the past.", "I have angina."),
    "E_123": ("I have COPD.", "I've got chronic obstructive pulmonary disease."),
    "E_218": ("My symptoms get worse when I exert myself and ease off when I rest.",),
    "E_51": ("I've had diarrhea.", "I've had the runs, going to the bathroom a lot more."),
    "E_208": ("I'm underweight.", "I'm very thin, my BMI is under 18.5."),
    "E_220": ("It hurts more when I take a deep breath.", "Breathing in deeply makes the pain worse."),
    "E_106": ("I have heart failure.",),
    "E_76": ("I feel a bit dizzy.", "I'm slightly lightheaded."),
    "E_217": ("It's worse when I lie down and better when I sit up.", "Lying flat makes it worse; sitting up helps."),
    "E_209": ("My vaccinations are up to date.", "I'm up to date on my shots."),
    "E_118": ("I had pneumonia before.", "I've had pneumonia in the past."),
    "E_162": ("I've lost weight without trying over the last few months.", "I've been losing weight without dieting."),
    "E_161": ("I've lost my appetite.", "I get full really quickly."),
    "E_116": ("I had a cold a couple of weeks ago.", "I caught a cold recently."),
    "E_175": ("I've just felt generally unwell and achy.", "I feel run down, with vague aches."),
    "E_113": ("I have chronic kidney failure.", "My kidneys don't work well; it's chronic."),
    "E_9": ("My glands are swollen.", "I have swollen lymph nodes."),
    "E_146": ("I take a blood thinner.", "I'm on one of the new anticoagulants."),
    "E_24": ("I've been told I'm anemic.", "I've had anemia."),
    "E_140": ("My stools have been black.", "My poop is black, like tar."),
    "E_0": ("I had a viral infection recently.", "I was getting over a virus."),
    "E_94": ("I've had chills.", "I keep shivering."),
    "E_7": ("I don't eat very well.", "My diet is poor."),
    "E_196": ("I had surgery a few weeks ago.", "I had an operation last month."),
    "E_71": ("I have high cholesterol.", "I take medication for cholesterol."),
    "E_159": ("I passed out.", "I fainted."),
    "E_62": ("I regularly take stimulants.", "I use stimulant drugs."),
    "E_109": ("I've had a blood clot in my leg before, a DVT.", "I had deep vein thrombosis once."),
    "E_225": ("My father had heart disease before 50.", "Heart problems run in my family at a young age."),
    "E_157": ("My arms, legs and around my mouth feel numb and tingly.", "I've had pins and needles in my limbs."),
    "E_219": ("It's worse at night.", "My symptoms are worse at night."),
    "E_194": ("There's a high-pitched sound when I breathe in.", "I make a whistling noise when breathing in."),
    "E_26": ("Anemia runs in my family.", "My mother is anemic."),
    "E_154": ("My skin is much paler than usual.", "I look very pale."),
    "E_179": ("I've seen bright red blood in my stool.", "There were blood clots in my poop."),
    "E_167": ("I'm pregnant.", "I think I might be pregnant."),
    "E_125": ("I have acid reflux.", "I've been diagnosed with GERD."),
    "E_120": ("I have nasal polyps.", "There are polyps in my nose."),
    "E_115": ("I've had unprotected sex with more than one partner lately.",),
    "E_16": ("I feel anxious.", "I've been very nervous."),
    "E_22": ("I have a problem with one of my heart valves.", "I have a heart valve issue."),
    "E_42": ("I was exposed to something I'm allergic to.", "I ate something I'm allergic to."),
    "E_173": ("I get heartburn that rises into my throat with a bitter taste.",),
    "E_212": ("My voice has become hoarse.", "My voice is hoarse and deeper."),
    "E_12": ("I have a severe food allergy.",),
    "E_27": ("I've had a sexually transmitted infection.", "I had an STI before."),
    "E_98": ("I have a hiatal hernia.",),
    "E_215": ("My symptoms get worse after I eat.", "Eating makes it worse."),
    "E_84": ("My arms and legs feel weak.", "I have weakness in both legs."),
    "E_189": ("My partner is HIV positive and we've had sex this year.",),
    "E_103": ("I can't smell anything anymore.", "I've lost my sense of smell."),
    "E_3": ("I've had pericarditis before.",),
    "E_87": ("My brother has asthma.", "Asthma runs in my family."),
    "E_61": ("I inject drugs.", "I use intravenous drugs."),
    "E_176": ("I've had weakness in my arm and face.", "I had some paralysis on one side."),
    "E_177": ("I've had numbness and tingling.", "Parts of my body feel numb."),
    "E_197": ("I have a kidney problem where I lose protein.",),
    "E_143": ("I exercise four or more times a week.", "I work out regularly."),
    "E_44": ("I take corticosteroids.", "I'm on steroids."),
    "E_172": ("I have trouble opening my eyelids.", "My eyelids droop and are hard to lift."),
    "E_207": ("I live in a big city.",),
    "E_182": ("My nose is running with green mucus.", "I blow out yellowish snot."),
    "E_14": ("My chest hurts even when I'm resting.", "I have chest pain at rest."),
    "E_121": ("I have a deviated septum.",),
    "E_149": ("I take a calcium channel blocker.",),
    "E_137": ("I had lymph nodes removed in surgery.",),
    "E_110": ("I was bedridden for several days last month.", "I couldn't get up for more than three days."),
    "E_95": ("I have Parkinson's.",),
    "E_31": ("I have severe COPD.",),
    "E_210": ("I threw up blood.", "I vomited something that looked like coffee grounds."),
    "E_65": ("It's hard to swallow.", "I have trouble swallowing."),
    "E_96": ("I've gained weight recently.", "I've put on weight."),
    "E_126": ("I have cirrhosis of the liver.",),
    "E_80": ("I've been diagnosed with depression.",),
    "E_5": ("I've had fluid in my lungs before.",),
    "E_158": ("I have a hormone problem.", "I have an endocrine disorder."),
    "E_25": ("My father has cluster headaches.",),
    "E_191": ("I used to smoke.", "I quit smoking a while ago."),
    "E_10": ("I've been taking ibuprofen.", "I took anti-inflammatories recently."),
    "E_8": ("I'm on dialysis.",),
    "E_2": ("I'm HIV positive.", "I have HIV."),
    "E_83": ("My face and eye muscles feel weak.",),
    "E_184": ("I take a medication that widens my blood vessels.",),
    "E_138": ("I have fibromyalgia.",),
    "E_203": ("I have violent coughing fits.", "I get these intense coughing attacks."),
    "E_119": ("I have chronic sinusitis.",),
    "E_67": ("I wake up at night choking and short of breath.",),
    "E_111": ("I felt like I was dying.", "I was terrified I was going to die."),
    "E_198": ("I work on a farm.", "I work in agriculture."),
    "E_169": ("My nose and the back of my throat are itchy.",),
    "E_185": ("I hit my head once, a head injury.",),
    "E_15": ("I started an antipsychotic this week.",),
    "E_190": ("I'm drooling more than usual.", "I have more saliva than normal."),
    "E_13": ("It's been getting worse over two weeks and takes less effort to bring on.",),
    "E_108": ("I have poor circulation.",),
    "E_223": ("My aunt had pancreatic cancer.",),
    "E_75": ("I feel like I'm choking.", "It feels like I'm suffocating."),
    "E_188": ("My stools are pale and my urine is dark.",),
    "E_156": ("One side of my face went weak.", "My face drooped on one side."),
    "E_145": ("My periods are very heavy and long.",),
    "E_107": ("I had a stroke before.",),
    "E_114": ("I've been irritable and moody.",),
    "E_171": ("I feel detached from my body.", "Things feel unreal around me."),
    "E_213": ("I took a decongestant recently.",),
    "E_221": ("Coughing or straining makes it worse.", "It hurts more when I lift something or cough."),
    "E_186": ("I have sleep apnea.",),
    "E_147": ("I was treated in hospital recently for agitation and given an injection.",),
    "E_168": ("I can't keep my tongue in my mouth.",),
    "E_46": ("I've had two or more asthma attacks this year.",),
    "E_164": ("My heart beats very irregularly.",),
    "E_160": ("I was born premature.",),
    "E_192": ("My neck muscles are in spasm and I can't turn my head.",),
    "E_30": ("My belly feels bloated.", "My stomach is swollen and distended."),
    "E_101": ("I was hospitalized for asthma this past year.",),
    "E_81": ("I have chronic anxiety.",),
    "E_92": ("My cheeks suddenly went red.", "My face flushed red all of a sudden."),
    "E_187": ("I ate tuna before this started.", "I had some Swiss cheese right before."),
    "E_180": ("I can't control where my eyes look.",),
    "E_128": ("For a moment I couldn't breathe or speak, like suffocating.",),
    "E_127": ("My eyes are watering a lot.", "My eyes are teary."),
    "E_86": ("My family has allergies and eczema.",),
    "E_6": ("I have chronic pancreatitis.",),
    "E_18": ("I have cystic fibrosis.",),
    "E_139": ("I have a heart defect.",),
    "E_193": ("I have muscle spasms in my face and neck.",),
    "E_29": ("My sister has a psychiatric illness.",),
    "E_170": ("My eyes are really itchy.",),
    "E_19": ("I have hyperthyroidism.", "I have an overactive thyroid."),
    "E_60": ("I drink energy drinks regularly.",),
    "E_200": ("I work in a mine.",),
    "E_35": ("I drink coffee every day.",),
    "E_38": ("My jaw hurts and feels weak.",),
    "E_52": ("I'm seeing double.", "I have double vision."),
    "E_150": ("I've been able to pass gas.",),
    "E_205": ("I can't open my mouth properly.", "My jaw hurts when I open my mouth."),
    "E_33": ("It's better when I lean forward.", "Leaning forward eases the pain."),
    "E_20": ("I have rheumatoid arthritis.",),
    "E_47": ("I have Crohn's disease.",),
    "E_72": ("I had a COPD flare-up this year.",),
    "E_28": ("My mother has myasthenia gravis.",),
    "E_100": ("I'm taking hormones.",),
    "E_211": ("I've vomited several times.", "I keep throwing up."),
    "E_1": ("I'm on antibiotics for an ear infection.",),
    "E_199": ("I work in construction.",),
    "E_63": ("I have trouble speaking clearly.", "My words come out slurred."),
    "E_163": ("I've had vaginal discharge.",),
    "E_21": ("I had a collapsed lung before.",),
    "E_224": ("My father had lung cancer.",),
    "E_43": ("I had a seizure and lost consciousness.",),
    "E_141": ("My first period came before I was 12.",),
    "E_64": ("I get out of breath with the slightest effort.", "Even a little effort leaves me winded."),
    "E_90": ("My muscle weakness gets worse when I'm tired.",),
    "E_74": ("My eyes are red all over.", "Both my eyes are red."),
    "E_102": ("I'm here because of my high blood pressure.",),
    "E_206": ("I have painful sores in my mouth.", "I've got mouth ulcers."),
    "E_165": ("My brother had a collapsed lung.",),
    "E_166": ("I threw up after coughing.",),
    "E_174": ("I've been losing weight and my appetite.",),
    "E_37": ("I have cancer that has spread.",),
    "E_4": ("I had croup as a kid.",),
    "E_40": ("I was around someone with whooping cough.",),
    "E_216": ("It hurts more when I move.",),
    "E_202": ("I have whooping cough.",),
    "E_153": ("I'm being treated for osteoporosis.",),
    "E_112": ("I wheeze when I breathe in after coughing fits.",),
    "E_17": ("I'm of Asian descent.",),
    "E_11": ("I breastfed my child for more than nine months.",),
    "E_32": ("I haven't felt like eating.", "My appetite is down."),
    "E_34": ("I have cancer right now.", "I'm being treated for cancer."),
    "E_23": ("I stop breathing in my sleep sometimes.",),
    "E_39": ("I've been confused.", "I feel disoriented."),
    "E_73": ("I was in contact with someone with Ebola.",),
    "E_93": ("My feet are numb and tingly.",),
    "E_99": ("I get migraines.", "Migraines run in my family."),
    "E_136": (),  # graded in the skin story
    "E_129": ("I have a rash.", "There's something wrong with my skin."),
    "E_53": (),  # told in the pain story
    "E_178": ("I've been bruising easily.", "I've had some unusual bleeding."),
    "E_195": ("I live in the suburbs.",),
    "E_183": ("I live out in the country.",),
    "E_142": ("My mom has asthma.",),
    "E_59": (),
}
# evidences a patient denies: "I don't smoke"
DENIALS = {
    "E_79": "I don't smoke.",
    "E_91": "I haven't had any fever.",
    "E_201": "I'm not coughing.",
    "E_66": "My breathing is fine, no shortness of breath.",
    "E_78": "I don't drink much.",
    "E_69": "I'm not diabetic.",
    "E_104": "No high blood pressure.",
    "E_148": "No nausea.",
    "E_97": "My throat isn't sore.",
    "E_181": "My nose isn't blocked or runny.",
    "E_124": "I don't have asthma.",
    "E_167": "I'm not pregnant.",
}
PLACE_WORDS = {
    "thyroid cartilage": ("my Adam's apple", "the front of my neck"),
    "pharynx": ("my throat", "the back of my throat"),
    "palace": ("the roof of my mouth",),
    "epigastric": ("the pit of my stomach", "my upper belly"),
    "belly": ("my stomach", "my belly"),
    "back of head": ("the back of my head",),
    "occiput": ("the back of my skull", "the back of my head"),
    "top of the head": ("the top of my head",),
    "lower chest": ("my lower chest", "the bottom of my chest"),
    "upper chest": ("my upper chest", "the top of my chest"),
    "side of the chest": ("the {side} side of my chest",),
    "breast": ("my {side} breast",),
    "posterior chest wall": ("my upper back on the {side}",),
    "thoracic spine": ("my upper back", "between my shoulder blades"),
    "lumbar spine": ("my lower back",),
    "cervical spine": ("my neck",),
    "back of the neck": ("the back of my neck",),
    "side of the neck": ("the {side} side of my neck",),
    "under the jaw": ("under my jaw",),
    "iliac fossa": ("my lower {side} belly", "the lower {side} part of my abdomen"),
    "hypochondrium": ("under my {side} ribs", "my upper {side} abdomen"),
    "scapula": ("my {side} shoulder blade",),
    "biceps": ("my {side} upper arm",),
    "internal cheek": ("the inside of my {side} cheek",),
    "tonsil": ("my {side} tonsil",),
    "temple": ("my {side} temple",),
    "flank": ("my {side} flank",),
    "commissure": ("the {side} corner of my mouth",),
}
CHARACTER_WORDS = {
    "heartbreaking": ("tearing",),
    "haunting": ("nagging", "haunting"),
    "tedious": ("dull", "tedious"),
    "sensitive": ("tender", "sensitive"),
    "a knife stroke": ("stabbing", "like a knife"),
    "tugging": ("pulling", "tugging"),
    "burning": ("burning",),
    "a cramp": ("cramping", "like a cramp"),
    "heavy": ("heavy", "like pressure"),
    "a pulse": ("throbbing", "pulsing"),
    "violent": ("violent",),
    "sharp": ("sharp",),
    "sickening": ("sickening",),
    "scary": ("frightening", "scary"),
    "exhausting": ("exhausting", "draining"),
}
_SIDE = re.compile(r"\((R|L)\)$")
SIDE_WORDS = {"R": "right", "L": "left"}


@dataclass(frozen=True)
class Retelling:
    text: str
    codes: tuple[str, ...]  # the gold codes the text tells (those dropped left out)
    denied: tuple[str, ...]  # evidences it denies


class Sayings:
    """Draws from a list of sayings: the fit half from its even places, the report half from its odd ones (all when
    there is one), so no saying the fit half tuned on is reported on where another exists."""

    def __init__(self, rng: random.Random, half: str):
        self.rng, self.half = rng, half

    def choice(self, options):
        options = list(options)
        own = options[0::2] if self.half == "fit" else options[1::2]
        return self.rng.choice(own or options)

    def random(self) -> float:
        return self.rng.random()

    def sample(self, population, k: int):
        return self.rng.sample(population, k)

    def shuffle(self, items) -> None:
        self.rng.shuffle(items)


def retell(patient: Patient, dictionary: Dictionary, rng: Sayings, drop: float = 0.15) -> Retelling:
    """The patient's case in their own words."""
    evidences = dictionary.evidences
    codes = list(patient.codes)
    by_base: dict[str, list[str]] = {}
    for code in codes:
        base, value = split_code(code)
        by_base.setdefault(base, []).append(value)
    told: list[str] = []
    symptoms, history = [], []
    pain = _pain_story(by_base, dictionary, rng, told)
    if pain:
        symptoms.append(pain)
    skin = _skin_story(by_base, dictionary, rng, told)
    if skin:
        symptoms.append(skin)
    for base, values in by_base.items():
        evidence = evidences[base]
        if base in ("E_53", "E_54", "E_55", "E_56", "E_57", "E_58", "E_59") or evidence.parent == "E_129":
            continue
        if base == "E_129":
            continue
        if rng.random() < drop and base != patient.initial_evidence:
            continue
        sentence = _saying(evidence, values, dictionary, rng)
        if sentence:
            (history if evidence.antecedent else symptoms).append(sentence)
            told.extend(join_code(base, v) for v in values)
    denied = []
    held = {split_code(c)[0] for c in codes}
    for base, sentence in rng.sample(sorted(DENIALS.items()), k=2):
        if base not in held:
            history.append(sentence) if evidences[base].antecedent else symptoms.append(sentence)
            denied.append(base)
    rng.shuffle(symptoms)
    rng.shuffle(history)
    opening = _opening(patient, rng)
    text = " ".join([opening, *symptoms, *history])
    return Retelling(text, tuple(c for c in codes if c in told), tuple(denied))


def _opening(patient: Patient, rng: Sayings) -> str:
    """Age and sex, or age alone: each half draws from one of each ("fit": 0 and 2, "report": 1 and 3)."""
    who = "woman" if patient.sex == "F" else "man"
    sex = "female" if patient.sex == "F" else "male"
    return rng.choice(
        (
            f"I'm a {patient.age}-year-old {who}.",
            f"{patient.age}-year-old {who} here.",
            f"I am {patient.age} years old.",
            f"{patient.age} years old, {sex}.",
        )
    )


def _saying(evidence, values: list[str], dictionary: Dictionary, rng: random.Random) -> str:
    listed = SAYINGS.get(evidence.code)
    if evidence.code == "E_204":
        value = evidence.value(values[0]) if values and values[0] else None
        if value is None or value.name == "N":
            return rng.choice(("I haven't been abroad lately.", "No recent trips outside the country."))
        return f"I just got back from a trip to {value.name}."
    if evidence.code == "E_152":
        places = [_place(evidence, v, rng) for v in values if v]
        places = [p for p in places if p]
        return f"The swelling is in {_join(places)}." if places else ""
    if listed:
        return rng.choice(listed)
    if listed == ():
        return ""
    return _first_person(evidence.question)


def _pain_story(by_base, dictionary, rng, told) -> str:
    evidences = dictionary.evidences
    if "E_53" not in by_base and "E_55" not in by_base:
        return ""
    parts = []
    where = [_place(evidences["E_55"], v, rng) for v in by_base.get("E_55", []) if v]
    where = [w for w in where if w]
    if where:
        parts.append(rng.choice(("It hurts in {}.", "I have pain in {}.", "The pain is in {}.")).format(_join(where)))
        told.extend(join_code("E_55", v) for v in by_base["E_55"])
    told.append("E_53")
    kinds = [rng.choice(CHARACTER_WORDS.get(evidences["E_54"].value(v).name, ("",))) for v in by_base.get("E_54", [])]
    kinds = [k for k in kinds if k]
    if kinds and rng.random() > 0.1:
        parts.append(rng.choice(("It feels {}.", "The pain is {}.", "I'd describe it as {}.")).format(_join(kinds)))
        told.extend(join_code("E_54", v) for v in by_base["E_54"] if evidences["E_54"].value(v).name != "NA")
    for base, frames in (
        ("E_56", ("On a scale of ten it's a {n}.", "I'd rate the pain {n} out of 10.", "Intensity about {n}/10.")),
        ("E_58", ("I can pinpoint where it is, {n} out of 10.", "How well can I locate it? {n} on 10.")),
        ("E_59", ("It came on at a speed of {n} out of 10.", "How fast it started: {n}/10.")),
    ):
        for value in by_base.get(base, []):
            number = int(value)
            if base == "E_59" and rng.random() < 0.5 and (number <= 2 or number >= 8):
                parts.append("It came on gradually." if number <= 2 else "It came on suddenly.")
                told.append(join_code(base, value))  # told in words: the base, maybe not the number
            elif rng.random() > 0.1:
                parts.append(rng.choice(frames).format(n=number))
                told.append(join_code(base, value))
    spread = [v for v in by_base.get("E_57", []) if v]
    if spread:
        names = [_place(evidences["E_57"], v, rng) for v in spread]
        if evidences["E_57"].value(spread[0]).name == NOWHERE:
            parts.append(rng.choice(("It doesn't spread anywhere.", "The pain doesn't radiate.")))
        elif any(names):
            parts.append(
                rng.choice(("It spreads to {}.", "It radiates to {}.", "It shoots into {}.")).format(
                    _join([n for n in names if n])
                )
            )
        told.extend(join_code("E_57", v) for v in spread)
    return " ".join(parts)


def _skin_story(by_base, dictionary, rng, told) -> str:
    evidences = dictionary.evidences
    if "E_133" not in by_base and "E_129" not in by_base:
        return ""
    parts = [rng.choice(("I have a rash.", "There's a rash on my skin.", "I've got some spots on my skin."))]
    if "E_129" in by_base:
        told.append("E_129")
    where = [_place(evidences["E_133"], v, rng) for v in by_base.get("E_133", []) if v]
    if where and all(where):
        parts.append(f"It's on {_join(where)}.")
        told.extend(join_code("E_133", v) for v in by_base["E_133"])
    for value in by_base.get("E_130", []):
        name = evidences["E_130"].value(value).name
        if name != "NA":
            parts.append(f"It's {name}.")
            told.append(join_code("E_130", value))
    for base, frame in (
        ("E_134", "The rash hurts about {n} out of 10."),
        ("E_136", "The itch is {n}/10."),
        ("E_132", "The swelling of the rash is {n} out of 10."),
    ):
        for value in by_base.get(base, []):
            if value == "0" and base == "E_136":
                parts.append("It doesn't itch.")
            else:
                parts.append(frame.format(n=value))
            told.append(join_code(base, value))
    for base, yes, no in (
        ("E_131", "The spots peel.", "They don't peel off."),
        ("E_135", "They're bigger than a centimetre.", "They're smaller than 1 cm."),
    ):
        for value in by_base.get(base, []):
            parts.append(yes if evidences[base].value(value).name == "Y" else no)
            told.append(join_code(base, value))
    return " ".join(parts)


def _place(evidence, value_code: str, rng: random.Random) -> str:
    value = evidence.value(value_code)
    if value is None or value.name == NOWHERE:
        return ""
    match = _SIDE.search(value.name)
    base = _SIDE.sub("", value.name).strip()
    side = SIDE_WORDS[match.group(1)] if match else ""
    if base in PLACE_WORDS:
        return rng.choice(PLACE_WORDS[base]).format(side=side).replace("  ", " ")
    return f"my {side} {base}".replace("  ", " ") if side else f"my {base}"


def _join(items: list[str]) -> str:
    items = list(dict.fromkeys(items))
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _first_person(question: str) -> str:
    text = re.sub(r"\s*\([^)]*\)", "", question).rstrip("?: ")
    for pattern, replacement in (
        (r"^(?:Do|Did) you (?:currently |regularly )?", "I "),
        (r"^Have you (?:ever |recently )?", "I have "),
        (r"^Are you ", "I am "),
        (r"^Is your ", "My "),
    ):
        text = re.sub(pattern, replacement, text)
    text = re.sub(r"\byour\b", "my", text)
    text = re.sub(r"\byou\b", "I", text)
    return text[0].upper() + text[1:] + "."
