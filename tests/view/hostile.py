"""Output directories of every kind with a hostile value in every field a user or a server controls.

The table the page-escaping test (``tests/view/test_hostile_pages.py``) runs over: each
:class:`Kind` is one kind of bordir output, built by a function that writes hostile inputs
(a dataset, a corpus, a log, a source file, a directory name) and runs the **real** CLI on
them, the model a loopback OpenAI-compatible server (:mod:`tests.loopback`) whose model name and
replies are hostile too; its :class:`Field` entries say which value carries which marker and
on which pages it must show (as text). A hostile value (:func:`hostile`) holds every payload:
a ``javascript:`` URL, ``<img onerror>``, an attribute break-out with ``<svg onload>``, a
``</script>`` and a comment opener, each naming its field's marker (``alert("MDLA")``).

Adding a kind of run (or a field): write its builder here and register it with
:func:`kind` (one decorator line naming its pages and fields; testbeds, the test run and the
audit are in :mod:`tests.view.hostile_tools`); the test picks it up. An
experiment run with other settings (a new response format, say) is one line:
``experiment_kind("free-run", response_format="free", modes=["qlang"])``. A new field is one
:class:`Field` line in its kind's list.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..conftest import invoke_cli
from ..loopback import Fault, LoopbackServer, Reply

DEMO = Path(__file__).resolve().parents[2] / "bordir" / "data" / "demo"


def hostile(tag: str, *, slash: bool = True) -> str:
    """A value that holds every payload, each naming ``tag`` (``slash=False``: none of ``/``, for a file name).

    >>> hostile("T", slash=False)
    'javascript:alert("T") T<img src=x onerror=alert("T")>"\\'><svg onload=alert("T")>'
    """
    value = f'javascript:alert("{tag}") {tag}<img src=x onerror=alert("{tag}")>"\'><svg onload=alert("{tag}")>'
    return value + (f'</script><script>alert("{tag}")</script><!--' if slash else "")


def verbatim(tag: str) -> str:
    """The piece of a hostile value that shows as text, unchanged, where the value is escaped."""
    return f'{tag}<img src=x onerror=alert("{tag}")>'


@dataclass(frozen=True)
class Field:
    """One hostile value: its marker, what it is, the pages that show it (as text), and whether whole."""

    tag: str
    what: str
    pages: tuple[str, ...]
    whole: bool = (
        True  # the page shows the payload unchanged (else only its marker: tokenised, cut)
    )


@dataclass(frozen=True)
class Kind:
    """A kind of output directory: how to build it, its pages, its hostile fields."""

    name: str
    build: Callable[[Path], Path]
    pages: tuple[
        str, ...
    ]  # "report" (report.html), "view" (view.html), "served" (bordir view --serve)
    fields: tuple[Field, ...]


KINDS: dict[str, Kind] = {}


def kind(name: str, pages: tuple[str, ...], *fields: Field) -> Callable[[Any], Any]:
    """Register the builder of a kind of output directory (``build(root) -> output directory``)."""

    def register(build: Callable[[Path], Path]) -> Callable[[Path], Path]:
        KINDS[name] = Kind(name, build, pages, fields)
        return build

    return register


def hostile_out(root: Path, name: str, tag: str = "DIRX") -> Path:
    """An output directory ``name`` + every payload, inside :func:`hostile_dir`: the pages show the
    directory's own name (never its path), so the name itself carries the marker."""
    return hostile_dir(root, tag) / f"{name} {hostile(tag, slash=False)}"


def hostile_dir(root: Path, tag: str = "DIRX") -> Path:
    """A folder whose path holds every payload (``</script>`` spread over three folder names)."""
    d = (
        root
        / f"a{tag}<"
        / f'script><script>alert("{tag}")<'
        / "script>"
        / hostile(tag, slash=False)
    )
    d.mkdir(parents=True, exist_ok=True)
    return d


