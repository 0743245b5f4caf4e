"""``--format html``: one self-contained page per report (drift, health, check, plan, cabling) with the fabric map, the
findings of every device on click, a filter by severity and platform, search by name, and charts.

Everything is inline (CSS, a small vanilla script, SVG drawn here); the page needs no network. Values from
devices and intents are HTML-escaped by Jinja2's autoescape; the embedded JSON has ``</`` escaped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment

from roceconf.intent import Fabric
from roceconf.intent.rules import RULES
from roceconf.names import natural_key
from roceconf.reports import escape
from roceconf.reports.causes import compress, remediation_for
from roceconf.reports.fabricmap import (
    COLORS,
    RANK,
    ROW_NODES,
    DeviceMark,
    EcmpMark,
    FabricMap,
    Item,
    build,
    labels_fit,
    mermaid,
    worst,
)
from roceconf.reports.scaffold import shown

_SEV = {"error": "critical", "critical": "critical", "warning": "warning", "info": "info"}


# --------------------------------------------------------------------------------------------- adapters
def _marks(
    report: Any, unread: str, add: Callable[[DeviceMark, Any], list[Any]], port: Callable[[Any], str | None]
) -> dict[str, DeviceMark]:
    """Device -> its mark: unknown (``unread``, the reason), its rows (``add`` puts them on the mark and returns
    the device's items or findings), each port (``port`` of an item) and the device coloured by the worst."""
    marks: dict[str, DeviceMark] = {}
    for d in report.devices:
        m = DeviceMark(status=d.status)
        if d.status == "unknown":
            m.color = "unknown"
            m.items.append(Item("unknown", unread, detail=d.reason or "", rule="unread"))
        found = add(m, d)
        for x in found:
            if p := port(x):
                m.ports[p] = worst({m.ports.get(p, "ok"), x.severity})
        if found:
            m.color = worst({x.severity for x in found})
        marks[d.device] = m
    return marks


def _drift_rows(m: DeviceMark, d: Any) -> list[Any]:
    """A row per cause (`roceconf.reports.causes`); the device's items."""
    for cause in d.causes:
        where = cause.where + (f" ({', '.join(cause.locations[:3])})" if cause.locations else "")
        fix = "\n".join(d.remediation[n].commands.strip() for n in remediation_for(cause, d.remediation))
        m.items.append(Item(cause.severity, cause.what(shown), where.strip(), f"{len(cause.ports)} port(s)"
                            if len(cause.ports) > 1 else "", cause.explanation, fix[:4000], cause.feature))
    return d.items


def _health_rows(m: DeviceMark, d: Any) -> list[Any]:
    """A row per cause (`roceconf.health.evaluate.Cause`): a rule firing on a range of ports is one finding; the
    device's findings."""
    for x in d.causes:
        where = x.where + (f" priority {x.priority}" if x.priority is not None else "")
        m.items.append(Item(x.severity, x.title, where.strip(), x.message, x.impact, x.hint, x.rule))
    return d.findings


def drift_map(report: Any, fab: Fabric) -> FabricMap:
    marks = _marks(report, "could not be audited", _drift_rows, lambda i: i.interface)
    c = report.counts
    summary = (f"{c['devices']} devices: {c['in_sync']} in sync, {c['drift']} drifted, {c['unknown']} unknown — "
               f"{c['findings']} finding(s) on {c['ports']} port(s): {c['critical']} critical, {c['warning']} warning")
    return build(fab, marks, f"roceconf drift — fabric {fab.intent.fabric}", "drift", summary)


def health_map(report: Any, fab: Fabric) -> FabricMap:
    marks = _marks(report, "could not be read", _health_rows, lambda f: f.port)
    n = len(report.findings)
    causes = sum(len(m.items) for m in marks.values() if m.color != "unknown")
    fmap = build(fab, marks, f"roceconf health — fabric {fab.intent.fabric}", "health",
                 f"{len(report.devices)} devices, {causes} finding(s) ({n} per port)")
    fmap.charts.append(_rates_chart(report))
    return fmap


def check_map(result: Any, fab: Fabric) -> FabricMap:
    marks: dict[str, DeviceMark] = {n: DeviceMark() for n in fab.devices}
    names = sorted(fab.devices, key=len, reverse=True)
    word = re.compile(r"[A-Za-z0-9_.:/\[\]-]+")
    for dev, reason in result.unreadable.items():
        if dev in marks:
            marks[dev].color = "unknown"
            marks[dev].items.append(Item("unknown", "could not be read", detail=reason, rule="unread"))
    for d in result.findings:
        sev = _SEV.get(d.severity, "info")
        tokens = set(word.findall(d.message))
        hit = [n for n in names if n in tokens or any(t.startswith(n + ":") for t in tokens)]
        for n in hit:
            m = marks[n]
            m.items.append(Item(sev, d.message, f"{d.file}:{d.line}", "", "", d.hint, d.code))
            m.color = worst({m.color, sev})
            for t in tokens:
                if t.startswith(n + ":"):
                    port = t[len(n) + 1 :].rstrip(".,;:)")
                    m.ports[port] = worst({m.ports.get(port, "ok"), sev})
    s = result.to_dict()["summary"]
    fmap = build(fab, marks, f"roceconf check — fabric {fab.intent.fabric}", "check",
                 f"{s['devices']} devices, {s['links']} links: {s['error']} error(s), {s['warning']} warning(s)")
    fmap.charts.append(_headroom_chart(result.headroom))
    return fmap


_RISK = {"high": "critical", "medium": "warning", "low": "info"}


def plan_map(plan: Any, fab: Fabric) -> FabricMap:
    marks: dict[str, DeviceMark] = {n: DeviceMark() for n in fab.devices}
    for ch in plan.changes:
        sev = _RISK.get(ch.risk, "info")
        for dev in ch.devices:
            if dev not in marks:
                continue
            m = marks[dev]
            m.items.append(Item(sev, f"{ch.action} {ch.object}: {ch.summary}", ", ".join(compress(ch.interfaces.get(dev, []))),
                                "", f"{ch.disruption}: {ch.reason}", "", ch.kind))
            m.color = worst({m.color, sev})
            for port in ch.interfaces.get(dev, []):
                m.ports[port] = worst({m.ports.get(port, "ok"), sev})
    c = plan.counts
    fmap = build(fab, marks, f"roceconf plan — fabric {fab.intent.fabric}: {Path(plan.old.source).name} → "
                 f"{Path(plan.new.source).name}", "plan",
                 f"{c.add} to add, {c.change} to change, {c.remove} to remove on {c.devices} device(s); "
                 f"worst disruption: {plan.disruption or 'none'}")
    fmap.charts.append(_blast_chart(fmap))
    return fmap


#: a cabling link verdict -> its colour on the map (a failed link takes its worst finding's severity)
_VERDICT = {"ok": "ok", "unknown": "unknown"}


def cabling_map(report: Any, fab: Fabric) -> FabricMap:
    """The cabling report (``roceconf.cabling.verdict.CablingReport``) on the map: every link drawn in its
    verdict's colour (a failed link in its worst finding's severity, an unknown link grey: never green), each
    device in its worst finding's, grey when its LLDP neighbours or its link counters could not be read. A
    link check not observable on a platform (n/a, RC519) colours nothing: the summary names them per platform."""
    marks: dict[str, DeviceMark] = {}
    unread = dict(report.link.unread) if report.link is not None else {}
    for d in report.devices:
        m = marks[d.device] = DeviceMark(status=d.status)
        if d.status == "unknown":
            m.color = "unknown"
            m.items.append(Item("unknown", "LLDP neighbours could not be read", detail=d.reason or "", rule="RC505"))
        elif d.device in unread:
            m.color = "unknown"
            m.items.append(Item("unknown", "link counters could not be read", detail=unread[d.device],
                                rule="counters"))
    for f in report.findings:
        if f.device not in marks or f.rule == "RC505":
            continue
        sev = _SEV.get(f.severity, "info")
        m = marks[f.device]
        r = RULES.get(f.rule)
        seen = "; ".join(x for x in (f"expected {f.expected}" if f.expected else "",
                                     f"observed {f.observed}" if f.observed else "") if x)
        m.items.append(Item(sev, f.message, f.port or "", seen, r.why if r else "", r.hint if r else "", f.rule))
        m.color = worst({m.color, sev})
    by_end: dict[tuple[str, str], str] = {}
    for f in report.findings:
        if f.port:
            by_end[(f.device, f.port)] = worst({by_end.get((f.device, f.port), "ok"), _SEV.get(f.severity, "info")})
    for li in report.links:
        ends = li.ends or (tuple(li.a.split(":", 1)), tuple(li.b.split(":", 1)))
        if li.status == "fail":
            color = worst({by_end.get(e, "ok") for e in ends} - {"ok"} or {"critical"})
        else:
            color = _VERDICT.get(li.status, "unknown")
        for dev, port in ends:
            if dev in marks:
                marks[dev].ports[port] = worst({marks[dev].ports.get(port, "ok"), color})
    na = ""
    if report.link is not None and report.link.not_observable:
        per: dict[str, list[str]] = {}
        for n in report.link.not_observable:
            per.setdefault(n.platform, []).append(n.check)
        na = "; n/a, not observable (RC519): " + "; ".join(f"{p} {', '.join(ks)}" for p, ks in per.items())
    c = report.counts
    fmap = build(fab, marks, f"roceconf cabling — fabric {fab.intent.fabric}", "cabling",
                 f"{c['links']} links: {c['ok']} ok, {c['fail']} with findings, {c['unknown']} unknown; "
                 f"{c['devices']} devices, {c['unknown_devices']} not read; {c['error']} error(s), "
                 f"{c['warning']} warning(s){na}")
    if report.link is not None:
        fmap.ecmp = [EcmpMark(g.device, g.status, _ECMP.get(g.status, "unknown"), g.reason, g.max_over_mean, g.cv,
                              [(p, peer, rate) for p, (peer, rate) in g.members.items()])
                     for g in report.link.groups if g.device in fab.devices]
    return fmap


#: an ECMP group's verdict -> its colour on the map (RC520 is a warning; n/a colours nothing)
_ECMP = {"ok": "ok", "finding": "warning", "unknown": "unknown", "n/a": "na"}


def _ecmp_paths(fmap: FabricMap) -> list[tuple[str, str, str, str]]:
    """Each ECMP group's member links as one SVG path: (device, colour, path, the group's one-line title)."""
    pos = {m: (n.x, n.y) for n in fmap.nodes for m in n.members}
    out = []
    for g in fmap.ecmp:
        if g.device not in pos:
            continue
        x1, y1 = pos[g.device]
        d = "".join(f"M{x1},{y1}L{pos[peer][0]},{pos[peer][1]}" for _p, peer, _r in g.members
                    if peer in pos and pos[peer] != (x1, y1))
        spread = (f", max/mean {g.max_over_mean:.2f}, CV {g.cv:.2f}" if g.max_over_mean is not None and g.cv is not None
                  else "")
        title = escape.plain(f"ECMP group of {g.device} ({len(g.members)} links): {g.status}{spread}")
        out.append((g.device, g.color, d, title))
    return out


# --------------------------------------------------------------------------------------------- charts
_FILL = {"critical": "#c0392b", "warning": "#d69e2e", "info": "#3182ce", "unknown": "#888", "ok": "#38a169"}


def _bars(title: str, rows: list[tuple[str, list[tuple[str, float | None, str]]]], unit: str) -> str:
    """Horizontal grouped bars: rows of (label, [(series, value, colour)]); a value None is unknown."""
    if not rows:
        return ""
    top = max((v for _, series in rows for _, v, _ in series if v is not None), default=0) or 1
    h, w, left = 18, 420, 170
    out = [f'<figure class="chart"><figcaption>{_esc(title)}</figcaption>'
           f'<svg width="{left + w + 130}" height="{len(rows) * (h * 2 + 8) + 10}" role="img">'
           '<defs><pattern id="unk" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
           '<rect width="6" height="6" fill="#e2e8f0"/><rect width="3" height="6" fill="#a0aec0"/></pattern></defs>']
    y = 5
    for label, series in rows:
        out.append(f'<text x="0" y="{y + h}" class="lbl">{_esc(label)}</text>')
        for name, v, col in series:
            if v is None:
                out.append(f'<rect class="unknown" x="{left}" y="{y}" width="{w / 3:.1f}" height="{h - 3}" '
                           f'fill="url(#unk)" stroke="#718096" stroke-dasharray="3 2"><title>{_esc(name)}: unknown'
                           f'</title></rect><text x="{left + w / 3 + 4:.1f}" y="{y + h - 6}" class="val">'
                           f'{_esc(name)} unknown</text>')
            else:
                bw = max(1.0, v / top * w)
                out.append(f'<rect x="{left}" y="{y}" width="{bw:.1f}" height="{h - 3}" fill="{col}">'
                           f'<title>{_esc(name)}: {v:,.0f} {unit}</title></rect>'
                           f'<text x="{left + bw + 4:.1f}" y="{y + h - 6}" class="val">{_esc(name)} {v:,.0f}</text>')
            y += h
        y += 8
    out.append("</svg></figure>")
    return "".join(out)


def _headroom_chart(reports: list[Any]) -> str:
    """Needed against available buffer per switch, tightest first; a need or a budget that cannot be worked
    out is drawn as an unknown (grey, hatched, labelled "unknown"), never as 0."""
    rows = []

    def need(r: Any) -> float | None:
        unknown = r.unknown or any(p.required is None for p in getattr(r, "rows", []))
        return None if unknown else float(r.total or 0)

    shown = [r for r in reports if r.budget is not None or getattr(r, "rows", None)]
    shown.sort(key=lambda r: (0 if (r.margin or 0) < 0 else 1 if need(r) is None or r.budget is None else 2,
                              r.margin if r.margin is not None else 0))
    for r in shown[:30]:
        n = need(r)
        col = _FILL["critical"] if (r.margin or 0) < 0 else _FILL["ok"]
        rows.append((r.device, [("needed", n, col), ("available", None if r.budget is None else float(r.budget),
                                                     "#718096")]))
    return _bars("PFC headroom needed vs available buffer, bytes (tightest switches first; unknown when a "
                 "parameter is not known)", rows, "B")


def _blast_chart(fmap: FabricMap) -> str:
    per: dict[str, dict[str, float]] = {}
    for n in fmap.nodes:
        tier = fmap.tiers.get(n.tier, str(n.tier))
        for m in n.members:
            col = fmap.marks.get(m, DeviceMark()).color
            if col != "ok":
                per.setdefault(tier, {}).setdefault(col, 0.0)
                per[tier][col] += 1
    rows = [(tier, [(c, v, _FILL[c]) for c, v in sorted(cols.items(), key=lambda x: COLORS.index(x[0]))])
            for tier, cols in per.items()]
    return _bars("Blast radius: devices changed per tier, by risk", rows, "devices")


def _rates_chart(report: Any) -> str:
    """Rates per port over the samples for the ports with findings (the counters each finding names)."""
    lines = []
    for d in report.devices:
        for p in d.ports.values():
            for f in p.findings[:1]:
                pts = []
                for iv in p.intervals:
                    vals = [iv.prio.get(c, {}).get(f.priority, iv.port.get(c)) if f.priority is not None
                            else iv.port.get(c) for c in f.counters]
                    vals = [v for v in vals if v is not None]
                    pts.append(sum(vals) if vals else 0.0)
                if len(pts) >= 1:
                    lines.append((f"{d.device} {p.port} {','.join(f.counters)}", pts, _FILL.get(f.severity, "#333")))
    if not lines:
        return ""
    lines = lines[:20]
    w, h = 260, 40
    out = ['<figure class="chart"><figcaption>Counter rates per port over the samples (per second)</figcaption>'
           f'<svg width="{w + 380}" height="{len(lines) * (h + 10) + 10}" role="img">']
    for i, (label, pts, col) in enumerate(lines):
        y0 = 5 + i * (h + 10)
        top = max(pts) or 1
        step = w / max(1, len(pts) - 1) if len(pts) > 1 else 0
        path = " ".join(f"{'M' if j == 0 else 'L'}{j * step:.1f},{y0 + h - v / top * h:.1f}" for j, v in enumerate(pts))
        if len(pts) == 1:
            path += f" L{w:.1f},{y0 + h - pts[0] / top * h:.1f}"
        out.append(f'<path d="{path}" stroke="{col}" fill="none" stroke-width="2"><title>{_esc(label)}</title></path>'
                   f'<text x="{w + 10}" y="{y0 + h / 2 + 4}" class="lbl">{_esc(label)} (max {top:,.1f}/s)</text>')
    out.append("</svg></figure>")
    return "".join(out)


def mermaid_block(fmap: FabricMap, cap: int = 30) -> str:
    """The Mermaid diagram of what a drift or plan touches, as a Markdown section ("" when nothing is)."""
    diagram = mermaid(fmap, cap)
    return f"\n### Devices touched\n\n{diagram}" if diagram else ""


def _esc(s: Any) -> str:
    return (str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))


