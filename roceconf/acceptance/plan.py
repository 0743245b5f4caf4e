"""The acceptance test plan derived from the intent: perftest per rail and across the spine layer, nccl-tests
collectives over every selected host, with the traffic class, HCAs and thresholds the intent implies.

Sources of the tools' options (read from their source trees):
* perftest (linux-rdma/perftest, ``src/perftest_parameters.c``): ``-d`` device, ``-R`` RDMA-CM connection
  (the GID follows the address, no GID index is needed), ``-T/--tos`` (TOS of RDMA-CM QPs, "available only with
  -R"), ``-q`` QPs, ``-s`` size, ``-D`` duration, ``-F``, ``--report_gbits``, ``--out_json`` /
  ``--out_json_file`` (newer releases only: the script asks ``--help`` first).
* nccl-tests (NVIDIA/nccl-tests, ``src/common.cu``): ``-b/-e/-f`` sizes, ``-g`` GPUs per process, ``-c``
  correctness check, ``-J/--output_file`` JSON (``src/util.cu``, JSON format version 3).
* NCCL environment (NVIDIA NCCL user guide, "Environment Variables"): ``NCCL_IB_HCA`` (``=`` prefix: exact
  names), ``NCCL_IB_TC`` (traffic class of the IB/RoCE QPs), ``NCCL_IB_GID_INDEX``, ``NCCL_SOCKET_IFNAME``,
  ``NCCL_DEBUG=INFO`` (prints the values NCCL used, which ``acceptance verdict`` reads back).
* TOS = DSCP << 2 (RFC 2474 section 3: the DS field is the upper six bits of the IPv4 TOS / IPv6 traffic class
  octet); the low two bits are the ECN field (RFC 3168 section 5). roceconf sets them to ECT(0) (binary 10) where
  the RoCE class has ECN, so DSCP 26 gives the traffic class 106 that RoCE deployments use with NCCL_IB_TC.
"""

from __future__ import annotations

import fnmatch
from dataclasses import asdict, dataclass, field
from typing import Any

from roceconf.diagnostics import Diagnostic, DiagnosticError
from roceconf.intent import Fabric
from roceconf.names import natural_key

#: ECN field value ECT(0) (RFC 3168, section 5)
ECT0 = 0b10
COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "alltoall")
PERFTESTS = ("ib_write_bw", "ib_read_bw", "ib_send_lat")


@dataclass(frozen=True)
class Thresholds:
    """Pass marks. Shares are of the line rate the intent gives the NICs; see docs/acceptance.md."""

    #: perftest bandwidth tests: average BW at the large sizes >= share x NIC line rate
    perftest_share: float = 0.90
    #: nccl-tests bus bandwidth at the large sizes >= share x per-GPU share of the node's NIC bandwidth
    nccl_share: dict[str, float] = field(
        default_factory=lambda: {
            "all_reduce": 0.80,
            "all_gather": 0.80,
            "reduce_scatter": 0.80,
            "alltoall": 0.60,
        }
    )
    #: ib_send_lat t_typical bound, microseconds: same leaf / across the spine layer
    latency_us_same_leaf: float = 5.0
    latency_us_cross_spine: float = 8.0
    #: sizes at and above this are judged against bandwidth (below: latency-bound, reported only)
    bandwidth_min_bytes: int = 1 << 20
    nccl_bandwidth_min_bytes: int = 256 << 20
    #: coefficient of variation across repeats above this is a warning
    repeat_cv_percent: float = 5.0
    #: a pair or rank this share below the median of its peers is an outlier
    outlier_share: float = 0.10


@dataclass
class Nic:
    host: str
    netdev: str
    rdma_device: str
    speed_gbps: int
    leaf: str | None
    leaf_port: str | None
    rail: int


@dataclass
class PerftestCase:
    id: str
    tool: str
    scope: str  # "same-leaf" | "cross-spine"
    server: Nic
    client: Nic
    sizes: list[int]
    qps: int
    duration_s: int
    expected_gbps: float | None  # bandwidth tests
    latency_bound_us: float | None  # latency test


@dataclass
class NcclCase:
    id: str
    collective: str
    hosts: list[str]
    gpus_per_node: int
    min_bytes: int
    max_bytes: int
    factor: int
    expected_busbw_gbs: float
    threshold_busbw_gbs: float


