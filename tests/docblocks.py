"""The fenced code blocks of README.md and docs/: extracted, and run as a reader would run them.

Used by ``tests/test_docs_blocks.py`` (issue 25.2): every block of every page runs, in order,
in one temporary directory per page (the page's blocks share its files and, for Python, one
namespace, as a notebook would):

* ``python`` — executed; ``pycon`` — run as a doctest (``...`` matches anything);
* ``toml`` — parsed; a block whose first line is ``# NAME.toml`` is written to ``NAME.toml``
  (later blocks use it), and an experiment config is checked as ``bordir run`` checks it;
* ``bash`` / ``sh`` — ``bash -n``; then every line that starts with ``bordir`` runs (in this
  process, through the CLI's entry point) and must exit 0;
* ``console`` — every ``$ bordir …`` line runs; the lines under it are the expected output
  (compared line by line after trailing spaces, blank lines at either end ignored; ``...`` as a
  line matches any lines, ``…`` inside a line any text), unless the block is marked
  ``<!-- output: not compared -->`` (``<!-- output: numbers within 10 -->``: each number may
  differ by up to 10 from the page's, the text around it not). The expected lines are what the command prints on stdout
  and stderr; a command that exits 0 may also match on stdout alone (its stderr then holds only
  diagnostics: a library's log lines, progress).

A block that cannot run offline is marked in the Markdown, on the line before its fence::

    <!-- requires: OPENAI_API_KEY -->
    <!-- requires: network, a Ray cluster -->

and is then checked for syntax only. ``borderlines-data`` is the one requirement the tests can
meet: ``data/borderlines`` is linked to ``../shared/data/borderlines`` when that folder exists
(the block is checked for syntax otherwise).

A block that runs for minutes (``bordir demo``: the local model) is marked::

    <!-- slow: the local model, about two minutes -->

The page's own run checks it for syntax only; ``python tests/docblocks.py PAGE DIR --slow``
runs the page's slow blocks alone, each in a directory of its own (``tests/test_docs_blocks.py``
has a test for them), so a slow block must not use what the blocks before it wrote.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_BORDERLINES = REPO.parent / "shared" / "data" / "borderlines"
LANGS = ("python", "pycon", "toml", "bash", "sh", "console")
SATISFIABLE = {"borderlines-data"}

_FENCE = re.compile(
    r"^(?P<indent>[ ]*)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ ]*$", re.M | re.S
)
_COMMENT = re.compile(r"<!--\s*(requires|output|slow)\s*:\s*(.*?)\s*-->")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    body: str
    requires: frozenset[str] = frozenset()
    options: frozenset[str] = field(default_factory=frozenset)
    slow: str = ""
    """Why the block is slow (``<!-- slow: … -->``); empty for a block the page's run runs."""

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    def runnable(self, have: set[str]) -> bool:
        return self.requires <= have


def pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path`` in a language of :data:`LANGS`, with its markers."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in _FENCE.finditer(text):
        lang = m.group("lang")
        if lang not in LANGS:
            continue
        before = text[: m.start()].rstrip("\n").splitlines()
        requires: set[str] = set()
        options: set[str] = set()
        slow = ""
        for prev in reversed(before):
            found = _COMMENT.findall(prev)
            if not found:
                break
            for kind, value in found:
                if kind == "slow":
                    slow = value.strip() or "slow"
                    continue
                items = {v.strip() for v in value.split(",") if v.strip()}
                (requires if kind == "requires" else options).update(items)
        body = m.group("body")
        indent = m.group("indent")
        if indent:
            body = (
                "\n".join(
                    l[len(indent) :] if l.startswith(indent) else l for l in body.splitlines()
                )
                + "\n"
            )
        out.append(
            Block(
                page=str(path.relative_to(REPO)),
                line=text.count("\n", 0, m.start()) + 1,
                lang=lang,
                body=body,
                requires=frozenset(requires),
                options=frozenset(options),
                slow=slow,
            )
        )
    return out


def shell_lines(body: str) -> list[str]:
    """Logical lines of a shell block (``\\`` continuations joined, comments and blanks dropped)."""
    out, cur = [], ""
    for raw in body.splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        cur += line
        if cur.strip() and not cur.strip().startswith("#"):
            out.append(cur.strip())
        cur = ""
    return out


