"""The labelled items a calibration reads, named on the command line: ``memerag:PATH`` or ``labels:PATH``.

Example:
    >>> load_items("my.jsonl", "faithfulness")
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: --data 'my.jsonl': expected memerag:PATH (MEMERAG's <lang>.jsonl files) or labels:PATH (a .jsonl or .csv of lang, question, context, answer or sentence, label[, annotator])
"""

from __future__ import annotations

from ..errors import ConfigError
from .items import ItemSet
from .tasks import JudgeTask, get_task

__all__ = ["load_items"]


def load_items(
    spec: str | ItemSet, task: str | JudgeTask, *, variant: str | None = None
) -> ItemSet:
    """The labelled items ``spec`` names: ``memerag:PATH`` (``variant``: memerag, majority, ext) or ``labels:PATH``.

    Raises:
        ConfigError: a spec without its ``memerag:`` / ``labels:`` prefix, or MEMERAG for a task
            whose labels are not faithfulness labels.
        DataError: the data is malformed (file, line and field named).
    """
    t = get_task(task)
    if isinstance(spec, ItemSet):
        return spec
    kind, sep, path = spec.partition(":")
    if not sep or kind not in ("memerag", "labels") or not path:
        raise ConfigError(
            f"--data {spec!r}: expected memerag:PATH (MEMERAG's <lang>.jsonl files) or labels:PATH "
            "(a .jsonl or .csv of lang, question, context, answer or sentence, label[, annotator])"
        )
    if kind == "memerag":
        from .memerag import LABELS, load_memerag

        if set(t.labels) - set(LABELS):
            raise ConfigError(
                f"MEMERAG's labels are faithfulness labels ({', '.join(LABELS)}); the {t.name} "
                f"judge's are {', '.join(t.labels)}: give labels:FILE with {t.name} labels"
            )
        return load_memerag(path, variant=variant)
    if variant is not None:
        raise ConfigError("--variant is MEMERAG's (memerag, majority, ext); labels:FILE has none")
    from .labelfile import load_label_file

    return load_label_file(
        path, labels=(*t.labels, *t.abstain), needs=t.needs, aliases=dict(t.aliases)
    )
