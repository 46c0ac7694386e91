"""``synthleak env``: Python environments for generators that cannot share synthleak's.

``synthleak env create NAME [--packages "REQ REQ ..."] [--python PATH] [--replace]`` makes a
virtual environment under the environments folder (``$SYNTHLEAK_ENVS``, else
``~/.cache/synthleak/envs``) and pip-installs the requirements, one after the other. For the
names of the built-in adapters (``dpmm``, ``smartnoise``, ``synthcity``) the requirements
default to the pinned versions the adapters are tested with. ``synthleak env list`` prints the
environments and the folder. A generator then runs there with ``env:NAME:module:Class`` or a
named adapter (``dpmm:mst``).
"""

from __future__ import annotations

import shlex
from typing import Annotated

import typer

from synthleak.cli.app import app

env_app = typer.Typer(
    help="Python environments for generators with conflicting dependencies (env:NAME:...).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.add_typer(env_app, name="env", rich_help_panel="Data, generators and utility")


@env_app.command("create")
def create_cmd(
    name: Annotated[str, typer.Argument(help="Environment name (used as env:NAME:...).")],
    packages: Annotated[
        str | None,
        typer.Option(
            "--packages",
            help="pip requirements separated by spaces, installed in this order, e.g. "
            "'dpmm==0.1.9'. Default for dpmm, smartnoise and synthcity: the tested pins.",
        ),
    ] = None,
    python: Annotated[
        str | None,
        typer.Option("--python", help="Interpreter that makes the venv (default: this one)."),
    ] = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Remove an environment of that name first.")
    ] = False,
) -> None:
    """Create (or add packages to) a virtual environment for env: generators."""
    from synthleak.generators.env import KNOWN_ENVS, create_env

    reqs = shlex.split(packages) if packages is not None else list(KNOWN_ENVS.get(name, ()))
    typer.echo(f"installing {' '.join(reqs) or 'nothing'} into environment {name!r} ...")
    exe = create_env(name, reqs, python=python, replace=replace)
    typer.echo(f"environment {name!r} ready: {exe}")


@env_app.command("list")
def list_cmd() -> None:
    """List the environments and where they are."""
    from synthleak.generators.env import envs_dir, list_envs

    typer.echo(f"environments folder: {envs_dir()}")
    for name in list_envs():
        typer.echo(name)