def command_words(line: str) -> tuple[dict[str, str], list[str]]:
    """``VAR=x bordir a b  # note`` → ``({"VAR": "x"}, ["bordir", "a", "b"])``."""
    words = shlex.split(line, comments=True)
    env = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        k, _, v = words.pop(0).partition("=")
        env[k] = v
    return env, words


def console_commands(body: str) -> list[tuple[str, list[str]]]:
    """``$ command`` lines of a console block, each with the output lines under it."""
    out: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


_NUMBER = r"-?\d+(?:\.\d+)?"


def _numbers_within(tolerance: str) -> float | None:
    """``numbers within 10`` (an ``output:`` option) → 10.0."""
    m = re.fullmatch(r"numbers within (\d+(?:\.\d+)?)", tolerance)
    return float(m.group(1)) if m else None


def output_matches(
    expected: list[str], actual: list[str], *, numbers_within: float | None = None
) -> bool:
    """Line-by-line comparison: ``...`` alone matches any lines, ``…`` in a line any text.

    With ``numbers_within``, a number may differ from the page's by that much (the text around
    it may not): the local model's scores depend on the CPU's llama.cpp kernels, and a near tie
    that flips moves the rates of a small demo by a few points.
    """
    exp = [l.rstrip() for l in expected]
    act = [l.rstrip() for l in actual]
    for lines in (exp, act):
        while lines and not lines[-1]:
            lines.pop()
        while lines and not lines[0]:
            lines.pop(0)

    def line_ok(e: str, a: str) -> bool:
        if numbers_within is not None:
            pieces = re.split(f"({_NUMBER})", e)  # text, number, text, …
            pattern = "".join(
                f"({_NUMBER})" if k % 2 else ".*".join(map(re.escape, piece.split("…")))
                for k, piece in enumerate(pieces)
            )
            m = re.fullmatch(pattern, a)
            return m is not None and all(
                abs(float(x) - float(y)) <= numbers_within for x, y in zip(pieces[1::2], m.groups())
            )
        if "…" not in e:
            return e == a
        parts = [re.escape(p) for p in e.split("…")]
        return re.fullmatch(".*".join(parts), a) is not None

    def match(i: int, j: int) -> bool:
        if i == len(exp):
            return j == len(act)
        if exp[i] == "...":
            return any(match(i + 1, k) for k in range(j, len(act) + 1))
        return j < len(act) and line_ok(exp[i], act[j]) and match(i + 1, j + 1)

    return match(0, 0)


# --- running a page (in a subprocess of its own: tests/test_docs_blocks.py) ------------------------