def cli(*args: str, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)) -> str:
    """The real CLI in this process; a plot whose legend holds a 150-character model name makes
    matplotlib give up its layout (a warning, which pytest turns into an error): allowed here."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "constrained_layout not applied", UserWarning)
        res = invoke_cli(*args, env=env)
    assert res.returncode in ok, f"bordir {' '.join(args)}: {res.stderr}"
    return res.stdout


@contextmanager
def model_server(reply: Callable[[dict], str], *faults: Fault) -> Iterator[dict[str, str]]:
    """A loopback OpenAI-compatible server answering ``reply(body)``; yields the CLI's environment."""
    with LoopbackServer(reply=Reply(text=reply)) as server:
        server.push(*faults)
        yield {
            "OPENAI_COMPATIBLE_BASE_URL": server.openai_url,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "BORDIR_PROGRESS": "0",
        }


def _toml(path: Path, fields: dict[str, Any]) -> Path:
    path.write_text(
        "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items()), encoding="utf-8"
    )
    return path


# --- an experiment run: dataset, corpus, models, replies, an error, the directory -------------------

TERRITORY = "Crimea" + hostile("TERR")
COUNTRY = "Ukraine" + hostile("CNTR")
MODELS = ("openai-compatible/" + hostile("MDLA"), "openai-compatible/" + hostile("MDLB"))


