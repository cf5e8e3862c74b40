"""The per-operation table of `make fuzz`, read from schemathesis' NDJSON report: cases sent per
phase, the statuses answered, and the failed checks."""

import collections
import glob
import json
import os

PHASES = ("examples", "coverage", "fuzzing", "stateful")


def print_summary(report_dir: str) -> dict:
    """Prints the table; returns the cases per operation label and phase."""
    files = sorted(glob.glob(os.path.join(report_dir, "ndjson-*.ndjson")))
    if not files:
        print("make fuzz: no NDJSON report to summarise")
        return {}
    cases = collections.defaultdict(collections.Counter)  # operation -> phase -> cases
    statuses = collections.defaultdict(collections.Counter)  # operation -> status class
    failures = collections.defaultdict(collections.Counter)  # operation -> check -> count
    with open(files[-1], encoding="utf-8") as report:
        for line in report:
            event = json.loads(line)
            finished = event.get("ScenarioFinished")
            if not finished:
                continue
            recorder = finished["recorder"]
            phase = finished["phase"]
            for case_id, interaction in (recorder.get("interactions") or {}).items():
                case = (recorder.get("cases") or {}).get(case_id, {}).get("value", {})
                label = f"{case.get('method', '?')} {case.get('path', recorder['label'])}"
                cases[label][phase] += 1
                response = interaction.get("response") or {}
                status = response.get("status_code")
                statuses[label][f"{status // 100}xx" if status else "none"] += 1
            for case_id, checks in (recorder.get("checks") or {}).items():
                case = (recorder.get("cases") or {}).get(case_id, {}).get("value", {})
                label = f"{case.get('method', '?')} {case.get('path', recorder['label'])}"
                for check in checks:
                    if check.get("status") == "failure":
                        failures[label][check["name"]] += 1
    width = max(len(label) for label in cases) if cases else 10
    header = f"{'operation':{width}} " + " ".join(f"{p:>9}" for p in PHASES)
    header += f" {'total':>7}  {'2xx':>6} {'3xx':>5} {'4xx':>6} {'5xx':>4}  failed checks"
    print()
    print(header)
    print("-" * len(header))
    totals = collections.Counter()
    for label in sorted(cases):
        per = cases[label]
        total = sum(per.values())
        totals.update(per)
        st = statuses[label]
        failed = ", ".join(f"{name} x{n}" for name, n in sorted(failures[label].items())) or "-"
        row = f"{label:{width}} " + " ".join(f"{per[p]:>9}" for p in PHASES)
        row += f" {total:>7}  {st['2xx']:>6} {st['3xx']:>5} {st['4xx']:>6} {st['5xx']:>4}  {failed}"
        print(row)
    print("-" * len(header))
    grand = sum(totals.values())
    print(f"{'all ' + str(len(cases)) + ' operations':{width}} " + " ".join(f"{totals[p]:>9}" for p in PHASES) + f" {grand:>7}")
    fewest = min((sum(c.values()), label) for label, c in cases.items()) if cases else (0, "-")
    print(f"fewest cases: {fewest[0]} ({fewest[1]}); failed checks: {sum(sum(f.values()) for f in failures.values())}")
    return cases
