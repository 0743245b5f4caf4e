"""The cabling report as text, JSON, Markdown, JUnit and Prometheus (the shared writers of ``roceconf.reports``).

A link check not observable on a platform is ``n/a`` in every format, never ``ok`` nor ``unknown``: text and
Markdown say so once per platform and check (RC519) and name the ends with no observable check at all, JSON
has it on each check and in ``not_observable``, JUnit skips the rule's case with the reason, Prometheus writes
no status sample for it (``roceconf_cabling_not_observable{platform,check}`` says which).

Device text (system names, port IDs) is escaped by the writer of each format: it can never become markup,
a terminal sequence or invalid XML.
"""

from __future__ import annotations

import json
from collections import Counter

from roceconf.cabling.linkhealth import EndHealth
from roceconf.cabling.rules import ALL, LINK_RULES, R_NOT_OBSERVABLE, R_UNREAD
from roceconf.cabling.verdict import CablingReport, LinkVerdict
from roceconf.reports import junit
from roceconf.reports.escape import plain
from roceconf.reports.scaffold import count, device_section, md_cell, overview_rows


def to_json(report: CablingReport) -> str:
    return json.dumps(report.to_dict(), indent=2) + "\n"


def _summary(report: CablingReport) -> str:
    c = report.counts
    return (f"{c['links']} links: {c['ok']} ok, {c['fail']} with findings, {c['unknown']} unknown; "
            f"{c['devices']} devices, {c['unknown_devices']} not read; {c['error']} errors, {c['warning']} warnings")


def _end_why(end: EndHealth | None) -> list[str]:
    """The checks of one end that are neither ok nor n/a, in words."""
    if end is None:
        return ["not judged"]
    by: dict[tuple[str, str], list[str]] = {}
    for k, c in end.checks.items():
        if c.status not in ("ok", "n/a"):
            by.setdefault((c.status, c.reason or ""), []).append(k)
    return [f"{', '.join(ks)} {st}" + (f" ({why})" if why else "") for (st, why), ks in by.items()]


def link_why(li: LinkVerdict) -> str:
    """What keeps a link's joint verdict from ok, in words ("" when ok or LLDP only)."""
    if li.parts is None or li.status == "ok":
        return ""
    out = []
    for part, v in li.parts.items():
        st = v if isinstance(v, str) else v["status"]
        if st in ("ok", "n/a"):
            continue
        if part == "link_health":
            ends = [f"{name} {', '.join(_end_why(v[k]))}" for k, name in (("a", li.a), ("b", li.b))
                    if v[k] is None or v[k].status not in ("ok", "n/a")]
            out.append(f"link health {st}: " + "; ".join(ends))
        elif isinstance(v, dict):
            out.append(f"{part} {st} (a {v['a']}, b {v['b']})")
        else:
            out.append(f"{part} {st}")
    return "; ".join(out)


def _unknown_causes(li: LinkVerdict) -> set[str]:
    """Why a link is unknown, one phrase per cause (not naming the link), to count them across links."""
    out: set[str] = set()
    for part, v in (li.parts or {}).items():
        st = v if isinstance(v, str) else v["status"]
        if st in ("ok", "fail", "n/a"):
            continue
        if part == "link_health":
            for k in ("a", "b"):
                e = v[k]
                if e is None:
                    out.add("link health: an end not judged")
                    continue
                out.update(f"{name} unknown: {c.reason}" for name, c in e.checks.items() if c.status == "unknown")
        else:
            out.add(f"{part} unknown")
    return out


def blind_ends(report: CablingReport) -> list[tuple[str, list[str], int]]:
    """(platform, its devices, ends) for the ends with no observable link check at all (link health n/a)."""
    by: dict[str, tuple[list[str], int]] = {}
    platform = {d.device: d.platform for d in report.devices}
    for (dev, _port), e in report.link.ends.items():
        if e.status == "n/a":
            devs, k = by.get(platform.get(dev, "?"), ([], 0))
            by[platform.get(dev, "?")] = (devs if dev in devs else [*devs, dev], k + 1)
    return [(p, devs, k) for p, (devs, k) in sorted(by.items())]


