"""`rlgpt report RUN_ID`: the run's self-contained HTML page, with links to its MLflow runs."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from rlgpt.errors import UserError

log = logging.getLogger(__name__)


def cmd_report(args: argparse.Namespace) -> int:
    from rlgpt.config import load_params
    from rlgpt.lineage.rundir import check_run_id
    from rlgpt.report import write_report

    run = Path(args.runs_dir) / check_run_id(args.run_id)
    if not run.is_dir():
        raise UserError(f"no run '{args.run_id}' under {args.runs_dir} (see `ls {args.runs_dir}`)")
    links: list[tuple[str, str]] = []
    params_file = run / "params.yaml"
    if params_file.is_file():
        tracking = load_params(str(params_file)).tracking
        store = tracking.mlflow_uri.removeprefix("sqlite:///")
        try:
            if store != tracking.mlflow_uri and not Path(store).is_file():  # never create one
                raise FileNotFoundError(f"no tracking store at {store} from here")
            from tasks.tracking import run_links

            links = run_links(tracking.mlflow_uri, tracking.experiment, run.name, args.mlflow_ui)
        except Exception as exc:  # noqa: BLE001 - a report without links beats no report
            log.warning("no MLflow links in the report (%s: %s)", type(exc).__name__, exc)
        links.append(
            (f"tracking store: {tracking.mlflow_uri} (open it with `rlgpt ui`)", args.mlflow_ui)
        )
    out = write_report(run, links)
    print(f"rlgpt: report: {out} ({out.stat().st_size // 1024} KiB, self-contained)")
    return 0
