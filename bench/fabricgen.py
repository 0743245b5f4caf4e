"""Generate large intent files for benchmarks (compact forms: ranges, rail and mesh patterns)."""

from __future__ import annotations

HEADER = """version: 1
fabric: {name}
qos:
  classes:
    - {{name: roce, role: roce, dscp: [26], priority: 3, lossless: true,
       ecn: {{min: 150KB, max: 1500KB, probability: 100, junos: {{min_percent: 55, max_percent: 90}}}}, scheduling: {{mode: dwrr, weight_percent: 50}}}}
    - {{name: cnp, role: cnp, dscp: [48], priority: 6, scheduling: {{mode: strict}}}}
    - {{name: default, dscp: [0], priority: 0, scheduling: {{mode: dwrr, weight_percent: 50}}}}
  pfc_watchdog: {{enabled: true, detection: 200ms, restoration: 400ms, polling: 100ms}}
mtu: {{switch_port: 9214, host_nic: 9000, roce_path: 4096}}
ecmp: {{fields: [src_ip, dst_ip, src_port, dst_port]}}
roles:
  leaf: {{ecmp: {{seed: 10}}}}
  spine: {{ecmp: {{seed: 25}}}}
"""


def big_fabric(
    hosts: int = 4096,
    nics: int = 8,
    hosts_per_group: int = 32,
    leaves_per_pod: int = 32,
    spines_per_pod: int = 16,
) -> str:
    """Rail-optimised fabric: groups of `hosts_per_group` hosts x `nics` rails -> `nics` leaves per group;
    pods of `leaves_per_pod` leaves meshed to `spines_per_pod` spines of their own.

    Defaults: 4,096 hosts x 8 NICs = 32,768 GPUs, 1,024 leaves (half EOS, half SONiC), 512 spines (NVUE)."""
    groups = hosts // hosts_per_group
    leaves = groups * nics
    pods = leaves // leaves_per_pod
    spines = pods * spines_per_pod
    half = leaves // 2
    out = [HEADER.format(name=f"gpu{hosts * nics}")]
    out.append("devices:")
    out.append(
        f"  - {{name: 'spine[{1:04d}-{spines:04d}]', platform: nvue, role: spine, asic: spectrum4,\n"
        f"     interfaces: [{{name: swp1-{leaves_per_pod}, speed: 800G, role: fabric}}]}}"
    )
    out.append(
        f"  - {{name: 'leaf[{1:04d}-{half:04d}]', platform: eos, role: leaf, asic: tomahawk4,\n"
        f"     interfaces: [{{name: Ethernet1-{hosts_per_group}, speed: 400G, role: host}},\n"
        f"                  {{name: Ethernet{hosts_per_group + 1}-{hosts_per_group + spines_per_pod}, speed: 800G}}]}}"
    )
    out.append(
        f"  - {{name: 'leaf[{half + 1:04d}-{leaves:04d}]', platform: sonic, role: leaf, asic: tomahawk4,\n"
        f"     interfaces: [{{name: 'Ethernet[0-{hosts_per_group - 1}]', speed: 400G, role: host}},\n"
        f"                  {{name: 'Ethernet[{hosts_per_group}-{hosts_per_group + spines_per_pod - 1}]', speed: 800G}}]}}"
    )
    out.append(
        f"  - {{name: 'gpu[{1:05d}-{hosts:05d}]', platform: connectx, role: host,\n"
        f"     interfaces: [{{name: 'eth[0-{nics - 1}]', speed: 400G, role: host, rdma_device: 'mlx5_[0-{nics - 1}]'}}]}}"
    )
    out.append("links:")
    for p in range(pods):
        l0, l1 = p * leaves_per_pod + 1, (p + 1) * leaves_per_pod
        s0, s1 = p * spines_per_pod + 1, (p + 1) * spines_per_pod
        eos = l1 <= half
        lports = (
            f"Ethernet{hosts_per_group + 1}-{hosts_per_group + spines_per_pod}"
            if eos
            else f"Ethernet[{hosts_per_group}-{hosts_per_group + spines_per_pod - 1}]"
        )
        out.append(
            f"  - mesh: {{lower: 'leaf[{l0:04d}-{l1:04d}]', lower_ports: '{lports}', "
            f"upper: 'spine[{s0:04d}-{s1:04d}]', upper_ports: 'swp1-{leaves_per_pod}', cable: 100m}}"
        )
    for g in range(groups):
        h0, h1 = g * hosts_per_group + 1, (g + 1) * hosts_per_group
        l0, l1 = g * nics + 1, (g + 1) * nics
        ports = f"Ethernet1-{hosts_per_group}" if l1 <= half else f"Ethernet[0-{hosts_per_group - 1}]"
        out.append(
            f"  - rail: {{hosts: 'gpu[{h0:05d}-{h1:05d}]', nics: 'eth[0-{nics - 1}]', "
            f"leaves: 'leaf[{l0:04d}-{l1:04d}]', leaf_ports: '{ports}', cable: 5m}}"
        )
    return "\n".join(out) + "\n"


