"""Rendering the devices of one intent entry once (hostname substituted) gives the same bytes as rendering
each, and falls back to rendering each where a template does not insert the hostname verbatim."""

from __future__ import annotations

from pathlib import Path

import pytest

from roceconf import render as render_mod
from roceconf.compile import output_name, render_fabric
from roceconf.intent import load
from roceconf.intent.desired import desired_states, shape
from roceconf.render import ShapeRenderer, render_state

POD = Path(__file__).parent.parent / "inventories" / "pod" / "intent.yml"


def test_pod_render_equals_rendering_every_device() -> None:
    fab = load(POD)
    states = desired_states(fab)
    files = render_fabric(fab)
    assert len(files) == len(states)
    for name, state in states.items():
        assert files[output_name(name, state.platform)] == render_state(state), name


def test_a_template_that_changes_the_hostname_is_rendered_per_device(monkeypatch: pytest.MonkeyPatch) -> None:
    fab = load(POD)
    states = desired_states(fab)
    real = render_mod.render_state
    # a template that derives text from the hostname (not verbatim): substitution must be disproved
    monkeypatch.setattr(render_mod, "render_state", lambda st: real(st) + f"# {st.hostname.upper()}\n")
    r = ShapeRenderer()
    leaves = [n for n in states if n.startswith("leaf") and fab.devices[n].platform == "eos"]
    for n in leaves:
        assert r.render(shape(fab.devices[n]), states[n]) == real(states[n]) + f"# {n.upper()}\n"


def test_a_hostname_outside_the_plain_set_is_rendered_for_real() -> None:
    fab = load(POD)
    st = next(iter(desired_states(fab).values()))
    r = ShapeRenderer()
    for i in range(4):
        odd = st.model_copy(update={"hostname": f"a b{i}"})
        assert r.render("k", odd) == render_state(odd)


def test_plan_diffs_equal_diffing_every_device(tmp_path: Path) -> None:
    from roceconf.plan import plan_specs
    from roceconf.plan.build import _unified

    new = tmp_path / "intent.yml"
    new.write_text(POD.read_text().replace("max: 1500KB", "max: 1200KB", 1))
    plan = plan_specs(str(POD), str(new))
    assert len(plan.devices) == 40  # 32 EOS leaves, 8 NVUE spines (the SONiC leaves have their own ECN)
    old_states, new_states = desired_states(load(POD)), desired_states(load(new))
    for d in plan.devices:
        text, added, removed = _unified(
            render_state(old_states[d.device]), render_state(new_states[d.device]), d.old_file, d.new_file
        )
        assert (d.diff, d.added_lines, d.removed_lines) == (text, added, removed), d.device
