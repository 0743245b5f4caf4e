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
    ap.add_argument("-o", "--output", help="write here instead of stdout")
    args = ap.parse_args(argv)
    if args.gpus is None:
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
