"""Judge acceptance-test outputs against the plan: pass/fail per test and size, correctness, the traffic class
and HCAs the run really used, outlier and asymmetric pairs, and the variation across repeats.

Result files are matched to plan cases by name (the plan's script writes ``<case id>[.s<size>].r<n>.txt|json``).
Without a plan, outputs are parsed and checked for correctness only.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from roceconf.acceptance.plan import AcceptancePlan, NcclCase, PerftestCase
from roceconf.acceptance.results import Result, parse_file

_RUN = re.compile(r"^(?P<id>.+?)(?:\.s(?P<size>\d+))?(?:\.r(?P<rep>\d+))?(?:\.(?P<ext>txt|json|log|out))?$")


@dataclass
class Finding:
    rule: str
    severity: str  # "fail" | "warning"
    test: str
    message: str
    file: str | None = None
    size: int | None = None


#: a number on its own in a finding's message (a size, a rate, a share): what one cause's findings differ in
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


@dataclass
class Cause:
    """One finding per cause: the findings of one test and rule whose messages differ only in their numbers
    (the same slow pair below the pass mark at three message sizes is one cause)."""

    findings: list[Finding]
    #: positions of the findings in the verdict's list
    items: list[int]

    @property
    def first(self) -> Finding:
        return self.findings[0]

    @property
    def message(self) -> str:
        """The first finding's message, then the sizes (or how many more) where the others were found."""
        rest = self.findings[1:]
        if not rest:
            return self.first.message
        sizes = [f.size for f in rest if f.size is not None]
        if len(sizes) == len(rest):
            return f"{self.first.message}; also at {', '.join(str(n) for n in sizes)} B"
        return f"{self.first.message}; {len(rest)} more alike"

    def to_dict(self) -> dict[str, Any]:
        f = self.first
        return {"rule": f.rule, "severity": f.severity, "test": f.test, "message": self.message,
                "sizes": [x.size for x in self.findings if x.size is not None], "items": self.items}


def causes(findings: list[Finding]) -> list[Cause]:
    """The findings grouped into causes (:class:`Cause`), in the order of each cause's first finding."""
    out: dict[tuple[str, str, str, str], Cause] = {}
    for n, f in enumerate(findings):
        key = (f.rule, f.severity, f.test, _NUMBER.sub("#", f.message))
        c = out.setdefault(key, Cause([], []))
        c.findings.append(f)
        c.items.append(n)
    return list(out.values())


@dataclass
class Figure:
    size: int
    value: float
    unit: str
    bound: float | None
    ok: bool | None  # None: not judged (below the bandwidth-bound sizes, or no plan)
    repeats: int


@dataclass
class TestOutcome:
    id: str
    tool: str
    kind: str
    status: str  # "pass" | "fail" | "missing" | "unjudged"
    files: list[str] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)


@dataclass
class Verdict:
    generated_at: str
    plan: str | None
    traffic_class: int | None
    tests: list[TestOutcome]
    findings: list[Finding]

    @property
    def judged(self) -> bool:
        """Some planned test was judged against its pass mark (without a plan, or a plan of no tests, none is)."""
        return any(t.status != "unjudged" for t in self.tests)

    @property
    def passed(self) -> bool:
        """Every judged test passed and something was judged: nothing judged is never a pass."""
        return (
            self.judged
            and not any(f.severity == "fail" for f in self.findings)
            and not any(t.status in ("fail", "missing") for t in self.tests)
        )

    @property
    def headline(self) -> str:
        """PASS, FAIL or NOT JUDGED (no test judged against a plan: exit 1 all the same)."""
        if self.passed:
            return "PASS"
        failed = any(f.severity == "fail" for f in self.findings) or any(
            t.status in ("fail", "missing") for t in self.tests
        )
        return "FAIL" if failed or self.judged else "NOT JUDGED"

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    @property
    def counts(self) -> dict[str, int]:
        c = {"tests": len(self.tests), "pass": 0, "fail": 0, "missing": 0, "unjudged": 0}
        for t in self.tests:
            c[t.status] += 1
        c["findings_fail"] = sum(1 for f in self.findings if f.severity == "fail")
        c["findings_warning"] = sum(1 for f in self.findings if f.severity == "warning")
        found = self.causes
        c["causes_fail"] = sum(1 for x in found if x.first.severity == "fail")
        c["causes_warning"] = sum(1 for x in found if x.first.severity == "warning")
        return c

    @property
    def causes(self) -> list[Cause]:
        """The findings as one per cause (:func:`causes`)."""
        return causes(self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": 1,
            "generated_at": self.generated_at,
            "plan": self.plan,
            "traffic_class": self.traffic_class,
            "passed": self.passed,
            "exit_code": self.exit_code,
            "summary": self.counts,
            "tests": [asdict(t) for t in self.tests],
            "findings": [asdict(f) for f in self.findings],
            "causes": [c.to_dict() for c in self.causes],
        }


