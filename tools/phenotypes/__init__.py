"""Phenotypes in free text: HPO concept recognition (lexicon.py, recognizer.py) and negation (negation.py)."""