# --------------------------------------------------------------------------------------------- page
_ASSETS = Path(__file__).resolve().parent.parent / "data"
_ENV = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
_LABELS = {"critical": "critical", "warning": "warning", "info": "info", "unknown": "unknown", "ok": "ok"}


def _asset(*parts: str) -> str:
    return (_ASSETS.joinpath(*parts)).read_text(encoding="utf-8")


def _panzoom() -> str:
    """svg-pan-zoom (roceconf/data/vendor/svg-pan-zoom: BSD-2-Clause, PROVENANCE.md) without its address lines."""
    code = _asset("vendor", "svg-pan-zoom", "svg-pan-zoom.min.js")
    body = "\n".join(line for line in code.splitlines() if not line.startswith("//"))
    return ("/* svg-pan-zoom 3.6.2, Copyright 2009-2010 Andrea Leofreddi and the svg-pan-zoom contributors; "
            "BSD-2-Clause licence (roceconf/data/vendor/svg-pan-zoom/LICENSE) */\n" + body)


def rows(fmap: FabricMap) -> list[dict[str, Any]]:
    """The findings table: one row per item of every device, worst first, then by device. Its text is one
    line each, control characters as visible escapes (`escape.plain`); Jinja escapes the markup."""
    out: list[dict[str, Any]] = []
    for i, n in enumerate(fmap.nodes):
        for m in n.members:
            mark = fmap.marks.get(m)
            if mark is None:
                continue
            plat = fmap.platform_of.get(m, n.platform)
            for it in mark.items:
                out.append({"s": it.severity, "rank": RANK.get(it.severity, 9), "dev": m, "plat": plat,
                            "rule": escape.plain(it.rule), "where": escape.plain(it.where),
                            "what": escape.plain(it.title), "node": i})
    out.sort(key=lambda r: (r["rank"], natural_key(r["dev"])))
    for k, r in enumerate(out):
        r["i"] = k
    return out