def _gbps(value: float, unit: str) -> float:
    """perftest bandwidth in Gb/s whatever unit the run reported."""
    if unit == "MB/sec":
        return value * 8 / 1000
    if unit == "MiB/sec":
        return value * 8 * 1.048576 / 1000
    return value


def _cv(values: list[float]) -> float:
    if len(values) < 2 or statistics.mean(values) == 0:
        return 0.0
    return statistics.stdev(values) / statistics.mean(values) * 100


class _Judge:
    def __init__(self, plan: AcceptancePlan | None) -> None:
        self.plan = plan
        self.findings: list[Finding] = []

    def add(
        self, rule: str, sev: str, test: str, msg: str, file: str | None = None, size: int | None = None
    ) -> None:
        self.findings.append(Finding(rule, sev, test, msg, file, size))

    # ------------------------------------------------------------------ checks shared by every result
    def common(self, test: str, r: Result, want_hcas: list[str] | None) -> None:
        if r.network and r.network.lower() == "socket":
            self.add("RC411", "fail", test, "NCCL ran over TCP sockets, not RDMA: the RoCE path was not measured", r.file)
        if r.error:
            name = Path(r.file).name  # the test is named after its file when there is no plan: say it once
            self.add("RC409", "fail", test, r.error if name == test else f"{name}: {r.error}", r.file)
            return
        if r.out_of_bounds:
            self.add(
                "RC403",
                "fail",
                test,
                f"{r.out_of_bounds} value(s) out of bounds: the collective computed wrong results",
                r.file,
            )
        for row in r.rows:
            if row.wrong:
                self.add(
                    "RC403", "fail", test, f"{row.wrong:g} wrong element(s) at {row.size} B", r.file, row.size
                )
        if r.network and r.network.lower() == "socket":
            self.add(
                "RC411",
                "fail",
                test,
                "NCCL ran over TCP sockets, not RDMA: the RoCE path was not measured",
                r.file,
            )
        if self.plan is None:
            return
        tc = self.plan.traffic_class
        if r.traffic_class is None:
            how = "NCCL_DEBUG=INFO output or -J JSON" if r.tool == "nccl-tests" else "RDMA-CM (-R) with -T"
            self.add(
                "RC410",
                "warning",
                test,
                f"{Path(r.file).name} does not show its traffic class ({how} shows it); "
                f"cannot confirm it ran with {tc}",
                r.file,
            )
        elif r.traffic_class != tc:
            self.add(
                "RC404",
                "fail",
                test,
                f"ran with traffic class {r.traffic_class}, the plan's is {tc} (DSCP {self.plan.roce_dscp}): "
                "it measured a path production traffic will not use",
                r.file,
            )
        if want_hcas:
            used = [r.device] if r.tool == "perftest" and r.device else r.hcas
            odd = [h for h in used if h not in want_hcas]
            if odd:
                self.add(
                    "RC405",
                    "fail",
                    test,
                    f"used HCA {', '.join(odd)}; the plan's are {', '.join(want_hcas)}",
                    r.file,
                )

    # ------------------------------------------------------------------ perftest
    def perftest(self, case: PerftestCase, results: list[tuple[int, Result]]) -> TestOutcome:
        out = TestOutcome(case.id, "perftest", case.tool, "missing", files=[r.file for _, r in results])
        if not results:
            self.add("RC412", "fail", case.id, "no result: the test did not run or its output is missing")
            return out
        by_size: dict[int, list[float]] = {}
        unit = "us" if case.tool == "ib_send_lat" else "Gb/s"
        for size, r in results:
            self.common(case.id, r, [case.client.rdma_device, case.server.rdma_device])
            for row in r.rows:
                if size and row.size != size:
                    continue
                v = row.value if unit == "us" else _gbps(row.value, r.unit)
                by_size.setdefault(row.size, []).append(v)
        bad = any(f.severity == "fail" and f.test == case.id for f in self.findings)
        th = self.plan.thresholds if self.plan else None
        for size in sorted(by_size):
            vals = by_size[size]
            med = statistics.median(vals)
            bound: float | None
            if unit == "us":
                bound = case.latency_bound_us
                ok = None if bound is None else med <= bound
            else:
                bound = case.expected_gbps
                judged = th is not None and size >= th.bandwidth_min_bytes
                ok = (med >= bound) if (judged and bound is not None) else None
            out.figures.append(Figure(size, round(med, 3), unit, bound, ok, len(vals)))
            if ok is False:
                rel = "above" if unit == "us" else "below"
                self.add(
                    "RC402" if unit == "us" else "RC401",
                    "fail",
                    case.id,
                    f"{case.tool} {case.server.host}<-{case.client.host} at {size} B: {med:.2f} {unit} is {rel} "
                    f"the pass mark {bound:g} {unit}",
                    size=size,
                )
                bad = True
            if th and _cv(vals) > th.repeat_cv_percent:
                self.add(
                    "RC408",
                    "warning",
                    case.id,
                    f"{size} B varies {_cv(vals):.1f} % across {len(vals)} repeats "
                    f"(limit {th.repeat_cv_percent:g} %)",
                    size=size,
                )
        if not out.figures and not bad:
            self.add("RC409", "fail", case.id, "the output holds no result rows")
            bad = True
        elif not bad and not any(f.ok is not None for f in out.figures):
            self.add(
                "RC401",
                "fail",
                case.id,
                "no measured size is judged against the pass mark "
                f"(bandwidth from {th.bandwidth_min_bytes if th else 0} B): the test cannot pass",
            )
            bad = True
        out.status = "fail" if bad else "pass"
        return out

    # ------------------------------------------------------------------ nccl-tests
    def nccl(self, case: NcclCase, results: list[Result]) -> TestOutcome:
        out = TestOutcome(case.id, "nccl-tests", case.collective, "missing", files=[r.file for r in results])
        if not results:
            self.add("RC412", "fail", case.id, "no result: the test did not run or its output is missing")
            return out
        assert self.plan is not None
        want = sorted({n.rdma_device for h in case.hosts for n in self.plan.hosts.get(h, [])})
        by_size: dict[int, list[float]] = {}
        for r in results:
            self.common(case.id, r, want)
            if r.hosts:
                missing = [h for h in case.hosts if h not in r.hosts and h.split(".")[0] not in r.hosts]
                extra = [h for h in r.hosts if h not in case.hosts]
                if missing or extra:
                    self.add(
                        "RC405",
                        "fail",
                        case.id,
                        f"ran on other hosts than the plan: missing {missing or '-'}, "
                        f"not planned {extra or '-'}",
                        r.file,
                    )
            for row in r.rows:
                by_size.setdefault(row.size, []).append(row.value)
        th = self.plan.thresholds
        bad = any(f.severity == "fail" and f.test == case.id for f in self.findings)
        for size in sorted(by_size):
            vals = by_size[size]
            med = statistics.median(vals)
            judged = size >= th.nccl_bandwidth_min_bytes
            ok = med >= case.threshold_busbw_gbs if judged else None
            out.figures.append(
                Figure(
                    size, round(med, 3), "GB/s", case.threshold_busbw_gbs if judged else None, ok, len(vals)
                )
            )
            if ok is False:
                self.add(
                    "RC401",
                    "fail",
                    case.id,
                    f"{case.collective} busbw {med:.2f} GB/s at {size} B is below the "
                    f"pass mark {case.threshold_busbw_gbs:g} GB/s ({case.expected_busbw_gbs:g} GB/s line rate per rank)",
                    size=size,
                )
                bad = True
            if judged and _cv(vals) > th.repeat_cv_percent:
                self.add(
                    "RC408",
                    "warning",
                    case.id,
                    f"{size} B busbw varies {_cv(vals):.1f} % across {len(vals)} repeats",
                    size=size,
                )
        if not any(f.ok is not None for f in out.figures) and not bad:
            self.add(
                "RC401",
                "fail",
                case.id,
                f"no size >= {th.nccl_bandwidth_min_bytes} B was measured: the bandwidth cannot be judged",
            )
            bad = True
        out.status = "fail" if bad else "pass"
        return out

    # ------------------------------------------------------------------ across pairs
    def pairs(self, outcomes: dict[str, TestOutcome]) -> None:
        assert self.plan is not None
        share = self.plan.thresholds.outlier_share
        groups: dict[tuple[str, str, int], list[tuple[PerftestCase, float]]] = {}
        by_dir: dict[tuple[str, str, str, int], float] = {}
        for case in self.plan.perftest:
            o = outcomes.get(case.id)
            if not o or case.tool == "ib_send_lat":
                continue
            for f in o.figures:
                groups.setdefault((case.tool, case.scope, f.size), []).append((case, f.value))
                by_dir[
                    (
                        case.tool,
                        f"{case.server.host}:{case.server.rdma_device}",
                        f"{case.client.host}:{case.client.rdma_device}",
                        f.size,
                    )
                ] = f.value
        for (tool, scope, size), items in groups.items():
            if len(items) < 3:
                continue
            med = statistics.median(v for _, v in items)
            for case, v in items:
                if med > 0 and v < med * (1 - share):
                    self.add(
                        "RC406",
                        "warning",
                        case.id,
                        f"{tool} {scope} {case.server.host}<-{case.client.host} at {size} B: "
                        f"{v:.2f} Gb/s is {100 * (1 - v / med):.0f} % below the median {med:.2f} of its peers",
                        size=size,
                    )
        seen: set[tuple] = set()
        for (tool, a, b, size), v in by_dir.items():
            back = by_dir.get((tool, b, a, size))
            key = (tool, *sorted((a, b)), size)
            if back is None or key in seen:
                continue
            seen.add(key)
            hi = max(v, back)
            if hi > 0 and min(v, back) < hi * (1 - share):
                self.add(
                    "RC407",
                    "warning",
                    f"{tool}.{a}.{b}",
                    f"{tool} {a}<-{b} {v:.2f} Gb/s but {b}<-{a} {back:.2f} Gb/s "
                    f"at {size} B: one direction of the pair is slow",
                    size=size,
                )


