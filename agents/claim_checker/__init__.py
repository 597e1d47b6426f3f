"""Agent 8, claim checker: the papers that bear on a claim, each one's stance with the sentences that settle it,
a verdict across them, and each paper's findings learned with those sentences (graphs/claim_path.py)."""
