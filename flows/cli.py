"""`rlgpt` command line. Exit codes: 0 success, 2 user error (one line), 1 failure."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from flows import launch
from flows.launch import Invocation
from rlgpt.errors import RLGPTError, UserError
from rlgpt.textsafe import PrintableFormatter, printable
from rlgpt.worlds import DEFAULT_WORLD, world_names

Handler = Callable[[argparse.Namespace, Invocation], int]  # a sub-command: args -> exit code


class _Parser(argparse.ArgumentParser):
    """No abbreviated options (`--iteration` is not `--iterations`); a usage error is one
    line that says where to look, and exit code 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"rlgpt: error: {message} (see `{self.prog} --help`)\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rlgpt")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="rlgpt",
        description="RL-GPT on Crafter (and Craftax-Classic): LLM agents decide what to code "
        "and what to learn.",
    )
    p.add_argument("--version", action="version", version=f"rlgpt {_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    tasks = sub.add_parser("tasks", help="list the tasks and their success conditions")
    tasks.set_defaults(func=_cmd_tasks)
    tasks.add_argument("--json", action="store_true", help="machine-readable output")
    tasks.add_argument("--world", default=DEFAULT_WORLD, choices=world_names(),
                       help=f"the game (default: {DEFAULT_WORLD})")  # fmt: skip
    run = sub.add_parser("run", help="run the RL-GPT loop on one task (a Prefect flow)")
    run.set_defaults(func=_cmd_run)
    run.add_argument(
        "--world", choices=world_names(), help="the game (default: params.yaml run.world)"
    )
    run.add_argument("--task", help="task name (default: params.yaml run.task)")
    run.add_argument("--iterations", type=int, help="most iterations (default: params.yaml)")
    run.add_argument(
        "--llm",
        choices=["offline", "openai", "replay"],
        help="agent backend: offline (default; not an LLM), openai (any OpenAI-compatible "
        "endpoint: OPENAI_BASE_URL, OPENAI_API_KEY), replay (answers of run --from)",
    )
    run.add_argument("--from", dest="replay_from", help="run id to replay (with --llm replay)")
    run.add_argument("--model", help="model for every agent role (openai backend)")
    run.add_argument("--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL)")
    run.add_argument("--params", default="params.yaml", help="params file (default: params.yaml)")
    run.add_argument("--run-id", help="run directory name (default: <task>-<time>)")
    run.add_argument("--seed", type=int, help="seed of envs, PPO and evaluation")
    run.add_argument("--force", action="store_true", help="overwrite an existing run directory")
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    run.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override one params.yaml value, validated like the file: e.g. --set "
        "train.sample_budget=30000 --set train.ppo.n_epochs=4 (VALUE is YAML; repeatable)",
    )
    run.add_argument(
        "--metrics-out",
        help="also write the summary's metrics (JSON) here, and iterations.csv beside it (DVC)",
    )
    run.add_argument(
        "--no-library",
        action="store_true",
        help="neither reuse nor add to the skill library (a self-contained run)",
    )
    sw = sub.add_parser(
        "sweep", help="run a grid of tasks x seeds on Dask (or one at a time); one summary table"
    )
    sw.set_defaults(func=_cmd_sweep)
    sw.add_argument("--tasks", required=True, help="task names, comma-separated (`rlgpt tasks`)")
    sw.add_argument("--seeds", type=int, default=1,
                    help="seeds per task, from params.yaml run.seed on (default 1)")  # fmt: skip
    sw.add_argument("--iterations", type=int, help="most iterations per run (default: params)")
    sw.add_argument("--world", choices=world_names(),
                    help="the game (default: params.yaml run.world)")  # fmt: skip
    sw.add_argument("--params", default="params.yaml", help="params file (default: params.yaml)")
    sw.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override one params.yaml value for every run (repeatable)",
    )
    sw.add_argument(
        "--sweep-id",
        help="sweep directory under runs/ (default: sweep-<time>); "
        "an existing one continues: finished runs are kept, the others resumed",
    )
    sw.add_argument(
        "--runner",
        choices=["dask", "sequential"],
        help="task runner (default: params.yaml scale.runner)",
    )
    sw.add_argument("--workers", type=int, help="Dask LocalCluster workers (scale.workers)")
    sw.add_argument("--address", help="an existing Dask scheduler, e.g. tcp://host:8786")
    res = sub.add_parser("resume", help="continue an interrupted or failed run where it stopped")
    res.set_defaults(func=_cmd_resume)
    res.add_argument("run_id", help="the run directory name under --runs-dir")
    res.add_argument("--runs-dir", default="runs", help="where runs live (default: runs)")
    res.add_argument("--quiet", action="store_true", help="no progress bars")
    lin = sub.add_parser(
        "lineage", help="the audit chain of a checkpoint or run, or every policy from a prompt hash"
    )
    lin.set_defaults(func=_cmd_lineage)
    lin.add_argument("target", help="checkpoint path (policy.zip), run id, or prompt sha256 prefix")
    lin.add_argument("--runs-dir", default="runs", help="where runs live (default: runs)")
    lin.add_argument("--json", action="store_true", help="machine-readable output")
    rpt = sub.add_parser(
        "report", help="write runs/<id>/report.html: tables, plots, code diffs, critique, lineage"
    )
    rpt.set_defaults(func=_cmd_report)
    rpt.add_argument("run_id", help="the run directory name under --runs-dir")
    rpt.add_argument("--runs-dir", default="runs", help="where runs live (default: runs)")
    rpt.add_argument("--mlflow-ui", default="http://127.0.0.1:5000",
                     help="the MLflow UI the links point to (default: http://127.0.0.1:5000, "
                     "as `rlgpt ui --port 5000`)")  # fmt: skip
    rep = sub.add_parser("reproduce", help="replay a recorded run now and compare its metrics")
    rep.set_defaults(func=_cmd_reproduce)
    rep.add_argument("run_id", help="the recorded run")
    rep.add_argument("--runs-dir", default="runs", help="where runs live (default: runs)")
    srv = sub.add_parser(
        "serve", help="register a scheduled reproduction with a Prefect server and serve it"
    )
    srv.set_defaults(func=_cmd_serve)
    srv.add_argument("--from", dest="run_id", required=True, help="the recorded run to reproduce")
    srv.add_argument("--cron", required=True, help='schedule, e.g. "0 3 * * *"')
    srv.add_argument("--name", help="deployment name (default: reproduce-<run id>)")
    srv.add_argument("--runs-dir", default="runs", help="where runs live (default: runs)")
    sk = sub.add_parser("skills", help="the skill library that outlives runs")
    sk.set_defaults(func=_cmd_skills)
    sks = sk.add_subparsers(dest="skills_command", required=True, metavar="SUBCOMMAND",
                            parser_class=_Parser)  # fmt: skip
    sks.add_parser("list", help="every skill: versions, the best one, how often it was reached")
    show = sks.add_parser("show", help="one skill's version: evidence, origin and source")
    show.add_argument("name", help="sub-action name, e.g. collect_wood")
    show.add_argument("--version", type=int, help="version (default: the best)")
    hist = sks.add_parser("history", help="one skill's versions and every run that trained with it")
    hist.add_argument("name", help="sub-action name")
    sks.add_parser("snapshot", help="version the library with DVC (dvc add), to commit its .dvc")
    for q in sks.choices.values():
        q.add_argument("--params", default="params.yaml", help="params file (library.path)")
    ui = sub.add_parser("ui", help="the MLflow UI (and, with --prefect, a Prefect server and UI)")
    ui.set_defaults(func=_cmd_ui)
    ui.add_argument("--port", type=int, help="MLflow UI port (default: a free one)")
    ui.add_argument("--prefect", action="store_true", help="also start a Prefect server with UI")
    ui.add_argument("--params", default="params.yaml", help="tracking store from this file")
    comp = sub.add_parser("completion", help="print a shell completion script")
    comp.set_defaults(func=_cmd_completion)
    comp.add_argument("shell", choices=["bash"], help='bash (zsh: after `bashcompinit`); '
                      'e.g. eval "$(rlgpt completion bash)" in ~/.bashrc')  # fmt: skip
    sb = sub.add_parser("sandbox", help="sandbox tools")
    sbs = sb.add_subparsers(dest="sandbox_command", required=True, metavar="SUBCOMMAND")
    check = sbs.add_parser(
        "check", help="validate coded action files; prints the ValidationReport as JSON; "
        "exit 0 accepted, 1 rejected, 2 bad input, 3 a file could not be checked",
    )  # fmt: skip
    check.set_defaults(func=_cmd_sandbox_check)
    check.add_argument(
        "files", nargs="+", metavar="FILE", help="Python file(s), one coded action each"
    )
    check.add_argument(
        "--name", help="action name, i.e. the achievement whose effect is checked (default: the "
        "function the file defines)",
    )  # fmt: skip
    check.add_argument(
        "--params",
        default="params.yaml",
        help="sandbox settings from this file (default: params.yaml if present)",
    )
    check.add_argument(
        "--budget", type=int, help="step budget of the action (default: train.macro_step_budget)"
    )
    check.add_argument("--timeout", type=float, help="wall limit per action (s)")
    check.add_argument(
        "--world",
        choices=world_names(),
        help="the game whose states it runs on (default: params.yaml run.world)",
    )
    check.add_argument("--degraded", action="store_true",
                       help="no bubblewrap: rlimits and a clean environment only")  # fmt: skip
    return p


