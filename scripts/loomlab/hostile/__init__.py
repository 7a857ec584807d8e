"""Hostile clients from outside: input built to be expensive or to mean two things, sent to a running
service, each answer checked against its contract with what it cost the service (CPU, heap, the
records it wrote), and liveness probed while endpoints are flooded. `python -m loomlab.hostile`."""