def three_tier(
    hosts: int = 4096,
    nics: int = 8,
    hosts_per_group: int = 32,
    leaves_per_pod: int = 32,
    spines_per_pod: int = 16,
    superspines_per_plane: int = 4,
) -> str:
    """Three-tier rail-optimised fabric with mixed platforms.

    Groups of `hosts_per_group` hosts x `nics` rails -> `nics` leaves per group; pods of `leaves_per_pod`
    leaves meshed to the `spines_per_pod` spines of their pod; spine k of every pod (plane k) meshed to the
    `superspines_per_plane` super-spines of plane k. The first half of the pods is EOS leaves + NVUE spines,
    the second half SONiC leaves + Junos spines; the first half of the hosts ConnectX, the second bnxt;
    super-spines NX-OS.

    Defaults (`--gpus 32768`): 4,096 hosts x 8 NICs at 400G, 1,024 leaves, 512 spines, 64 super-spines:
    5,696 devices, 51,200 links (32,768 host links, 16,384 leaf-spine, 2,048 spine-super-spine).
    """
    groups = hosts // hosts_per_group
    leaves = groups * nics
    pods = leaves // leaves_per_pod
    groups_per_pod = leaves_per_pod // nics
    supers = spines_per_pod * superspines_per_plane
    half = pods // 2
    up = superspines_per_plane
    hp, sp = hosts_per_group, spines_per_pod
    out = [HEADER.format(name=f"gpu{hosts * nics}").rstrip("\n"), "  superspine: {ecmp: {seed: 40}}"]
    out.append("devices:")

    def pods_range(a: int, b: int) -> str:
        return f"{a:02d}-{b:02d}" if a != b else f"{a:02d}"

    for eos, (p0, p1) in ((True, (1, half)), (False, (half + 1, pods))):
        l0, l1 = (p0 - 1) * leaves_per_pod + 1, p1 * leaves_per_pod
        if eos:
            lports = (f"Ethernet1-{hp}", f"Ethernet{hp + 1}-{hp + sp}")
            sports = (f"swp1-{leaves_per_pod}", f"swp{leaves_per_pod + 1}-{leaves_per_pod + up}")
            lplat, splat, sasic = "eos", "nvue", "spectrum4"
        else:
            lports = (f"Ethernet[0-{hp - 1}]", f"Ethernet[{hp}-{hp + sp - 1}]")
            sports = (
                f"et-0/0/[0-{leaves_per_pod - 1}]",
                f"et-0/0/[{leaves_per_pod}-{leaves_per_pod + up - 1}]",
            )
            lplat, splat, sasic = "sonic", "junos", "tomahawk5"
        out.append(
            f"  - {{name: 'leaf[{l0:04d}-{l1:04d}]', platform: {lplat}, role: leaf, asic: tomahawk4,\n"
            f"     interfaces: [{{name: '{lports[0]}', speed: 400G, role: host}},\n"
            f"                  {{name: '{lports[1]}', speed: 800G, role: fabric}}]}}"
        )
        out.append(
            f"  - {{name: 'spine[{pods_range(p0, p1)}]-[01-{sp:02d}]', platform: {splat}, role: spine, asic: {sasic},\n"
            f"     interfaces: [{{name: '{sports[0]}', speed: 800G, role: fabric}},\n"
            f"                  {{name: '{sports[1]}', speed: 800G, role: fabric}}]}}"
        )
    out.append(
        f"  - {{name: 'superspine[01-{supers:02d}]', platform: nxos, role: superspine,\n"
        f"     interfaces: [{{name: 'Ethernet1/1-{pods}', speed: 800G, role: fabric}}]}}"
    )
    for plat, rdma, (h0, h1) in (
        ("connectx", "mlx5_", (1, hosts // 2)),
        ("bnxt", "bnxt_re", (hosts // 2 + 1, hosts)),
    ):
        out.append(
            f"  - {{name: 'gpu[{h0:05d}-{h1:05d}]', platform: {plat}, role: host,\n"
            f"     interfaces: [{{name: 'eth[0-{nics - 1}]', speed: 400G, role: host, "
            f"rdma_device: '{rdma}[0-{nics - 1}]'}}]}}"
        )
    out.append("links:")
    for p in range(1, pods + 1):
        eos = p <= half
        l0, l1 = (p - 1) * leaves_per_pod + 1, p * leaves_per_pod
        lup = f"Ethernet{hp + 1}-{hp + sp}" if eos else f"Ethernet[{hp}-{hp + sp - 1}]"
        sdown = f"swp1-{leaves_per_pod}" if eos else f"et-0/0/[0-{leaves_per_pod - 1}]"
        out.append(
            f"  - mesh: {{lower: 'leaf[{l0:04d}-{l1:04d}]', lower_ports: '{lup}', "
            f"upper: 'spine{p:02d}-[01-{sp:02d}]', upper_ports: '{sdown}', cable: 100m}}"
        )
    for k in range(1, sp + 1):
        s0, s1 = (k - 1) * up + 1, k * up
        for eos, (p0, p1) in ((True, (1, half)), (False, (half + 1, pods))):
            sup = (
                f"swp{leaves_per_pod + 1}-{leaves_per_pod + up}"
                if eos
                else f"et-0/0/[{leaves_per_pod}-{leaves_per_pod + up - 1}]"
            )
            out.append(
                f"  - mesh: {{lower: 'spine[{pods_range(p0, p1)}]-{k:02d}', lower_ports: '{sup}', "
                f"upper: 'superspine[{s0:02d}-{s1:02d}]', upper_ports: 'Ethernet1/{p0}-{p1}', cable: 300m}}"
            )
    for g in range(groups):
        h0, h1 = g * hp + 1, (g + 1) * hp
        l0, l1 = g * nics + 1, (g + 1) * nics
        pod = (g // groups_per_pod) + 1
        ports = f"Ethernet1-{hp}" if pod <= half else f"Ethernet[0-{hp - 1}]"
        out.append(
            f"  - rail: {{hosts: 'gpu[{h0:05d}-{h1:05d}]', nics: 'eth[0-{nics - 1}]', "
            f"leaves: 'leaf[{l0:04d}-{l1:04d}]', leaf_ports: '{ports}', cable: 5m}}"
        )
    return "\n".join(out) + "\n"


#: the other OS release a share of each platform's devices runs (an upgrade under way); NVUE's older
#: release changes its syntax (roceconf/platforms/nvue: on|off before 5.15), the others only the key. NVUE 5.14,
#: not older: NVIDIA's schema has no QoS configuration before 5.3 and no PFC watchdog before 5.6 (RC167)
OLD_RELEASE = {"eos": "4.31.2F", "sonic": "202305", "nvue": "5.14", "junos": "23.2R1", "nxos": "10.3.4a"}
NEW_RELEASE = {"eos": "4.32.1F", "sonic": "202311", "nvue": "5.15", "junos": "23.4R1", "nxos": "10.4.3"}


def _seed(kind: int, i: int) -> int:
    """A per-switch ECMP hash seed (deterministic, spread over 32 bits)."""
    return (i * 2654435761 + kind * 40503) % 4294967296


def _release(plat: str, i: int, share: int = 8) -> str:
    """One device in `share` on the older release."""
    return OLD_RELEASE[plat] if i % share == 3 else NEW_RELEASE[plat]


def distinct(
    hosts: int = 4096,
    nics: int = 8,
    hosts_per_group: int = 32,
    leaves_per_pod: int = 32,
    spines_per_pod: int = 16,
    superspines_per_plane: int = 4,
) -> str:
    """`three_tier`'s fabric as an intent imported device by device from a source of truth, where devices
    differ: every device and link listed on its own; every switch with its own ECMP hash seed (a device
    override); rail groups partially populated (group g lacks its last g % 3 hosts, so its leaves have
    that many fewer host ports); every link with its own cable length; one switch in 8 on the older OS
    release of its platform (`OLD_RELEASE`). No two switches share a desired state."""
    hp, sp, up, lpp = hosts_per_group, spines_per_pod, superspines_per_plane, leaves_per_pod
    groups = hosts // hp
    leaves = groups * nics
    pods = leaves // lpp
    half = pods // 2
    supers = sp * up
    out = [HEADER.format(name=f"gpu{hosts * nics}-distinct").rstrip("\n"), "  superspine: {ecmp: {seed: 40}}"]
    out.append("devices:")
    links: list[str] = []

    def dev(
        name: str, plat: str, role: str, asic: str | None, itfs: list[tuple[str, str, str]], i: int, kind: int
    ) -> None:
        a = f", asic: {asic}" if asic else ""
        il = ", ".join(f"{{name: '{n}', speed: {s}, role: {r}}}" for n, s, r in itfs)
        out.append(
            f"  - {{name: {name}, platform: {plat}, role: {role}{a}, os_version: '{_release(plat, i)}',\n"
            f"     overrides: {{ecmp: {{seed: {_seed(kind, i)}}}}},\n     interfaces: [{il}]}}"
        )

    def lport(eos: bool, k: int) -> str:  # leaf port k (0-based)
        return f"Ethernet{k + 1}" if eos else f"Ethernet{k}"

    def sport(eos: bool, k: int) -> str:  # spine port k (0-based)
        return f"swp{k + 1}" if eos else f"et-0/0/{k}"

    def populated(g: int) -> int:
        return hp - g % 3

    for li in range(1, leaves + 1):
        g, pod = (li - 1) // nics, (li - 1) // lpp + 1
        eos = pod <= half
        n = populated(g)
        hrange = f"Ethernet1-{n}" if eos else f"Ethernet[0-{n - 1}]"
        frange = f"Ethernet{hp + 1}-{hp + sp}" if eos else f"Ethernet[{hp}-{hp + sp - 1}]"
        dev(
            f"leaf{li:04d}",
            "eos" if eos else "sonic",
            "leaf",
            "tomahawk4",
            [(hrange, "400G", "host"), (frange, "800G", "fabric")],
            li,
            1,
        )
    for p in range(1, pods + 1):
        eos = p <= half
        for k in range(1, sp + 1):
            d = f"{sport(eos, 0)}-{lpp}" if eos else f"et-0/0/[0-{lpp - 1}]"
            u = f"swp{lpp + 1}-{lpp + up}" if eos else f"et-0/0/[{lpp}-{lpp + up - 1}]"
            dev(
                f"spine{p:02d}-{k:02d}",
                "nvue" if eos else "junos",
                "spine",
                "spectrum4" if eos else "tomahawk5",
                [(d, "800G", "fabric"), (u, "800G", "fabric")],
                (p - 1) * sp + k,
                2,
            )
    for s in range(1, supers + 1):
        dev(
            f"superspine{s:02d}",
            "nxos",
            "superspine",
            None,
            [(f"Ethernet1/1-{pods}", "800G", "fabric")],
            s,
            3,
        )
    for g in range(groups):
        plat, rdma = ("connectx", "mlx5_") if g < groups // 2 else ("bnxt", "bnxt_re")
        for h in range(populated(g)):
            name = f"gpu{g * hp + h + 1:05d}"
            out.append(
                f"  - {{name: {name}, platform: {plat}, role: host, interfaces: "
                f"[{{name: 'eth[0-{nics - 1}]', speed: 400G, role: host, rdma_device: '{rdma}[0-{nics - 1}]'}}]}}"
            )
            for k in range(nics):
                li = g * nics + k + 1
                eos = (li - 1) // lpp + 1 <= half
                links.append(
                    f"  - {{a: '{name}:eth{k}', b: 'leaf{li:04d}:{lport(eos, h)}', cable: {2 + (h + k) % 4}m}}"
                )
    for li in range(1, leaves + 1):
        pod, j = (li - 1) // lpp + 1, (li - 1) % lpp
        eos = pod <= half
        for k in range(sp):
            links.append(
                f"  - {{a: 'leaf{li:04d}:{lport(eos, hp + k)}', b: 'spine{pod:02d}-{k + 1:02d}:{sport(eos, j)}', "
                f"cable: {30 + (li * 7 + k * 13) % 70}m}}"
            )
    for p in range(1, pods + 1):
        eos = p <= half
        for k in range(1, sp + 1):
            for u in range(up):
                links.append(
                    f"  - {{a: 'spine{p:02d}-{k:02d}:{sport(eos, lpp + u)}', "
                    f"b: 'superspine{(k - 1) * up + u + 1:02d}:Ethernet1/{p}', cable: {100 + (p * 11 + k * 5 + u) % 200}m}}"
                )
    out.append("links:")
    out.extend(links)
    return "\n".join(out) + "\n"


#: `--scale`: GPUs -> `three_tier` / `distinct` parameters (1k: pods of 16 leaves, so the fabric keeps its two
#: halves; the others the defaults)
SCALES = {
    "1k": (1024, {"leaves_per_pod": 16}),
    "4k": (4096, {}),
    "16k": (16384, {}),
    "32k": (32768, {}),
    "64k": (65536, {}),
}


def scaled(scale: str, distinct_devices: bool = False) -> str:
    """The three-tier fabric at `scale` (a `SCALES` key), regular or with distinct devices."""
    gpus, kw = SCALES[scale]
    return (distinct if distinct_devices else three_tier)(hosts=gpus // 8, **kw)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--gpus",
        type=int,
        default=None,
        help="three-tier mixed-platform fabric with this many GPUs (8 per host, 32 hosts per rail group; "
        "32768 = 4,096 hosts, 1,024 leaves, 512 spines, 64 super-spines)",
    )
    ap.add_argument("--scale", choices=list(SCALES), help="the three-tier fabric at this many GPUs")
    ap.add_argument(
        "--distinct", action="store_true", help="with --scale: every device different (`distinct`)"
    )
    ap.add_argument("-o", "--output", help="write here instead of stdout")
    args = ap.parse_args(argv)
    if args.scale is not None:
        text = scaled(args.scale, args.distinct)
    elif args.gpus is None:
        text = big_fabric()
    else:
        if args.gpus % (8 * 32 * 4 * 2):
            ap.error("--gpus must be a multiple of 2048 (8 NICs x 32 hosts x 4 groups per pod x 2 halves)")
        text = three_tier(hosts=args.gpus // 8)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