def to_text(report: CablingReport) -> str:
    out = [plain(f"roceconf cabling: {report.intent} ({report.source})")]
    for f in report.findings:
        out.append(plain(f"{f.device}:{f.port or '-'}: {f.severity}[{f.rule}]: {f.message}"))
    if report.link is not None:
        unknown: Counter[str] = Counter()
        for li in report.links:
            if li.status == "fail":
                out.append(plain(f"link {li.a} - {li.b}: {li.status}: {link_why(li)}"))
            elif li.status == "unknown":
                unknown.update(_unknown_causes(li))
        if unknown:
            n = sum(li.status == "unknown" for li in report.links)
            # most links first, ties by the cause's words (not by a set's order, which varies between runs)
            top = "; ".join(f"{why} ({k} link(s))" for why, k in sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))[:6])
            more = f"; and {len(unknown) - 6} other cause(s)" if len(unknown) > 6 else ""
            out.append(plain(f"{n} link(s) unknown (each is listed in the JSON and Markdown reports): {top}{more}"))
        for g in report.link.groups:
            if g.status == "unknown":
                out.append(plain(f"ECMP {g.device} (tier {g.tier} -> {g.tier + 1}): unknown: {g.reason}"))
        for n in report.link.not_observable:
            out.append(plain(f"{n.platform}: {R_NOT_OBSERVABLE.severity}[{R_NOT_OBSERVABLE.id}]: {n.message}"))
        for platform, devs, k in blind_ends(report):
            out.append(plain(f"{platform}: link health n/a on {k} link end(s) of {', '.join(devs)}: no link check "
                             f"is observable on {platform} (RC519)"))
    out.append(_summary(report))
    return "\n".join(out) + "\n"


def to_markdown(report: CablingReport) -> str:
    icon = {"read": "✅", "unknown": "❓"}
    out = overview_rows(
        "roceconf cabling report",
        report,
        _summary(report) + ".",
        (
            (d.device, d.platform, f"{icon[d.status]} {d.status}",
             count([f for f in report.findings if f.device == d.device], "error"),
             count([f for f in report.findings if f.device == d.device], "warning"), d.reason or "")
            for d in report.devices
        ),
    )
    for d in report.devices:
        mine = [f for f in report.findings if f.device == d.device and f.rule != R_UNREAD.id]
        if not mine:
            continue
        out += device_section(d.device, d.platform, "severity", "rule", "port", "finding", "expected", "observed")
        for f in mine:
            out.append(f"| {f.severity} | {f.rule} | {md_cell(f.port or '-')} | {md_cell(f.message)} | "
                       f"{md_cell(f.expected or '-')} | {md_cell(f.observed or '-')} |")
    if report.link is not None:
        out += _md_links(report)
    return "\n".join(out) + "\n"


ICON = {"ok": "✅", "fail": "❌", "unknown": "❓", "n/a": "➖"}


def _md_links(report: CablingReport) -> list[str]:
    icon = ICON
    parts = ["cabling", "link_health", *report.joined]
    out = ["", "## Links", "", "| link | verdict | " + " | ".join(p.replace("_", " ") for p in parts) + " | why |",
           "|" + "---|" * (len(parts) + 3)]
    for li in report.links:
        cells = []
        for p in parts:
            v = (li.parts or {}).get(p, "unknown")
            st = v if isinstance(v, str) else v["status"]
            na = [k for k in ("a", "b") if p == "link_health" and st != "n/a" and v[k] is not None and v[k].status == "n/a"]
            cells.append(f"{icon[st]} {st}" + "".join(f" ({k} n/a)" for k in na))
        out.append(f"| {md_cell(li.a + ' - ' + li.b)} | {icon[li.status]} {li.status} | " + " | ".join(cells)
                   + f" | {md_cell(link_why(li) or '-')} |")
    if report.link.groups:
        out += ["", "## ECMP toward the next tier", "", "| device | tier | members | max/mean | CV | verdict |",
                "|---|---|---|---|---|---|"]
        for g in report.link.groups:
            mm = "-" if g.max_over_mean is None else f"{g.max_over_mean:.2f}"
            cv = "-" if g.cv is None else f"{g.cv:.2f}"
            st = {"finding": "fail"}.get(g.status, g.status)
            out.append(f"| {md_cell(g.device)} | {g.tier} | {len(g.members)} | {mm} | {cv} | {icon[st]} {g.status}"
                       + (f": {md_cell(g.reason)}" if g.reason else "") + " |")
    if report.link.not_observable:
        out += ["", f"## Not observable ({R_NOT_OBSERVABLE.id}, {R_NOT_OBSERVABLE.severity})", "",
                "Each check below is ➖ n/a on its platform: no sourced counter is read there. It counts neither "
                "as ok nor as unknown.", "", "| platform | check | counter | n/a on | devices |", "|---|---|---|---|---|"]
        for n in report.link.not_observable:
            what = "ECMP group(s)" if n.check == "ecmp" else "link end(s)"
            out.append(f"| {md_cell(n.platform)} | {n.check} | {n.counter} | {n.count} {what} | "
                       f"{md_cell(', '.join(n.devices))} |")
        for platform, devs, k in blind_ends(report):
            out.append(f"\n{md_cell(platform)}: link health ➖ n/a on {k} link end(s) of {md_cell(', '.join(devs))} "
                       "(no link check is observable there).")
    return out


