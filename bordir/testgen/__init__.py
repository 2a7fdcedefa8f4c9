"""Automated RAG testing in the style of RAG-Tester, multilingual: generated suites, an LLM-judge oracle, its precision.

The four stages and where they live (``docs/testgen.md`` maps each to RAG-Tester):

1. **Documents** — :mod:`~bordir.testgen.sources` (bordir corpora; PDF, HTML,
   Markdown and text files), :mod:`~bordir.testgen.writer` (LLM-written
   documents), cut into :mod:`~bordir.testgen.chunks` with provenance.
2. **Tests** — :mod:`~bordir.testgen.suite` (strategies complex, negative,
   coverage; the baseline), :mod:`~bordir.testgen.generators` (template and
   LLM generators), :mod:`~bordir.testgen.readability`, :mod:`~bordir.testgen.keywords`,
   :mod:`~bordir.testgen.phrases`; stored by :mod:`~bordir.testgen.testcase`.
3. **Execution** — :mod:`~bordir.testgen.execute` (retriever × backend × mode,
   through the response cache and executor).
4. **Oracle** — :mod:`~bordir.testgen.oracle` (the five criteria and the fail
   rule), :mod:`~bordir.testgen.judge` (prompts per language), :mod:`~bordir.testgen.reliability`
   (repeats, majority, invariance), :mod:`~bordir.testgen.precision` (Cochran,
   precision, FDR), :mod:`~bordir.testgen.compare` (rates, paired tests,
   categories), :mod:`~bordir.testgen.pipeline` (a run directory end to end).

Examples:
    >>> from bordir.testgen import load_chunks, generate_suite
    >>> suite = generate_suite(load_chunks(["demo"]), strategies="complex,negative,coverage", n=6, seed=1)
    >>> [t.strategy for t in suite.tests]
    ['complex', 'complex', 'negative', 'negative', 'coverage', 'coverage']
"""

from __future__ import annotations

from .answers import read_answers
from .chunks import Chunk, make_chunks, read_chunks, split_text, write_chunks
from .execute import RunConfig, parse_config, run_suite
from .generators import LLMGenerator, TemplateGenerator
from .oracle import CRITERIA, Judgment, parse_judgment, verdict
from .sources import chunks_from_corpus, chunks_from_file, load_chunks
from .suite import generate_suite, parse_strategies
from .testcase import TestCase, TestSuite, read_suite, read_tests, write_suite

__all__ = [
    "Chunk",
    "make_chunks",
    "split_text",
    "read_chunks",
    "write_chunks",
    "chunks_from_corpus",
    "chunks_from_file",
    "load_chunks",
    "TestCase",
    "TestSuite",
    "read_suite",
    "read_tests",
    "write_suite",
    "TemplateGenerator",
    "LLMGenerator",
    "generate_suite",
    "parse_strategies",
    "RunConfig",
    "parse_config",
    "run_suite",
    "read_answers",
    "CRITERIA",
    "Judgment",
    "parse_judgment",
    "verdict",
]