def _cmd_tasks(args: argparse.Namespace, inv: Invocation) -> int:
    from rlgpt.worlds import get_world

    world = get_world(args.world)
    if args.json:
        rows = [t.model_dump() | {"plan": [[a, n] for a, n in world.plan(t)]}
                for t in world.tasks().values()]  # fmt: skip
        print(json.dumps(rows, indent=1))
        return 0
    for t in world.tasks().values():
        chain = " -> ".join(f"{a}x{n}" if n > 1 else a for a, n in world.plan(t))
        paper = f"  [paper: {t.paper_name}]" if t.paper_name else ""
        print(f"{t.name:<20} success: achievement '{t.achievement}' within "
              f"{t.max_episode_steps} steps{paper}\n{'':<20} plan: {chain}")  # fmt: skip
    return 0


def _cmd_run(args: argparse.Namespace, inv: Invocation) -> int:
    return launch.cmd_run(args, inv)


def _cmd_resume(args: argparse.Namespace, inv: Invocation) -> int:
    return launch.cmd_resume(args, inv)


def _cmd_reproduce(args: argparse.Namespace, inv: Invocation) -> int:
    return launch.cmd_reproduce(args)


def _cmd_sweep(args: argparse.Namespace, inv: Invocation) -> int:
    from flows.sweep_cmd import cmd_sweep

    return cmd_sweep(args, inv)