def to_junit(report: CablingReport) -> str:
    """One suite per device, one case per rule; failures for findings, an error case for an unread device."""
    root = junit.suites("roceconf cabling")
    rules = ALL if report.link is None else (*ALL, *LINK_RULES)
    for d in report.devices:
        suite = junit.suite(root, d.device, hostname=d.platform)
        tests = failures = errors = 0
        for r in rules:
            if r.id == R_UNREAD.id:
                continue
            tests += 1
            case = junit.case(suite, f"roceconf.cabling.{d.device}", f"{r.id} {r.title}")
            if r in LINK_RULES:
                state = _link_case(report, d.device, r.id)
                if state is not None and state[0] == "skipped":
                    junit.skipped(case, state[1])
                    continue
                unread = state[1] if state is not None else None
            else:
                unread = d.reason if d.status == "unknown" else None
            if unread is not None:
                errors += 1
                junit.error(case, f"not read: {unread}", "unknown")
                continue
            bad = [f for f in report.findings if f.device == d.device and f.rule == r.id]
            if bad:
                failures += 1
                junit.failure(case, f"{len(bad)} finding(s)", r.severity,
                              "\n".join(f"{f.port or '-'}: {f.message}" for f in bad))
        junit.totals(suite, tests, failures, errors)
    return junit.finish(root)


def _link_case(report: CablingReport, device: str, rule: str) -> tuple[str, str] | None:
    """How a link rule's case of a device ends when it is not judged on every end / group: ("error", why it
    could not be judged), ("skipped", why it does not apply or is not observable on the platform, RC519), or None
    (judged: pass or fail on its findings)."""
    from roceconf.cabling.linkhealth import CHECKS

    lh = report.link
    if any(f.device == device and f.rule == rule for f in report.findings):
        return None
    if rule == "RC520":
        mine = [g for g in lh.groups if g.device == device]
        why = [g.reason or "" for g in mine if g.status == "unknown"]
        if not mine:
            return "skipped", "no ECMP group toward a next tier in the intent"
        if all(g.status == "n/a" for g in mine):
            return "skipped", f"{R_NOT_OBSERVABLE.id} n/a: {mine[0].reason}"
        return ("error", "; ".join(why)) if why else None
    check = next(k for k, (_c, r) in CHECKS.items() if r.id == rule)
    ends = {p: e for (dv, p), e in lh.ends.items() if dv == device}
    if not ends:
        return "skipped", "no link end of the intent on this device"
    na = [e.checks[check] for e in ends.values() if e.checks[check].status == "n/a"]
    if len(na) == len(ends):
        return "skipped", f"{R_NOT_OBSERVABLE.id} n/a: {na[0].reason}"
    why = [f"{p}: {e.checks[check].reason}" for p, e in ends.items() if e.checks[check].status == "unknown"]
    if not why:
        return None
    return "error", "; ".join(why[:3]) + (f" (and {len(why) - 3} more)" if len(why) > 3 else "")


def to_prometheus(report: CablingReport) -> str:
    from roceconf.cabling.prometheus import exposition

    return exposition(report)


FORMATS = {"text": to_text, "json": to_json, "junit": to_junit, "markdown": to_markdown, "prometheus": to_prometheus}


def format_report(report: CablingReport, fmt: str) -> str:
    return FORMATS[fmt](report)


__all__ = ["FORMATS", "format_report", "to_json", "to_junit", "to_markdown", "to_prometheus", "to_text"]