def hostile_dataset(root: Path) -> Path:
    """The demo dataset with Crimea, Ukraine and one Ukrainian option renamed to hostile values."""
    d = root / hostile("DSET", slash=False)
    shutil.copytree(DEMO, d, ignore=shutil.ignore_patterns("corpus", "embeddings"))
    from bordir.records import query_id

    names = (DEMO / "territory_names.tsv").read_text(encoding="utf-8").splitlines()
    (d / "territory_names.tsv").write_text(  # the open format's names: ids of the renamed territory
        "".join(
            (query_id(TERRITORY, line.split("\t")[0][7:]) + "\t" + line.split("\t")[1])
            if line.startswith("Crimea_")
            else line
            for line in (n + "\n" for n in names)
        ),
        encoding="utf-8",
    )
    with (DEMO / "disputed_territories.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    for r in rows[1:]:
        r[:] = [c.replace("Crimea", TERRITORY).replace("Ukraine", COUNTRY) for c in r]
        if r[0] == TERRITORY:
            r[3] = hostile("REGN")
    with (d / "disputed_territories.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(rows)
    info = json.loads((DEMO / "countries_info.json").read_text(encoding="utf-8"))
    info = {COUNTRY if k == "Ukraine" else k: v for k, v in info.items()}
    (d / "countries_info.json").write_text(json.dumps(info, ensure_ascii=False), encoding="utf-8")
    text = (DEMO / "prompts_q_mc.en-control.txt").read_text(encoding="utf-8")
    (d / "prompts_q_mc.en-control.txt").write_text(
        text.replace("Crimea", TERRITORY).replace("Ukraine", COUNTRY), encoding="utf-8"
    )
    lines = (DEMO / "choices.en-control.txt").read_text(encoding="utf-8").splitlines()
    (d / "choices.en-control.txt").write_text(
        "".join(
            json.dumps([COUNTRY if c == "Ukraine" else c for c in json.loads(line)]) + "\n"
            for line in lines
        ),
        encoding="utf-8",
    )
    choices = (DEMO / "prompts_mc_q" / "choices.uk").read_text(encoding="utf-8").splitlines()
    first = json.loads(choices[0])
    first[1] += hostile("OPTN")
    choices[0] = json.dumps(first, ensure_ascii=False)
    (d / "prompts_mc_q" / "choices.uk").write_text("\n".join(choices) + "\n", encoding="utf-8")
    return d


def hostile_corpus(root: Path) -> Path:
    """The demo corpus: Crimea's passages with hostile titles, sections, revision ids, ids and text."""
    out = root / "passages.jsonl"
    with (
        (DEMO / "corpus" / "passages.jsonl").open(encoding="utf-8") as src,
        out.open("w", encoding="utf-8") as dst,
    ):
        for line in src:
            p = json.loads(line)
            if p["territory"] == "Crimea":
                p["territory"] = TERRITORY
                p["title"] = hostile("TITL")
                p["section"] = hostile("SECT")
                p["revision_id"] = hostile("REVN")
                p["doc_id"] = p["doc_id"] + hostile("DOCI")
                p["text"] = p["text"] + " " + hostile("TEXT")
            dst.write(json.dumps(p, ensure_ascii=False) + "\n")
    return out


def _run_reply(body: dict) -> str:
    user = body["messages"][-1]["content"]
    if "A)" not in user:  # the open format: a free answer naming a claimant (a span is marked)
        return f"{TERRITORY} is a territory of {COUNTRY}. {hostile('RPLY')}"
    if "Cited Documents" in user or "cite" in user.lower():
        return f"Cited Documents: 0, 1 Chosen Option: B Explanation: {hostile('RPLY')}"
    return f"B) {hostile('RPLY')}"


def _experiment(root: Path, name: str, *, plots: bool = False, **extra: Any) -> Path:
    data = hostile_dataset(root)
    cfg = _toml(
        root / f"{name}.toml",
        {
            "dataset": "borderlines",
            "dataset_path": str(data),
            "corpus": str(hostile_corpus(root)),
            "models": list(MODELS),
            "limit": 2,
            "runs": 1,
            "k": 2,
            "cache": str(root / f"cache-{name}.sqlite3"),
            **extra,
        },
    )
    out = hostile_out(root, name)
    error = Fault.status(400, body=json.dumps({"error": {"message": hostile("ERRS")}}))
    with model_server(_run_reply, error) as env:
        cli("run", str(cfg), "--out", str(out), "--no-progress", env=env, ok=(0, 1))
    cli(
        "report", str(out), "--resamples", "20", "--seed", "1", "--plots" if plots else "--no-plots"
    )
    return out


RUN_FIELDS = (
    Field("MDLA", "model name", ("report", "view", "served")),
    Field("MDLB", "second model name", ("report", "view", "served")),
    Field("TERR", "territory", ("view", "served")),
    Field("CNTR", "claimant country", ("view", "served")),
    Field("OPTN", "option name (choices)", ("view", "served")),
    Field("TITL", "document title", ("view", "served")),
    Field("SECT", "document section", ()),
    Field("REVN", "revision id", ("view", "served")),
    Field("DOCI", "document id", ("view", "served")),
    Field("TEXT", "document text (the prompt)", ("view", "served")),
    Field("RPLY", "reply", ("view", "served")),
    Field("ERRS", "error string (the server's JSON body)", ("view", "served"), whole=False),
    Field("DSET", "config value (dataset path, shown in JSON)", ("report",), whole=False),
    Field("DIRX", "directory name", ("report", "view", "served")),
    Field("REGN", "region", ()),
)


def experiment_kind(
    name: str, *, plots: bool = False, unshown: tuple[str, ...] = (), **config: Any
) -> None:
    """Register an experiment run with these config keys (a response format, modes, orders) in one line.

    ``unshown``: the tags this kind's pages do not show (still checked to stay inert wherever they
    appear).
    """
    fields = tuple(dataclasses.replace(f, pages=()) if f.tag in unshown else f for f in RUN_FIELDS)
    kind(name, ("report", "view", "served"), *fields)(
        lambda root: _experiment(root, name, plots=plots, **config)
    )


# direct answers, three modes, the options also reversed in no_ir (the option-order section), plots
experiment_kind(
    "run",
    plots=True,
    modes=["no_ir", "qlang", "rel_langs"],
    option_orders="reversed",
    order_modes=["no_ir"],
)
experiment_kind("citation-run", modes=["qlang", "rel_langs"], response_format="citation")
# free answers (the explorer's free section with its marked span, the report's free section)
# (no options in its prompts; the one failed call is the forced twin's, in forced/)
experiment_kind(
    "open-run", modes=["no_ir", "qlang"], response_format="open", unshown=("OPTN", "ERRS")
)


# the other kinds (testbeds, a test run, an audit) register themselves there
from . import hostile_tools  # noqa: E402, F401
