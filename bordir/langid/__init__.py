"""Language identification: bordir's one language detector, seeded, with script priors.

Used by the corpus fetch (each Wikipedia paragraph checked against its edition,
:mod:`bordir.wiki`), the audit (:mod:`bordir.audit.detect`) and the
answer-language metric (:mod:`bordir.metrics.answer_lang`):

- :mod:`~bordir.langid.check`: :func:`~bordir.langid.check.detect` and
  :func:`~bordir.langid.check.check` (a text's language against the expected one);
- :mod:`~bordir.langid.engine`: the engine underneath (``langdetect-rs`` when
  installed, else ``langdetect``; the same answers bit for bit);
- :mod:`~bordir.langid.short`: texts too short for a detected language to be trusted
  (:func:`~bordir.langid.short.too_short`: the letters each script needs, measured).

The detectors need ``langdetect`` (the ``wiki`` or ``audit`` extra), imported on use.
"""
