"""Every rendered SONiC CONFIG_DB fragment, loaded as `config load` would, is valid for SONiC's own YANG.

Oracle: sonic-net/sonic-buildimage src/sonic-yang-models (vendor-models/sonic-yang), validated with Debian's
`yanglint -t config` after translation to YANG JSON as sonic_yang_ext.py does
(roceconf/platforms/sonic/yang.py). Each fragment is merged onto a base PORT table of the ports it names
(`config load` merges into a running CONFIG_DB). Corpus: the lab and pod intents, every test intent that
renders a SONiC device, the golden and fixture renders, and 200 generated states. All fragments are
validated in one yanglint run (two cores: no process per fragment).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from roceconf.platforms.sonic import PLATFORM, yang
from roceconf.render import render_state
from tests.conformance.corpus import CORPUS_GROUP, ROOT, states

REASON = yang.unavailable_reason()
if REASON:
    pytest.skip(f"SONiC YANG conformance skipped: {REASON}", allow_module_level=True)

pytestmark = pytest.mark.xdist_group(CORPUS_GROUP)  # one worker validates the corpus once

from tests.conformance.sonic_negatives import MUTATIONS, broken, lab_fragment  # noqa: E402
from tests.platforms.test_sonic import SONIC_PORTS  # noqa: E402
from tests.strategies import device_state  # noqa: E402


def loaded(fragment: dict, base: dict | None = None) -> dict:
    """The YANG JSON of the CONFIG_DB after `config load` of the fragment onto a switch's PORT table
    (by default one with the ports the fragment names)."""
    return yang.translate(yang.merge(yang.base_ports(base or fragment), fragment))


def fit(state):
    """A generated state inside the value ranges the platform accepts (validation refuses others: RC131)."""
    wd = state.pfc_watchdog
    for f, lo, hi in PLATFORM.capabilities.watchdog_ranges:
        v = getattr(wd, f)
        if v is not None:
            setattr(wd, f, lo + v % (hi - lo + 1))
    if wd.polling_ms is not None:  # sonic-pfcwd.yang: detection and restoration >= POLL_INTERVAL
        for f in ("detection_ms", "restoration_ms"):
            if getattr(wd, f) is not None:
                setattr(wd, f, max(getattr(wd, f), wd.polling_ms))
    return state


def generated(n: int = 200) -> list[dict]:
    out: list[dict] = []

    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(device_state(PLATFORM, SONIC_PORTS).map(fit))
    def draw(state) -> None:
        out.append(json.loads(render_state(state)))

    draw()
    return out


def test_every_rendered_fragment_is_valid() -> None:
    frags: dict[str, dict] = {}
    for label, st in states("sonic"):
        frags[label] = json.loads(render_state(st))
    assert any(k.startswith("inventories/lab/") for k in frags) and any(
        k.startswith("inventories/pod/") for k in frags
    )
    for f in (
        ROOT / "tests" / "golden" / "leaf3.json",
        ROOT / "tests" / "fixtures" / "sonic" / "rendered-lab.json",
    ):
        frags[str(f.relative_to(ROOT))] = json.loads(f.read_text())
    n_intent = len(frags)
    for i, frag in enumerate(generated()):
        frags[f"generated #{i}"] = frag
    assert len(frags) - n_intent >= 200
    docs = {name: loaded(frag) for name, frag in frags.items()}
    results = yang.validate_many(docs)
    bad = [(n, r.message) for n, r in results.items() if not r.ok]
    assert not bad, bad[:3]
    print(
        f"sonic: {len(results)} fragments valid ({n_intent} from intents and files, {len(frags) - n_intent} generated)"
    )


def test_there_are_enough_broken_fragments() -> None:
    assert len(MUTATIONS) >= 10


def test_every_broken_fragment_is_rejected() -> None:
    docs, refused = {}, {}
    for name, _why, fn in MUTATIONS:
        try:
            docs[name] = loaded(broken(fn), base=lab_fragment())
        except yang.TranslateError as e:  # SONiC's translator refuses it before libyang sees it
            refused[name] = str(e)
    results = yang.validate_many(docs)
    accepted = [name for name, r in results.items() if r.ok]
    assert not accepted, f"accepted by SONiC's YANG: {accepted}"
    assert len(refused) + len(results) == len(MUTATIONS)
    # the unbroken fragment passes the same pipeline: the rejections come from the defects
    assert yang.validate_many({"lab": loaded(lab_fragment())})["lab"].ok


def test_old_identity_pg_map_was_valid_yang_but_is_no_longer_rendered() -> None:
    """YANG cannot tell a lossy TC on a PG without buffer: the PG map fix is tested in tests/platforms; here the
    lab fragment's PG map sends every lossy TC to PG0 and the lossless PG has its BUFFER_PG entry."""
    frag = lab_fragment()  # the lab's leaf3 (Tomahawk: traditional buffer model, no BUFFER_PG rendered)
    assert frag["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"]["6"] == "0"
    assert "BUFFER_PG" not in frag and frag["PORT_QOS_MAP"]
    # a dynamic-buffer-model render (the platform fixture: a state without hints) states the lossless PG
    dyn = json.loads((ROOT / "tests" / "fixtures" / "sonic" / "rendered-lab.json").read_text())
    assert {k for k in dyn["BUFFER_PG"]} == {f"{p}|3" for p in dyn["PORT"]}
    assert yang.validate_many({"dyn": loaded(dyn)})["dyn"].ok