@dataclass
class AcceptancePlan:
    fabric: str
    intent: str
    roce_dscp: int
    traffic_class: int
    ecn_bits: int
    hosts: dict[str, list[Nic]]
    perftest: list[PerftestCase]
    nccl: list[NcclCase]
    thresholds: Thresholds
    launcher: str
    notes: list[str] = field(default_factory=list)

    def hca_list(self, host: str) -> str:
        """NCCL_IB_HCA for a host: exact names (``=`` prefix), port 1."""
        return "=" + ",".join(f"{n.rdma_device}:1" for n in self.hosts[host])

    def socket_ifname(self, host: str) -> str:
        return "=" + ",".join(n.netdev for n in self.hosts[host])

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["format_version"] = 1
        d["nccl_env"] = {
            h: {
                "NCCL_IB_HCA": self.hca_list(h),
                "NCCL_IB_TC": str(self.traffic_class),
                "NCCL_SOCKET_IFNAME": self.socket_ifname(h),
                "NCCL_IB_GID_INDEX": "discovered on the host at run time",
            }
            for h in self.hosts
        }
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AcceptancePlan:
        """Read a plan written by ``to_dict`` (``acceptance plan --format json``)."""
        hosts = {h: [Nic(**n) for n in nics] for h, nics in d["hosts"].items()}
        perf = [
            PerftestCase(**{**c, "server": Nic(**c["server"]), "client": Nic(**c["client"])})
            for c in d["perftest"]
        ]
        return cls(
            fabric=d["fabric"],
            intent=d["intent"],
            roce_dscp=int(d["roce_dscp"]),
            traffic_class=int(d["traffic_class"]),
            ecn_bits=int(d["ecn_bits"]),
            hosts=hosts,
            perftest=perf,
            nccl=[NcclCase(**c) for c in d["nccl"]],
            thresholds=Thresholds(**d["thresholds"]),
            launcher=d["launcher"],
            notes=list(d.get("notes", [])),
        )


def traffic_class(dscp: int, ecn: bool) -> int:
    """The IPv4 TOS / IPv6 traffic class octet for a DSCP: DSCP << 2, ECT(0) in the ECN bits if ECN is on."""
    if not 0 <= dscp <= 63:
        raise ValueError(f"DSCP {dscp} outside 0-63")
    return (dscp << 2) | (ECT0 if ecn else 0)


def _error(fab: Fabric, message: str, hint: str = "") -> DiagnosticError:
    return DiagnosticError([Diagnostic(fab.file, 1, 1, "error", "RC409", message, hint)])


def _nics(fab: Fabric, hosts: list[str]) -> dict[str, list[Nic]]:
    peer: dict[tuple[str, str], tuple[str, str]] = {}
    for link in fab.links:
        peer[(link.a.device, link.a.port)] = (link.b.device, link.b.port)
        peer[(link.b.device, link.b.port)] = (link.a.device, link.a.port)
    out: dict[str, list[Nic]] = {}
    for h in hosts:
        dev = fab.devices[h]
        nics = []
        for rail, name in enumerate(sorted(dev.ports, key=natural_key)):
            p = dev.ports[name]
            if not p.qos or not p.rdma_device:
                continue
            leaf, leaf_port = peer.get((h, name), (None, None))
            nics.append(Nic(h, name, p.rdma_device, p.speed_gbps, leaf, leaf_port, rail))
        if nics:
            out[h] = nics
    return out


def _pairs_same_leaf(nics: list[Nic]) -> list[tuple[Nic, Nic]]:
    """Neighbouring hosts on each leaf (one NIC per host per leaf): a ring so that every NIC is tested."""
    by_leaf: dict[str, list[Nic]] = {}
    for n in nics:
        if n.leaf:
            by_leaf.setdefault(n.leaf, []).append(n)
    pairs = []
    for leaf in sorted(by_leaf, key=natural_key):
        group = sorted(by_leaf[leaf], key=lambda n: natural_key(n.host))
        if len(group) < 2:
            continue
        steps = len(group) if len(group) > 2 else 1
        for i in range(steps):
            pairs.append((group[i], group[(i + 1) % len(group)]))
    return pairs


def _pairs_cross_spine(nics: list[Nic]) -> list[tuple[Nic, Nic]]:
    """Per rail: the first host NIC of each leaf to the first of the next leaf (leaves meet only at spines)."""
    first: dict[tuple[int, str], Nic] = {}
    for n in sorted(nics, key=lambda n: natural_key(n.host)):
        if n.leaf:
            first.setdefault((n.rail, n.leaf), n)
    pairs = []
    for rail in sorted({r for r, _ in first}):
        leaves = sorted((leaf for r, leaf in first if r == rail), key=natural_key)
        for a, b in zip(leaves, leaves[1:], strict=False):
            pairs.append((first[(rail, a)], first[(rail, b)]))
    return pairs


