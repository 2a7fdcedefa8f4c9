"""The subcommands of ``bordir`` defined in their own modules: where each is, and its one-line help.

:mod:`bordir.cli.main` hands them to its :class:`~bordir.cli._lazy.LazyGroup`: a module is
imported when its command runs, and ``bordir -h`` lists every command with the help given here
(each command's docstring's first line; tests/cli/test_cli_lazy.py holds them equal, and every
command module of :mod:`bordir.cli` in the table). A new command gets its line here.
"""

from __future__ import annotations

from ._lazy import LazyCommand

__all__ = ["COMMANDS"]

COMMANDS: tuple[LazyCommand, ...] = (
    LazyCommand(
        "agreement",
        "bordir.cli.annotate",
        "agreement_cmd",
        "Agreement between label FILES: per dimension and language, with bootstrap CIs.",
    ),
    LazyCommand(
        "annotate",
        "bordir.cli.annotate",
        "annotate_cmd",
        "Label the top-K (query, document) pairs of HITS for relevance and viewpoint with an LLM.",
    ),
    LazyCommand(
        "audit",
        "bordir.cli.audit",
        "audit_cmd",
        "Audit the citations of a deployed assistant's logs (white-box: prompt documents; black-box: "
        "answers and cited URLs); collect a black-box log from search APIs.",
    ),
    LazyCommand(
        "compare",
        "bordir.cli.compare",
        "compare_cmd",
        "Compare two modes (or two models) of RUN_DIR per query language, with intervals and "
        "Holm-adjusted p.",
    ),
    LazyCommand(
        "corpus",
        "bordir.cli.corpus",
        "corpus_group",
        "Build and inspect retrieval corpora (Wikipedia paragraphs).",
    ),
    LazyCommand(
        "demo",
        "bordir.cli.demo",
        "demo_cmd",
        "Run all six modes on every demo query language with the local model, then write the "
        "report.",
    ),
    LazyCommand(
        "judge",
        "bordir.cli.judge",
        "judge_cmd",
        "Judge the answers of a `bordir testrun` RUN_DIR with an LLM oracle (five criteria, "
        "RAG-Tester's fail rule); calibrate a judge against human labels.",
    ),
    LazyCommand(
        "plan",
        "bordir.cli.plan",
        "plan_cmd",
        "For every query language and metric of CONFIG: the MDE it gives now, and the "
        "territories (or runs) needed.",
    ),
    LazyCommand(
        "report",
        "bordir.cli.report",
        "report_cmd",
        "Write metrics.json, tables/, plots/ and report.html into RUN_DIR (written by `bordir run`).",
    ),
    LazyCommand(
        "retrieve",
        "bordir.cli.retrieve",
        "retrieve_cmd",
        "Retrieve documents for every query under every mode and save the hits table.",
    ),
    LazyCommand(
        "run",
        "bordir.cli.run",
        "run_cmd",
        "Run the experiment CONFIG (TOML) and write hits.parquet, responses.parquet and run.json "
        "to --out.",
    ),
    LazyCommand(
        "runs",
        "bordir.cli.runs",
        "runs_cmd",
        "A leaderboard of the run directories DIRS: one row per (run, model, mode), the headline "
        "metrics ×100 as mean [95% interval over territories] (* fewer than 30 territories).",
    ),
    LazyCommand(
        "score",
        "bordir.cli.score",
        "score_group",
        "Score responses (BorderLines / BordIRLines concurrence scores).",
    ),
    LazyCommand(
        "testbed",
        "bordir.cli.testbed",
        "testbed_group",
        "RGB's noise robustness, negative rejection, information integration and counterfactual "
        "robustness; NoMIRACL.",
    ),
    LazyCommand(
        "testgen",
        "bordir.cli.testgen",
        "testgen_cmd",
        "Generate a test suite from SOURCES (demo, corpus paths, PDF/HTML/Markdown/text files or "
        "folders) and/or documents an LLM writes (--write TOPIC --writer MODEL).",
    ),
    LazyCommand(
        "testrun",
        "bordir.cli.testrun",
        "testrun_cmd",
        "Answer every test of TESTS with every --config; resumable, nothing is billed twice.",
    ),
    LazyCommand(
        "view",
        "bordir.cli.view",
        "view_cmd",
        "Write PATH/view.html, a self-contained explorer of every sample (or serve it with --serve).",
    ),
)
"""The subcommands defined in their own modules, imported when they run (``bordir -h`` lists
them with ``help``: each command's docstring's first line, held equal by tests/cli)."""
