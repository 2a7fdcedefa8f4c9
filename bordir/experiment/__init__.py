"""Experiments: configs (results vs operational settings), the runner, the in-memory Run, and the run directory."""
