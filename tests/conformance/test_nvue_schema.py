"""Every NVUE patch roceconf renders is valid for NVIDIA's own NVUE schema of the device's release.

Oracle: PyPI ``nvueschema`` (pydantic models generated from the NVUE OpenAPI spec of Cumulus Linux 5.0-5.18),
made strict (``extra="forbid"`` on every model, tests/conformance/nvue_schema.py). Corpus: the lab and pod
intents and every valid test intent (each device against the schema of its own release: ``os_version``, else
the platform's default), the golden and fixture renders, the per-knob states of the NVUE line-shape table,
the lab state rendered for the first and last release of each syntax family from 5.6 (the first with
``qos pfc-watchdog``) to 5.18, and generated
states. Negatives: a misspelt key at several depths, a value outside its range, the other release's words.
"""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

from roceconf.platforms.nvue import PLATFORM
from roceconf.render import render_state
from tests.conformance import nvue_schema
from tests.conformance.corpus import ROOT, states
from tests.platforms.test_nvue import lab_state, nvue_states
from tests.test_conformance_nxos_nvue import _extra_states

pytestmark = pytest.mark.xdist_group("conformance-nvue")

#: The release a device without ``os_version`` renders for (the platform's newest documented syntax).
DEFAULT = PLATFORM.releases[-1]
def _key(release: str) -> tuple[int, ...]:
    return tuple(int(x) for x in release.split("."))


#: Releases whose schema has every setting roceconf renders (qos pfc-watchdog: "Introduced in 5.6.0"): the
#: lab state is checked at the edges of each syntax family (5.6 and 5.14: on|off; 5.15 and the newest: enabled|
#: disabled) - building one strict release takes seconds, so not all thirteen are built in every run.
FULL = [v for v in nvue_schema.VERSIONS if _key(v) >= (5, 6)]
EDGES = [FULL[0], "5.14", "5.15", FULL[-1]]


def _release(st) -> str:
    return st.hints.get("os_version") or DEFAULT


def _bad(release: str, text: str) -> list[str]:
    return nvue_schema.patch_errors(release, yaml.safe_load(text))


def test_every_intent_render_is_valid_for_its_release() -> None:
    corpus = states("nvue")
    labels = [label for label, _ in corpus]
    assert any(x.startswith("inventories/lab/") for x in labels) and any(x.startswith("inventories/pod/") for x in labels)
    releases = {_release(st) for _, st in corpus}
    assert {"5.14", "5.15"} <= releases, releases  # both sides of the 5.15 keyword change
    for label, st in corpus:
        assert not _bad(_release(st), render_state(st)), (label, _bad(_release(st), render_state(st))[:3])
    for f in (ROOT / "tests" / "golden" / "leaf2.yaml", ROOT / "tests" / "fixtures" / "nvue" / "rendered-lab.yaml"):
        assert not _bad(DEFAULT, f.read_text()), f
    extra = [s for s in _extra_states() if s.platform == "nvue"]
    for st in extra:
        assert not _bad(_release(st), render_state(st)), _bad(_release(st), render_state(st))[:3]
    print(f"nvue: {len(corpus)} intent renders, 2 files, {len(extra)} per-knob states valid")


@pytest.mark.parametrize("release", EDGES)
def test_lab_render_is_valid_for_every_release(release: str) -> None:
    st = lab_state()
    st.hints["os_version"] = release
    text = render_state(st)
    assert not _bad(release, text), _bad(release, text)[:3]
    # the same patch in the other family's words is refused: the oracle sees the keyword change
    other = "5.14" if _key(release) >= (5, 15) else "5.15"
    st.hints["os_version"] = other
    assert _bad(release, render_state(st))


def test_releases_before_5_6_have_no_pfc_watchdog() -> None:
    """What the schema says of the oldest releases (validation refuses them: RC167, next test): 5.0-5.5 have
    no ``qos pfc-watchdog``; 5.0-5.2 no ``qos mapping``."""
    st = lab_state()
    st.hints["os_version"] = "5.5"
    errs = _bad("5.5", render_state(st))
    assert errs and all("pfc-watchdog" in e for e in errs), errs


_OLD_RELEASE_INTENT = """version: 1
fabric: nv
mtu: {{switch_port: 9214, host_nic: 9000}}
ecmp: {{fields: [src_ip, dst_ip, src_port, dst_port]}}
{watchdog}devices:
  - {{name: sw1, platform: nvue, role: leaf, os_version: '{release}', interfaces: [{{name: 'swp[1-4]', speed: 400G}}]}}
"""


