"""What a run is, before it runs: the lanes it compares, the loads and what one arrival sends, the
settings, the profiles and the plan's seconds. Standard library only (`--help` and `--plan` read it)."""