def build_plan(
    fab: Fabric,
    hosts: str | None = None,
    thresholds: Thresholds | None = None,
    gpus_per_node: int | None = None,
    launcher: str = "mpirun",
    qps: int = 4,
    duration_s: int = 10,
) -> AcceptancePlan:
    """The acceptance plan for the intent's RoCE hosts (optionally only those matching a glob pattern)."""
    th = thresholds or Thresholds()
    names = [n for n in sorted(fab.devices, key=natural_key) if fab.devices[n].is_host]
    if hosts:
        names = [n for n in names if fnmatch.fnmatchcase(n, hosts)]
    host_nics = _nics(fab, names)
    if not host_nics:
        raise _error(
            fab,
            f"no host with RDMA devices matches {hosts!r}"
            if hosts
            else "the intent has no host with RDMA devices",
            "hosts need interfaces with rdma_device and qos: true",
        )
    roce = fab.base_settings.roce
    if roce is None or not roce.dscp:
        raise _error(fab, "the intent has no RoCE class with a DSCP", "mark one class role: roce")
    dscp = roce.dscp[0]
    ecn = roce.ecn is not None
    tc = traffic_class(dscp, ecn)
    notes: list[str] = []
    if len(roce.dscp) > 1:
        notes.append(f"the RoCE class has DSCPs {roce.dscp}; the tests mark {dscp}")
    all_nics = [n for ns in host_nics.values() for n in ns]
    perf: list[PerftestCase] = []
    sizes_bw = [65536, 1 << 20, 8 << 20]
    for scope, pairs in (
        ("same-leaf", _pairs_same_leaf(all_nics)),
        ("cross-spine", _pairs_cross_spine(all_nics)),
    ):
        for a, b in pairs:
            rate = min(a.speed_gbps, b.speed_gbps)
            for tool in PERFTESTS:
                # bandwidth tests run both ways (asymmetry is a finding); latency is symmetric
                directions = [(a, b), (b, a)] if tool != "ib_send_lat" else [(a, b)]
                for srv, cli in directions:
                    cid = f"{tool}.{scope}.{srv.host}-{srv.netdev}.{cli.host}-{cli.netdev}"
                    lat = tool == "ib_send_lat"
                    perf.append(
                        PerftestCase(
                            id=cid,
                            tool=tool,
                            scope=scope,
                            server=srv,
                            client=cli,
                            sizes=[2] if lat else sizes_bw,
                            qps=1 if lat else qps,
                            duration_s=duration_s,
                            expected_gbps=None if lat else round(rate * th.perftest_share, 2),
                            latency_bound_us=(
                                (
                                    th.latency_us_same_leaf
                                    if scope == "same-leaf"
                                    else th.latency_us_cross_spine
                                )
                                if lat
                                else None
                            ),
                        )
                    )
    nccl: list[NcclCase] = []
    if len(host_nics) >= 2:
        per_node = [len(n) for n in host_nics.values()]
        gpn = gpus_per_node or min(per_node)
        # the inter-node bound of a collective is the node's NIC bandwidth shared by its GPUs (GB/s)
        node_gbs = min(sum(n.speed_gbps for n in ns) for ns in host_nics.values()) / 8
        expected = round(node_gbs / gpn, 2)
        for coll in COLLECTIVES:
            share = th.nccl_share.get(coll, 0.8)
            nccl.append(
                NcclCase(
                    id=f"nccl.{coll}",
                    collective=coll,
                    hosts=list(host_nics),
                    gpus_per_node=gpn,
                    min_bytes=8,
                    max_bytes=8 << 30,
                    factor=2,
                    expected_busbw_gbs=expected,
                    threshold_busbw_gbs=round(expected * share, 2),
                )
            )
        if len(set(per_node)) > 1:
            notes.append(f"hosts have {sorted(set(per_node))} RoCE NICs; nccl-tests run {gpn} ranks per node")
    else:
        notes.append("one host selected: no nccl-tests run (they need two or more nodes to cross the fabric)")
    return AcceptancePlan(
        fabric=fab.intent.fabric,
        intent=fab.file,
        roce_dscp=dscp,
        traffic_class=tc,
        ecn_bits=tc & 0b11,
        hosts=host_nics,
        perftest=perf,
        nccl=nccl,
        thresholds=th,
        launcher=launcher,
        notes=notes,
    )


__all__ = [
    "COLLECTIVES",
    "PERFTESTS",
    "AcceptancePlan",
    "NcclCase",
    "Nic",
    "PerftestCase",
    "Thresholds",
    "build_plan",
    "traffic_class",
]
