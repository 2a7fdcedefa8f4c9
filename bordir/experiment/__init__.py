"""Experiments: configs, the mode-comparison runner, and the demo."""