def _cmd_report(args: argparse.Namespace, inv: Invocation) -> int:
    from flows.report_cmd import cmd_report

    return cmd_report(args)


def _cmd_ui(args: argparse.Namespace, inv: Invocation) -> int:
    from flows.ui import cmd_ui

    return cmd_ui(args)


def _cmd_skills(args: argparse.Namespace, inv: Invocation) -> int:
    from flows.skills_cmd import cmd_skills

    return cmd_skills(args)


def _cmd_completion(args: argparse.Namespace, inv: Invocation) -> int:
    from flows.completion import bash_script
    from rlgpt.worlds import get_world

    names = sorted(get_world().tasks())
    print(bash_script(_parser(), values={"--task": names, "--tasks": names}), end="")
    return 0


def _cmd_lineage(args: argparse.Namespace, inv: Invocation) -> int:
    from rlgpt.lineage.audit import lineage, render_text

    result = lineage(args.target, Path(args.runs_dir))
    print(json.dumps(result, indent=2, default=str) if args.json else render_text(result))
    return 0


def _cmd_serve(args: argparse.Namespace, inv: Invocation) -> int:
    launch.completed(Path(args.runs_dir), args.run_id, "serve")
    if not os.environ.get("PREFECT_API_URL"):
        raise UserError(
            "serve needs a Prefect server: run `prefect server start --host 127.0.0.1` and "
            "export PREFECT_API_URL=http://127.0.0.1:4200/api"
        )
    launch.offline_env()
    from prefect.deployments.runner import EntrypointType

    from flows.reproduce_flow import reproduce

    name = args.name or f"reproduce-{args.run_id}"
    print(f"rlgpt: serving deployment 'rlgpt-reproduce/{name}' on {args.cron} (Ctrl-C stops)")
    reproduce.serve(
        name=name, cron=args.cron, entrypoint_type=EntrypointType.MODULE_PATH,
        parameters={"run_id": args.run_id, "runs_dir": str(Path(args.runs_dir).resolve())},
        print_starting_message=False,
    )  # fmt: skip
    return 0


