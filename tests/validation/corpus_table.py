"""Validate every program of the mistake corpus and print a markdown table of the verdicts.

    .venv/bin/python -m tests.validation.corpus_table [--no-lint] [--world craftax]

The last line is JSON with counts: programs, matches, classes expected and reported.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from tests.validation.corpus import FOLDERS, OK, corpus, correct, timed_validate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-lint", action="store_true", help="validate with lint_code=False")
    parser.add_argument("--world", default="crafter", choices=sorted(FOLDERS))
    args = parser.parse_args(argv)
    lint_code = not args.no_lint
    expected: Counter[str] = Counter()
    reported: Counter[str] = Counter()
    layers: Counter[str] = Counter()
    mismatches: list[str] = []
    seconds = 0.0
    print("| program | sub-action | class expected | class reported | seconds |")
    print("|---|---|---|---|---|")
    for item in [*corpus(args.world), *correct(args.world)]:
        verdict, took = timed_validate(item.stem, lint_code, args.world)
        got = OK if verdict.ok else str(verdict.error_kind)
        want = "|".join(sorted(item.expect))
        expected.update(item.expect)
        reported[got] += 1
        layers[item.layer] += 1
        seconds += took
        if got not in item.expect:
            mismatches.append(item.stem)
        mark = " **(mismatch)**" if got not in item.expect else ""
        print(f"| {item.stem} | {item.sub_action} | {want} | {got}{mark} | {took:.2f} |")
    summary = {
        "programs": sum(reported.values()),
        "matches": sum(reported.values()) - len(mismatches),
        "mismatches": mismatches,
        "world": args.world,
        "lint": lint_code,
        "layers": dict(sorted(layers.items())),
        "expected": dict(sorted(expected.items())),
        "reported": dict(sorted(reported.items())),
        "seconds": round(seconds, 2),
    }
    print()
    print(json.dumps(summary, sort_keys=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
