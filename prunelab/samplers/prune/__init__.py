"""Prune sampling, the paper's algorithm: its one wing (placeholder, the map is written below)."""
