"""Speed and accuracy measurements; each module runs with `python -m benchmarks.NAME`."""
