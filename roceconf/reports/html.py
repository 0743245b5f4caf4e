"""``--format html``: one self-contained page per report (drift, health, check, plan) with the fabric map, the
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
from roceconf.names import natural_key
from roceconf.reports import escape
from roceconf.reports.fabricmap import COLORS, DeviceMark, FabricMap, Item, build, mermaid, worst

_SEV = {"error": "critical", "critical": "critical", "warning": "warning", "info": "info"}


# --------------------------------------------------------------------------------------------- adapters
def _marks(report: Any, unread: str, add: Callable[[DeviceMark, Any], list[Any]]) -> dict[str, DeviceMark]:
    """Device -> its mark: unknown (``unread``, the reason) or coloured by the worst of what ``add`` puts on
    it (``add`` returns what it added: the device's items or findings, each with a severity)."""
    marks: dict[str, DeviceMark] = {}
    for d in report.devices:
        m = DeviceMark(status=d.status)
        if d.status == "unknown":
            m.color = "unknown"
            m.items.append(Item("unknown", unread, detail=d.reason or ""))
        found = add(m, d)
        if found:
            m.color = worst({i.severity for i in found})
        marks[d.device] = m
    return marks


def _drift_items(m: DeviceMark, d: Any) -> list[Any]:
    for i in d.items:
        where = " ".join(x for x in (i.interface or "", f"({i.location})" if i.location else "") if x)
        fix = "\n".join(r.commands.strip() for r in d.remediation if i.field in r.fields or not r.fields)
        m.items.append(
            Item(i.severity, i.field, where, f"expected {i.expected!r}, actual {i.actual!r}", i.explanation, fix[:4000])
        )
        if i.interface:
            m.ports[i.interface] = worst({m.ports.get(i.interface, "ok"), i.severity})
    return d.items


def _health_findings(m: DeviceMark, d: Any) -> list[Any]:
    for f in d.findings:
        where = f"{f.port or ''}" + (f" priority {f.priority}" if f.priority is not None else "")
        m.items.append(Item(f.severity, f"{f.rule} {f.title}", where.strip(), f.message, f.impact, f.hint))
        if f.port:
            m.ports[f.port] = worst({m.ports.get(f.port, "ok"), f.severity})
    return d.findings


def drift_map(report: Any, fab: Fabric) -> FabricMap:
    marks = _marks(report, "could not be audited", _drift_items)
    c = report.counts
    summary = (f"{c['devices']} devices: {c['in_sync']} in sync, {c['drift']} drifted, {c['unknown']} unknown — "
               f"{c['critical']} critical, {c['warning']} warning")
    return build(fab, marks, f"roceconf drift — fabric {fab.intent.fabric}", "drift", summary)


def health_map(report: Any, fab: Fabric) -> FabricMap:
    marks = _marks(report, "could not be read", _health_findings)
    n = len(report.findings)
    fmap = build(fab, marks, f"roceconf health — fabric {fab.intent.fabric}", "health",
                 f"{len(report.devices)} devices, {n} finding(s)")
    fmap.charts.append(_rates_chart(report))
    return fmap


def check_map(result: Any, fab: Fabric) -> FabricMap:
    marks: dict[str, DeviceMark] = {n: DeviceMark() for n in fab.devices}
    names = sorted(fab.devices, key=len, reverse=True)
    word = re.compile(r"[A-Za-z0-9_.:/\[\]-]+")
    for dev, reason in result.unreadable.items():
        if dev in marks:
            marks[dev].color = "unknown"
            marks[dev].items.append(Item("unknown", "could not be read", detail=reason))
    for d in result.findings:
        sev = _SEV.get(d.severity, "info")
        tokens = set(word.findall(d.message))
        hit = [n for n in names if n in tokens or any(t.startswith(n + ":") for t in tokens)]
        for n in hit:
            m = marks[n]
            m.items.append(Item(sev, f"{d.code}", f"{d.file}:{d.line}", d.message, "", d.hint))
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
            m.items.append(Item(sev, f"{ch.action} {ch.kind}", ch.object, ch.summary,
                                f"{ch.disruption}: {ch.reason}", ""))
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


# --------------------------------------------------------------------------------------------- charts
_FILL = {"critical": "#c0392b", "warning": "#d69e2e", "info": "#3182ce", "unknown": "#888", "ok": "#38a169"}


def _bars(title: str, rows: list[tuple[str, list[tuple[str, float, str]]]], unit: str) -> str:
    """Horizontal grouped bars: rows of (label, [(series, value, colour)])."""
    if not rows:
        return ""
    top = max((v for _, series in rows for _, v, _ in series), default=0) or 1
    h, w, left = 18, 420, 170
    out = [f'<figure class="chart"><figcaption>{_esc(title)}</figcaption>'
           f'<svg width="{left + w + 90}" height="{len(rows) * (h * 2 + 8) + 10}" role="img">']
    y = 5
    for label, series in rows:
        out.append(f'<text x="0" y="{y + h}" class="lbl">{_esc(label)}</text>')
        for name, v, col in series:
            bw = max(1.0, v / top * w)
            out.append(f'<rect x="{left}" y="{y}" width="{bw:.1f}" height="{h - 3}" fill="{col}">'
                       f'<title>{_esc(name)}: {v:,.0f} {unit}</title></rect>'
                       f'<text x="{left + bw + 4:.1f}" y="{y + h - 6}" class="val">{_esc(name)} {v:,.0f}</text>')
            y += h
        y += 8
    out.append("</svg></figure>")
    return "".join(out)


def _headroom_chart(reports: list[Any]) -> str:
    rows = []
    scored = [r for r in reports if r.budget is not None]
    scored.sort(key=lambda r: (r.margin if r.margin is not None else 0))
    for r in scored[:30]:
        needed = float(r.total or 0)
        col = _FILL["critical"] if (r.margin or 0) < 0 else _FILL["ok"]
        rows.append((r.device, [("needed", needed, col), ("available", float(r.budget or 0), "#718096")]))
    return _bars("PFC headroom needed vs available buffer, bytes (tightest switches first)", rows, "B")


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
_ENV = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
_PAGE = _ENV.from_string(r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ m.title }}</title>
<style>
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1a202c;background:#f7fafc}
header{padding:12px 18px;background:#1a202c;color:#fff}header h1{font-size:18px;margin:0}
header p{margin:4px 0 0;color:#cbd5e0}
.bar{display:flex;gap:14px;align-items:center;flex-wrap:wrap;padding:8px 18px;background:#edf2f7;border-bottom:1px solid #cbd5e0}
.legend span{display:inline-flex;align-items:center;gap:4px;margin-right:10px}
.sw{width:12px;height:12px;border-radius:2px;display:inline-block}
.c-critical{fill:#c0392b;background:#c0392b}.c-warning{fill:#d69e2e;background:#d69e2e}.c-info{fill:#3182ce;background:#3182ce}
.c-unknown{fill:#888;background:#888}.c-ok{fill:#38a169;background:#38a169}
main{display:flex;min-height:70vh}#mapbox{flex:1;overflow:auto;background:#fff}
#details{width:440px;max-width:45vw;border-left:1px solid #cbd5e0;padding:10px 14px;overflow:auto;background:#fff}
svg .dev{cursor:pointer;stroke:#1a202c;stroke-width:.6}svg .dev.sel{stroke:#000;stroke-width:3}
svg .dev.dim{opacity:.12}svg .hit{stroke:#000;stroke-width:3}
svg .links path{fill:none;stroke-width:1}svg .links .l-ok{stroke:#a0aec0;opacity:.5}
svg .links .l-critical{stroke:#c0392b;stroke-width:2.5}svg .links .l-warning{stroke:#d69e2e;stroke-width:2}
svg .links .l-info{stroke:#3182ce;stroke-width:1.5}svg .links .l-unknown{stroke:#888;stroke-dasharray:3 2}
svg text{font-size:10px;fill:#2d3748}svg .tier{font-size:12px;font-weight:600;fill:#4a5568}
table{border-collapse:collapse;width:100%;font-size:12px}td,th{border-bottom:1px solid #e2e8f0;padding:4px;text-align:left;vertical-align:top}
pre{white-space:pre-wrap;background:#f7fafc;padding:4px;margin:2px 0;font-size:11px}
.charts{padding:10px 18px;display:flex;flex-wrap:wrap;gap:24px}.chart figcaption{font-weight:600;margin-bottom:4px}
.chart .lbl,.chart .val{font-size:11px}
</style></head>
<body>
<header><h1>{{ m.title }}</h1><p>{{ m.summary }}{% if m.aggregated %} — hosts that share the same leaves are drawn as one node{% endif %}</p></header>
<div class="bar">
 <div class="legend" id="legend">{% for c in colors %}<span><i class="sw c-{{ c }}"></i>{{ labels[c] }} <b data-legend="{{ c }}">{{ m.counts[c] }}</b></span>{% endfor %}</div>
 <label>severity <select id="fsev"><option value="">all</option>{% for c in colors %}<option value="{{ c }}">{{ labels[c] }}</option>{% endfor %}</select></label>
 <label>platform <select id="fplat"><option value="">all</option>{% for p in platforms %}<option>{{ p }}</option>{% endfor %}</select></label>
 <label>search <input id="q" type="search" placeholder="device name" size="18"></label>
 <span id="qres"></span>
</div>
<main>
<div id="mapbox">
<svg id="map" xmlns="http://www.w3.org/2000/svg" width="{{ m.width|round(1) }}" height="{{ m.height|round(1) }}">
<g class="links">{% for c, d in paths %}<path class="l-{{ c }}" d="{{ d }}"/>{% endfor %}</g>
{% for t, y in tier_rows %}<text class="tier" x="4" y="{{ y - 14 }}">{{ t }}</text>{% endfor %}
<g class="nodes">{% for n in m.nodes %}{% set sz = big[n.tier] %}<rect class="dev c-{{ n.color }}" id="d-{{ loop.index }}" x="{{ n.x - (sz if n.members|length > 1 else sz / 2) }}" y="{{ n.y - sz / 2 }}" width="{{ sz * 2 if n.members|length > 1 else sz }}" height="{{ sz }}" rx="2" data-name="{{ n.id }}" data-label="{{ n.label }}" data-color="{{ n.color }}" data-platform="{{ n.platform }}" data-role="{{ n.role }}" data-count="{{ n.members|length }}" data-members="{{ n.members|join(' ') if n.members|length <= 64 else '' }}"><title>{{ n.label }} ({{ n.platform }})</title></rect>{% if show_labels[n.tier] %}<text x="{{ n.x }}" y="{{ n.y + sz / 2 + 13 }}" text-anchor="middle">{{ n.label }}</text>{% endif %}{% endfor %}</g>
</svg>
</div>
<aside id="details"><p>Click a device to see its findings, with where they are, their impact and the fix.</p></aside>
</main>
<section class="charts">{% for c in m.charts %}{{ c|safe }}{% endfor %}</section>
<script type="application/json" id="data">{{ data|safe }}</script>
<script>
(function(){
var D=JSON.parse(document.getElementById('data').textContent), nodes=[].slice.call(document.querySelectorAll('.dev'));
var det=document.getElementById('details'), sel=null;
function esc(s){return String(s).replace(/[&<>"]/g,function(c){return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c];});}
function show(el){
 if(sel){sel.classList.remove('sel');} sel=el; el.classList.add('sel');
 var members=(el.getAttribute('data-members')||el.getAttribute('data-name')).split(' ').filter(Boolean);
 var h='<h2>'+esc(el.getAttribute('data-label'))+'</h2><p>'+esc(el.getAttribute('data-platform'))+' · '+esc(el.getAttribute('data-role'))+' · '+esc(el.getAttribute('data-color'))+'</p>';
 var any=false;
 members.forEach(function(m){var d=D.devices[m]; if(!d||!d.it.length){return;} any=true;
  h+='<h3>'+esc(m)+(d.st?' — '+esc(d.st):'')+'</h3><table><tr><th>severity</th><th>what</th><th>where</th><th>detail</th></tr>';
  d.it.forEach(function(i){h+='<tr class="item"><td>'+esc(i.s)+'</td><td>'+esc(i.t)+'</td><td>'+esc(i.w)+'</td><td>'+esc(i.d)+(i.i?'<br><i>'+esc(i.i)+'</i>':'')+(i.f?'<pre>'+esc(i.f)+'</pre>':'')+'</td></tr>';});
  h+='</table>';});
 if(!any){h+='<p>No findings.</p>';}
 det.innerHTML=h;
}
nodes.forEach(function(el){el.addEventListener('click',function(){show(el);});});
function filter(){var s=document.getElementById('fsev').value,p=document.getElementById('fplat').value;
 nodes.forEach(function(el){var ok=(!s||el.getAttribute('data-color')===s)&&(!p||el.getAttribute('data-platform').split('/').indexOf(p)>=0);el.classList.toggle('dim',!ok);});}
document.getElementById('fsev').addEventListener('change',filter);document.getElementById('fplat').addEventListener('change',filter);
document.getElementById('q').addEventListener('input',function(){var q=this.value.trim(),n=0,first=null;
 nodes.forEach(function(el){var hit=q&&(el.getAttribute('data-name').indexOf(q)>=0||(el.getAttribute('data-members')||'').split(' ').indexOf(q)>=0||el.getAttribute('data-label').indexOf(q)>=0);el.classList.toggle('hit',!!hit);if(hit){n++;first=first||el;}});
 document.getElementById('qres').textContent=q?n+' match(es)':''; if(first){first.scrollIntoView({block:'center',inline:'center'}); if(n===1){show(first);}}});
document.getElementById('map').dataset.ready='1';
})();
</script>
</body></html>
""")

_LABELS = {"critical": "critical", "warning": "warning", "info": "info", "unknown": "unknown", "ok": "ok"}


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
    data = escape.script_json(_data(fmap))
    plats = sorted({p for n in fmap.nodes for p in n.platform.split("/")}, key=natural_key)
    return _PAGE.render(
        m=fmap,
        colors=COLORS,
        labels=_LABELS,
        paths=[(c, "".join(segs[c])) for c in order],
        tier_rows=tier_rows,
        show_labels={t: per_tier[t] <= 60 for t in tiers},
        big={t: 18 if per_tier[t] <= 60 else 10 for t in tiers},
        data=data,
        platforms=plats,
    )


def _data(fmap: FabricMap) -> dict[str, Any]:
    from roceconf.reports.fabricmap import to_data

    return to_data(fmap)


__all__ = ["check_map", "drift_map", "health_map", "mermaid", "mermaid_block", "plan_map", "render"]