def _run_cli(words: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    import contextlib
    import io
    import os

    from bordir.cli import main

    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(words[1:])
            except SystemExit as exc:  # pragma: no cover - main returns its status
                code = int(exc.code or 0)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue(), err.getvalue()


def _check_toml(b: Block) -> str | None:
    import tomllib

    try:
        data = tomllib.loads(b.body)
    except tomllib.TOMLDecodeError as exc:
        return f"{b.where}: invalid TOML: {exc}"
    first = b.body.lstrip().splitlines()[0] if b.body.strip() else ""
    m = re.fullmatch(r"#\s*([\w.-]+\.toml)\s*", first)
    if m:
        Path(m.group(1)).write_text(b.body, encoding="utf-8")
    exp = data.get("experiment") if isinstance(data.get("experiment"), dict) else None
    if exp is not None:
        from bordir.experiment.config import ExperimentConfig

        try:
            ExperimentConfig.from_dict(exp, where=b.where)
        except Exception as exc:  # noqa: BLE001 - reported as a failure of the block
            return f"{b.where}: the experiment config is refused: {exc}"
    return None


def run_block(b: Block, ns: dict, have: set[str], *, slow: bool = False) -> str | None:
    """Run one block (or check its syntax when a requirement is missing, or when the block is slow
    and ``slow`` is false); a failure message or None."""
    import doctest
    import subprocess

    runnable = b.runnable(have) and (slow or not b.slow)
    try:
        if b.lang == "python":
            code = compile(b.body, b.where, "exec")
            named = re.match(r'"""([\w.]+\.py)"""', b.body.lstrip())
            if named and runnable:  # a module the page goes on to use (a plugin): written, not run
                Path(named.group(1)).write_text(b.body, encoding="utf-8")
            elif runnable:
                exec(code, ns)  # noqa: S102 - the docs' own example
        elif b.lang == "pycon":
            test = doctest.DocTestParser().get_doctest(b.body, ns, b.where, b.page, b.line)
            if not runnable:
                for ex in test.examples:
                    compile(ex.source, b.where, "single")
                return None
            runner = doctest.DocTestRunner(
                optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
            )
            report: list[str] = []
            runner.run(test, out=report.append, clear_globs=False)
            ns.update(test.globs)
            if runner.failures:
                return f"{b.where}: doctest failed:\n" + "".join(report)[-3000:]
        elif b.lang == "toml":
            return _check_toml(b)
        elif b.lang in ("bash", "sh"):
            r = subprocess.run(["bash", "-n"], input=b.body, capture_output=True, text=True)
            if r.returncode:
                return f"{b.where}: bash syntax: {r.stderr.strip()}"
            if not runnable:
                return None
            for line in shell_lines(b.body):
                env, words = command_words(line)
                if words[:1] != ["bordir"]:
                    continue
                code, out, err = _run_cli(words, env)
                if code != 0:
                    return f"{b.where}: `{line}` exited {code}: {(err or out).strip()[-800:]}"
        elif b.lang == "console":
            for cmd, expected in console_commands(b.body):
                env, words = command_words(cmd)
                if not runnable or words[:1] != ["bordir"]:
                    continue
                code, out, err = _run_cli(words, env)
                actual = (out + err).splitlines()
                if "not compared" in b.options or not any(l.strip() for l in expected):
                    if code != 0 and not any(l.startswith("bordir: error") for l in expected):
                        return f"{b.where}: `{cmd}` exited {code}: {(err or out).strip()[-800:]}"
                    continue
                tol = next(filter(None, map(_numbers_within, b.options)), None)
                if not output_matches(expected, actual, numbers_within=tol) and not (
                    code == 0 and output_matches(expected, out.splitlines(), numbers_within=tol)
                ):
                    return (
                        f"{b.where}: `{cmd}` printed (exit {code}):\n"
                        + "\n".join(actual[:60])
                        + "\n--- the page shows:\n"
                        + "\n".join(expected[:60])
                    )
    except Exception as exc:  # noqa: BLE001 - reported as a failure of the block
        import traceback

        return f"{b.where}: {type(exc).__name__}: {exc}\n{traceback.format_exc()[-2000:]}"
    return None


def run_page(page: Path, workdir: Path, *, slow: bool = False) -> list[str]:
    """Run every block of ``page`` in ``workdir`` (its own cwd), slow blocks checked for syntax
    only; with ``slow``, only the slow blocks, each in a subdirectory of its own. The failures."""
    if slow:
        failures: list[str] = []
        for i, b in enumerate(x for x in blocks(page) if x.slow):
            failures += _run_blocks([b], workdir / f"slow-{i}", slow=True)
        return failures
    return _run_blocks(blocks(page), workdir)


def _run_blocks(todo: list[Block], workdir: Path, *, slow: bool = False) -> list[str]:
    import os

    workdir.mkdir(parents=True, exist_ok=True)
    os.chdir(workdir)
    for name in ("annotations", "benchmarks"):  # the pages run from a checkout of the repository
        if not (workdir / name).exists():
            (workdir / name).symlink_to(REPO / name)
    os.environ["BORDIR_CACHE"] = str(workdir / ".cache")
    os.environ["BORDIR_PROGRESS"] = "0"
    os.environ.pop("BORDIR_SEED", None)
    have: set[str] = set()
    if SHARED_BORDERLINES.is_dir():
        (workdir / "data").mkdir(exist_ok=True)
        link = workdir / "data" / "borderlines"
        if not link.exists():
            link.symlink_to(SHARED_BORDERLINES)
        have.add("borderlines-data")
    import sys

    sys.path.insert(0, str(workdir))  # a module the page writes (a plugin) is importable
    ns: dict = {"__name__": "__docs__"}
    failures = []
    for b in todo:
        msg = run_block(b, ns, have, slow=slow)
        if msg:
            failures.append(msg)
    return failures


if __name__ == "__main__":
    import json
    import sys

    sys.path.insert(0, str(REPO))
    result = run_page(REPO / sys.argv[1], Path(sys.argv[2]), slow="--slow" in sys.argv[3:])
    print(json.dumps(result))