@pytest.mark.parametrize("watchdog", [True, False], ids=["watchdog", "no-watchdog"])
@pytest.mark.parametrize("release", ["5.2", "5.3", "5.5", "5.6"])
def test_old_releases_render_what_their_schema_takes_and_refuse_what_they_lack(release: str, watchdog: bool) -> None:
    """At the edges of what the schema has (QoS from 5.3, qos pfc-watchdog from 5.6), with the watchdog armed
    and not: what roceconf renders for the device's release is valid for that release's schema wherever the
    intent validates; RC167 refuses exactly the intents that count on what the release lacks, and the schema
    confirms it (the intent's wish, rendered, is refused by the release)."""
    from roceconf.intent import load_text
    from roceconf.intent.desired import desired_states, intended_state

    text = _OLD_RELEASE_INTENT.format(release=release, watchdog="" if watchdog else "qos: {pfc_watchdog: {enabled: false}}\n")
    fab = load_text(text)
    refused = [d for d in fab.diagnostics if d.code == "RC167"]
    # 5.2: no QoS configuration at all; 5.3-5.5: no watchdog, which the intent arms by default
    assert bool(refused) == (release == "5.2" or (watchdog and release in ("5.3", "5.5"))), refused
    if refused:
        line = text.splitlines().index(next(x for x in text.splitlines() if "os_version" in x)) + 1
        assert refused[0].severity == "error" and refused[0].line == line, refused
        assert _bad(release, render_state(intended_state(fab.devices["sw1"])))
    if release != "5.2":  # 5.2's render is refused as a whole: nothing of it is rendered (validation fails)
        assert not _bad(release, render_state(desired_states(fab)["sw1"]))


@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(nvue_states())
def test_generated_states_render_valid_patches(state) -> None:
    assert not _bad(_release(state), render_state(state))


def _lab_tree() -> dict:
    return yaml.safe_load(render_state(lab_state()))[0]["set"]


def _set(tree: dict, path: list[str], value) -> dict:
    t = copy.deepcopy(tree)
    node = t
    for k in path[:-1]:
        node = node.setdefault(k, {})
    node[path[-1]] = value
    return t


#: (why, path, value): each a defect the schema must refuse on the lab patch.
NEGATIVES = [
    ("misspelt key under qos roce", ["qos", "roce", "stat"], "enabled"),
    ("qos roce state takes enabled|disabled", ["qos", "roce", "state"], "on"),
    ("the pre-5.15 key", ["qos", "roce", "enable"], "on"),
    ("unknown RoCE mode", ["qos", "roce", "mode"], "lossles"),
    ("misspelt top-level key", ["qoss"], {"roce": {"mode": "lossless"}}),
    ("misspelt key four levels down", ["qos", "pfc-watchdog", "polling-intervall"], 100),
    ("polling-interval below 100", ["qos", "pfc-watchdog", "polling-interval"], 50),
    ("ecmp-hash in the pre-5.15 words", ["system", "forwarding", "ecmp-hash", "source-ip"], "on"),
    ("interface link mtu above 9216", ["interface", "swp1", "link", "mtu"], 9217),
    ("misspelt key in an interface entry", ["interface", "swp1", "qos", "pfc-watchdog", "stat"], "enabled"),
    ("memory-percent above 100", ["qos", "traffic-pool", "roce-lossless", "memory-percent"], 101),
]


def test_there_are_enough_negatives() -> None:
    assert len(NEGATIVES) >= 10


@pytest.mark.parametrize(("why", "path", "value"), NEGATIVES, ids=[n[0] for n in NEGATIVES])
def test_a_wrong_key_or_value_is_refused(why: str, path: list[str], value) -> None:
    tree = _lab_tree()
    assert not nvue_schema.errors(DEFAULT, tree)  # the unbroken patch passes the same pipeline
    errs = nvue_schema.errors(DEFAULT, _set(tree, path, value))
    assert errs, f"accepted by NVUE's schema {DEFAULT}: {why}"
    assert any(".".join(path[:2]) in e for e in errs), errs


def test_the_generated_models_alone_would_accept_a_misspelt_key() -> None:
    """Why the oracle makes the models strict: as generated (a fresh interpreter) they ignore unknown keys."""
    code = (
        "from nvueschema.models.v5_15 import NvueConfig; "
        "NvueConfig.model_validate({'qos': {'roce': {'stat': 'enabled'}}}); print('accepted')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "accepted", out.stderr[-300:]
    assert nvue_schema.errors("5.15", {"qos": {"roce": {"stat": "enabled"}}})