def render(fmap: FabricMap) -> str:
    """The page of a fabric map."""
    pos = {n.id: (n.x, n.y) for n in fmap.nodes}
    segs: dict[str, list[str]] = {}
    for a, b, c, _k in fmap.links:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        segs.setdefault(c, []).append(f"M{x1},{y1}L{x2},{y2}")
    order = sorted(segs, key=lambda c: -COLORS.index(c))  # ok first, critical drawn on top
    tiers = sorted({n.tier for n in fmap.nodes}, reverse=True)
    tier_rows = [(fmap.tiers.get(t, str(t)), next(n.y for n in fmap.nodes if n.tier == t)) for t in tiers]
    per_tier = {t: sum(1 for n in fmap.nodes if n.tier == t) for t in tiers}
    by_tier = {t: [n for n in fmap.nodes if n.tier == t] for t in tiers}
    plats = sorted({p for n in fmap.nodes for p in n.platform.split("/")}, key=natural_key)
    table = rows(fmap)
    return _ENV.from_string(_asset("html", "page.html.j2")).render(
        m=fmap,
        colors=COLORS,
        labels=_LABELS,
        paths=[(c, "".join(segs[c])) for c in order],
        ecmp=_ecmp_paths(fmap),
        tier_rows=tier_rows,
        show_labels={t: labels_fit(by_tier[t], _step(fmap, by_tier[t])) for t in tiers},
        big={t: 18 if per_tier[t] <= 60 else 10 for t in tiers},
        data=escape.script_json(_data(fmap)),
        platforms=plats,
        rules=sorted({r["rule"] for r in table if r["rule"]}, key=natural_key),
        rows=table,
        css=_asset("html", "page.css"),
        panzoom=_panzoom(),
        script=_asset("html", "page.js"),
    )


def _step(fmap: FabricMap, nodes: list[Any]) -> float:
    """The distance between two nodes of a row of the tier (`fabricmap.build`'s layout)."""
    rows = -(-len(nodes) // ROW_NODES)
    return (fmap.width - 80) / max(1, -(-len(nodes) // rows))


def _data(fmap: FabricMap) -> dict[str, Any]:
    from roceconf.reports.fabricmap import to_data

    return to_data(fmap)


__all__ = ["cabling_map", "check_map", "drift_map", "health_map", "mermaid", "mermaid_block", "plan_map", "render"]
