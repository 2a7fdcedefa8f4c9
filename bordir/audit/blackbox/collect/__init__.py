"""``bordir audit collect``: ask search-enabled assistants a question set and write the black-box log.

* :mod:`.questions` — question sets: BorderLines territories in their claimants' languages and
  English, or a user file of questions with their translations;
* :mod:`.apis` — the four search APIs as backends (one HTTP attempt each; the executor retries);
* :mod:`.run` — :func:`~.run.collect`: through bordir's executor (response cache, rate limits,
  retries), a cost cap, the dry run, the log with each raw response beside its parsed record.
"""
