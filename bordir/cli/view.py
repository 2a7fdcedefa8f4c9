"""``bordir view``: the per-sample explorer of a run, testbed, test-run or audit directory."""

from __future__ import annotations

import click

from . import _decorators as opt
from ._output import echo_json

DEFAULT_PORT = 8765


@click.command("view")
@click.argument("path", type=click.Path(path_type=str))
@opt.flag("--serve", "Serve the explorer from 127.0.0.1 instead of writing view.html.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port to serve on (0: a free one).",
)
@click.option(
    "--out",
    type=click.Path(path_type=str),
    help="Where to write the page (default: PATH/view.html).",
)
@click.option(
    "--max-rows",
    type=click.IntRange(min=1),
    default=None,
    help="The most rows a static view.html embeds (default 200,000); a larger run is served.",
)
@opt.json("Print what was written as JSON.")
def view_cmd(
    path: str, serve: bool, port: int, out: str | None, max_rows: int | None, as_json: bool
) -> None:
    """Write PATH/view.html, a self-contained explorer of every sample (or serve it with --serve).

    PATH is a directory written by `bordir run`, `bordir testbed`, `bordir testrun` (and `bordir
    judge`) or `bordir audit`.
    """
    from ..view import STATIC_MAX_ROWS, view_rows, write_view
    from ..view.write import check_out

    if out is not None and not serve:
        check_out(out, label="--out")  # before reading the run
    limit = STATIC_MAX_ROWS if max_rows is None else max_rows
    if not serve:
        n = view_rows(path)
        if n > limit:
            click.echo(
                f"{path}: {n:,} response rows, more than the {limit:,} a static view.html embeds "
                "(--max-rows); serving it instead (--serve)",
                err=True,
            )
            serve = True
    if serve:
        from ..view.server import ViewServer

        srv = ViewServer(path, port=port)
        click.echo(f"serving {path} at {srv.url} (Ctrl-C stops)", err=as_json)
        if as_json:
            echo_json({"serving": srv.url, "path": path})
        try:
            srv.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            srv.httpd.server_close()
        return
    page = write_view(path, out=out, max_rows=limit)
    size = page.stat().st_size
    if as_json:
        echo_json({"view": str(page), "bytes": size})
    else:
        click.echo(f"view: {page} ({size / 1e6:.1f} MB; opens from file://, offline)")