def _match(plan: AcceptancePlan, name: str) -> tuple[str | None, int, int]:
    m = _RUN.match(name)
    ids = {c.id for c in plan.perftest} | {c.id for c in plan.nccl}
    if m and m.group("id") in ids:
        return m.group("id"), int(m.group("size") or 0), int(m.group("rep") or 1)
    best = max((i for i in ids if name.startswith(i + ".")), key=len, default=None)
    return best, 0, 1


def _merge(runs: list[Result]) -> Result:
    """The text and JSON output of one run: JSON figures first, text fills what JSON lacks (NCCL INFO lines)."""
    runs = sorted(runs, key=lambda r: r.fmt != "json")
    base = runs[0]
    for other in runs[1:]:
        if base.error and not other.error:
            base, other = other, base
        for attr in ("traffic_class", "gid_index", "device", "network", "out_of_bounds"):
            if getattr(base, attr) is None and getattr(other, attr) is not None:
                setattr(base, attr, getattr(other, attr))
        if not base.hcas:
            base.hcas = other.hcas
        if not base.hosts:
            base.hosts = other.hosts
        if not base.rows:
            base.rows = other.rows
    return base


def judge(files: list[str | Path], plan: AcceptancePlan | None = None) -> Verdict:
    """The verdict over result files (paths to files; directories are expanded by the caller)."""
    parsed = [parse_file(f) for f in files if not str(f).endswith(".server.txt")]
    j = _Judge(plan)
    tests: list[TestOutcome] = []
    if plan is None:
        for r in parsed:
            j.common(Path(r.file).name, r, None)
            status = (
                "fail"
                if any(f.test == Path(r.file).name and f.severity == "fail" for f in j.findings)
                else "unjudged"
            )
            unit = r.unit or ""
            tests.append(
                TestOutcome(
                    Path(r.file).name,
                    r.tool,
                    r.kind,
                    status,
                    [r.file],
                    [Figure(row.size, row.value, unit, None, None, 1) for row in r.rows],
                )
            )
        return Verdict(datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), None, None, tests, j.findings)
    runs: dict[tuple[str, int, int], list[Result]] = {}
    for r in parsed:
        cid, size, rep = _match(plan, Path(r.file).name)
        if cid is None:
            j.add(
                "RC409",
                "warning",
                Path(r.file).name,
                f"{Path(r.file).name} matches no test of the plan; ignored",
                r.file,
            )
            continue
        runs.setdefault((cid, size, rep), []).append(r)
    merged: dict[str, list[tuple[int, Result]]] = {}
    for (cid, size, _rep), rs in sorted(runs.items()):
        merged.setdefault(cid, []).append((size, _merge(rs)))
    outcomes: dict[str, TestOutcome] = {}
    for case in plan.perftest:
        outcomes[case.id] = j.perftest(case, merged.get(case.id, []))
    for nc in plan.nccl:
        outcomes[nc.id] = j.nccl(nc, [r for _, r in merged.get(nc.id, [])])
    j.pairs(outcomes)
    tests = list(outcomes.values())
    return Verdict(
        datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), plan.fabric, plan.traffic_class, tests, j.findings
    )


__all__ = ["Figure", "Finding", "TestOutcome", "Verdict", "judge"]
