"""Scripted replies for the loopback chat server (benchmarks/chat_server.py) the tests run
the loop against."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from benchmarks.chat_server import ChatServer, Step, error, ok
from rlgpt.worlds.crafter.author import write_action

__all__ = ["ChatServer", "Step", "error", "ok", "plan_responder", "scripted_run"]


def plan_responder(
    task: str, plan: list[tuple[str, int]], forget_code: str | None = None
) -> Callable[[dict[str, Any]], str]:  # fmt: skip
    """Plays every role for `task` by reading the rendered prompts (as a model would): the first
    plan learns the first step, the critic then asks to code it, then the run succeeds. As one
    agent (run.agents: one) it plans and codes in one reply; `forget_code`: a step it marks
    "code" but writes no code for in its first reply (a model's slip), and code for a step the
    plan does not have (the plan must win)."""

    def subs(first: bool) -> list[dict[str, Any]]:
        modes = ["rl" if first and i == 0 else "code" for i in range(len(plan))]
        return [
            {"name": n, "description": n, "mode": m, "count": c, "precondition": "-",
             "expected_effect": "-"} for (n, c), m in zip(plan, modes, strict=True)
        ]  # fmt: skip

    def respond(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        critique = "critic's feedback" in first_user
        if "# Role: slow agent" in first_user:
            return json.dumps(
                {"task": task, "reasoning": "recipes", "sub_actions": subs(not critique)}
            )
        if "# Role: one agent" in first_user:
            plan_subs = subs(False) if forget_code and not critique else subs(not critique)
            names = [s["name"] for s in plan_subs if s["mode"] == "code"]
            if forget_code and not critique:
                names = [n for n in names if n != forget_code] + ["collect_diamond"]
            actions = [write_action(n, 80).model_dump() for n in names]
            dec = {"task": task, "reasoning": "plan and code", "sub_actions": plan_subs}
            return json.dumps({"decomposition": dec, "actions": actions})
        if "# Role: fast agent (coder)" in first_user:
            name = re.search(r"`def (\w+)\(view\):`", first_user).group(1)  # type: ignore[union-attr]
            return (
                "Here is the action:\n```json\n"
                + write_action(name, 80).model_dump_json()
                + "\n```"
            )
        if "# Role: fast agent (RL designer)" in first_user:
            coded = re.search(r"extra actions\):\n(.*)\n", first_user).group(1)  # type: ignore[union-attr]
            names = [c.strip() for c in coded.split(",") if c.strip()]
            return json.dumps({
                "macro_actions": names, "sample_budget": 1200,
                "reward_terms": [{"achievement": a, "weight": 1.0, "cap": c} for a, c in plan],
            })  # fmt: skip
        if "# Role: fast agent (designer of a learned action)" in first_user:
            name = json.loads(first_user.split("Sub-action: ", 1)[1].split("\n", 1)[0])["name"]
            return json.dumps({"name": name, "step_budget": 60, "sample_budget": 800,
                               "shaping": [{"signal": "health", "weight": 0.5}]})  # fmt: skip
        if "# Role: critic" in first_user:
            learned = '"mode": "rl"' in first_user.replace("\n", "")
            if learned:
                first = plan[0][0]
                verdict = {"verdict": "revise_plan", "failing_sub_action": first,
                           "slow_feedback": f"code {first}", "reasoning": "learned"}  # fmt: skip
                return json.dumps(verdict)
            return json.dumps({"verdict": "success", "reasoning": "all coded"})
        raise AssertionError(f"unexpected prompt: {prompt[:200]}")

    return respond


# make_wood_pickaxe: collect_wood learned first, coded after the critique.
crafter_responder = plan_responder(
    "make_wood_pickaxe", [("collect_wood", 3), ("place_table", 1), ("make_wood_pickaxe", 1)]
)


def scripted_run(
    tmp: Path, responder: Callable[[dict[str, Any]], str], key: str, run_id: str,
    **sections: dict[str, Any],
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:  # fmt: skip
    """One tiny one-iteration `rlgpt run` against `responder` on a loopback server: the TINY
    params with 3 validation states per action and `sections` on top (e.g. llm={...}). Returns
    the finished process and every request the server received."""
    from tests.conftest import TINY, rlgpt_exe

    data = {**TINY, "tracking": {"mlflow_uri": f"sqlite:///{tmp}/mlflow.db"}}
    data["run"] = {**TINY["run"], "runs_dir": str(tmp / "runs")}
    data["sandbox"] = {"scenarios": 3}
    llm = {"backend": "openai", "model": "scripted-7b", "backoff_s": 0.01, "timeout_s": 10}
    data |= {**sections, "llm": {**llm, **sections.get("llm", {})}}
    params = tmp / "params.yaml"
    params.write_text(yaml.safe_dump(data))
    env = {**os.environ, "PREFECT_HOME": str(tmp / ".prefect"), "OPENAI_API_KEY": key}
    with ChatServer(responder) as srv:
        env["OPENAI_BASE_URL"] = srv.base_url
        proc = subprocess.run(
            [rlgpt_exe(), "run", "--params", str(params), "--run-id", run_id, "--iterations",
             "1", "--quiet"], cwd=tmp, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        requests = list(srv.requests)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc, requests
