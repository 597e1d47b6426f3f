"""What ``amg bench`` uses: dataset readers, metrics, the closed-book / CoT / RAG baselines."""

METHODS = ("closed-book", "cot", "rag", "kg")  # how `amg bench` answers: a baseline (baselines.py) or the QA graph
