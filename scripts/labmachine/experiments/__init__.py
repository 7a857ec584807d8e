"""The in-cluster experiments that act on the lab's own node, as ./lab runs them: each the
harness's experiment (loomlab.incluster.experiments) given this machine's node, which it uses
where the lab's cluster is its target (`python -m labmachine.experiments NAME ARGS`)."""
