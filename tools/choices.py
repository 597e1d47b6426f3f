"""Allowed values of tool settings that ``graphs.context`` validates, apart from the tools' heavy imports."""

PUBMED = ("auto", "remote", "local", "both")  # AMG_PUBMED: which PubMed tools/evidence/pubmed_sources.py reads
PATH_RANKINGS = ("mmr", "similarity", "confidence")  # AMG_PATH_RANKING: tools/kg/traversal/ranking.py
