"""bordir's private file helpers: atomic writes, strict JSON out, the one JSON / JSON-lines reader, TOML, Markdown made inert, required columns, terminal text tables, percentages as text, the shipped data folders.

Nothing is imported here: each module is imported by name (``from bordir._io.atomic import atomic_write``).
"""
