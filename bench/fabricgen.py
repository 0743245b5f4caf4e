"""Generate large intent files for benchmarks (compact forms: ranges, rail and mesh patterns)."""

from __future__ import annotations

HEADER = """version: 1
fabric: {name}
qos:
  classes:
    - {{name: roce, role: roce, dscp: [26], priority: 3, lossless: true,
       ecn: {{min: 150KB, max: 1500KB, probability: 100}}, scheduling: {{mode: dwrr, weight_percent: 50}}}}
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


if __name__ == "__main__":
    print(big_fabric(), end="")
