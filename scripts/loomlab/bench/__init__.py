"""`./lab bench` (python3 -m bench, with scripts/ on the path): the comparison of the modes.

- loads: what runs (workloads, closed and open load shapes, bounds, the seeds' figures, profiles)
- runner: how it runs (the service under test, k6 with /q/metrics sampled, warm-up, repeats)
- report: what it says (tables, verdicts, report.md/html, results.json, --strict, --compare)
- __main__: the command line
"""