def _action_name(source: str, fallback: str) -> str:
    """The first top-level `def NAME(` of a file, else `fallback` (the file's stem)."""
    for line in source.splitlines():
        if line.startswith("def ") and "(" in line:
            return line[4 : line.index("(")].strip()
    return fallback


def _check_inputs(args: argparse.Namespace, budget: int) -> list[Any]:
    """Every file read and named before any work: a bad one is a one-line user error."""
    from rlgpt.messages import CodedAction

    coded = []
    for file in args.files:
        path = Path(file)
        if path.is_dir():
            raise UserError(f"{path} is a directory; give the coded action files in it")
        try:
            source = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
        name = args.name or _action_name(source, path.stem)
        try:
            coded.append(CodedAction(name=name, docstring="", source=source, step_budget=budget))
        except ValueError:
            raise UserError(f"{name!r} is not a valid action name; pass --name") from None
    return coded


def _cmd_sandbox_check(args: argparse.Namespace, inv: Invocation) -> int:
    """Exit 0: every file accepted; 1: some rejected; 2: bad input (before any work); 3: some
    file could not be checked (its verdict says why). A verdict for every file, always."""
    from rlgpt.config import load_params
    from rlgpt.messages import ActionValidation, ValidationReport
    from rlgpt.sandbox.client import check_isolation
    from rlgpt.validation.validate import validate_action

    params = load_params(args.params if Path(args.params).exists() else None)
    sandbox = params.sandbox
    if args.timeout is not None:
        sandbox = sandbox.model_copy(update={"timeout_s": args.timeout})
    if args.degraded:
        sandbox = sandbox.model_copy(update={"isolation": "degraded"})
    coded = _check_inputs(args, args.budget or params.train.macro_step_budget)
    check_isolation(sandbox.isolation)  # no sandbox: one line, exit 2, nothing run
    results, errored = [], False
    for action in coded:
        try:
            verdict = validate_action(action, sandbox=sandbox, view_radius=params.train.view_radius,
                                      world=args.world or params.run.world)  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - one file never costs the others their verdict
            errored = True
            message = f"could not be checked: {type(exc).__name__}: {exc}"[:300]
            verdict = ActionValidation(name=action.name, ok=False, error_kind="crash",
                                       message=message)  # fmt: skip
        results.append(verdict)
    report = ValidationReport(actions=results).model_dump(mode="json")
    print(json.dumps(report, indent=2))  # ASCII only: any text, any terminal encoding
    for r in results:  # one line each for people (escaped); the JSON above is for scripts
        verdict_text = "ok" if r.ok else f"{r.error_kind}: {r.message}"
        print(printable(f"rlgpt: {r.name}: {verdict_text}", 400), file=sys.stderr)
    if errored:
        return 3
    return 0 if all(r.ok for r in results) else 1


def main(argv: list[str] | None = None) -> NoReturn:
    args = _parser().parse_args(argv)
    handler = logging.StreamHandler()  # log lines escaped: no forged lines, no terminal codes
    handler.setFormatter(PrintableFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    inv = Invocation()  # what the command learns that a failure's report needs
    try:
        command: Handler = args.func  # each sub-command's parser sets its own
        code = command(args, inv)
    except UserError as exc:
        print(printable(f"rlgpt: error: {exc}"), file=sys.stderr)
        code = 2
    except RLGPTError as exc:  # a clean stop: budget, endpoint failure, replies that never fit
        print(printable(f"rlgpt: stopped: {exc}"), file=sys.stderr)
        code = 1
    except BrokenPipeError:  # output piped into `head` and the like
        code = 0
    except Exception as exc:  # a pipeline failure: one line, the traceback goes to a file
        import tempfile
        import traceback

        here = inv.run_dir or Path(tempfile.gettempdir())
        log = here / ("error.log" if inv.run_dir else f"rlgpt-error-{os.getpid()}.log")
        log.write_text(traceback.format_exc())
        print(printable(f"rlgpt: failed: {type(exc).__name__}: {str(exc)[:300]} "
                        f"(traceback: {log})"), file=sys.stderr)  # fmt: skip
        code = 1
    except KeyboardInterrupt:
        print("rlgpt: interrupted; what was computed is kept under the run directory",
              file=sys.stderr)  # fmt: skip
        code = 130
    sys.exit(code)
