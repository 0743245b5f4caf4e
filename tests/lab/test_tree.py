"""Config tree: indentation and keyword placement, ``no`` removal, single-valued lines."""

from roceconf.lab import tree


def test_parse_render_round_trip_nxos() -> None:
    text = "hostname a\ninterface Ethernet1/1\n  mtu 9216\npolicy-map type qos P\n  class C\n    set qos-group 3\n"
    root = tree.parse(text, tree.NXOS)
    assert tree.render(root, tree.NXOS) == text


def test_eos_render_has_bangs_and_skips_end() -> None:
    root = tree.parse("hostname a\n!\ninterface Ethernet1\n   mtu 9214\n!\nend\n", tree.EOS)
    assert tree.render(root, tree.EOS, bang=True) == "hostname a\ninterface Ethernet1\n   mtu 9214\n!\n"


def test_unindented_lines_fall_back_like_a_switch() -> None:
    root = tree.parse("hostname a\n", tree.EOS)
    ed = tree.Editor(root, tree.EOS)
    for line in [
        "interface Ethernet1",
        "mtu 9214",
        "tx-queue 3",
        "random-detect ecn minimum-threshold 100 kbytes maximum-threshold 1 mbytes",
        "priority-flow-control on",  # back to the interface
        "qos map dscp 26 to traffic-class 3",  # global
        "hostname b",  # replaces hostname a
    ]:
        ed.apply(line)
    assert tree.render(root, tree.EOS) == (
        "hostname b\n"
        "interface Ethernet1\n"
        "   mtu 9214\n"
        "   tx-queue 3\n"
        "      random-detect ecn minimum-threshold 100 kbytes maximum-threshold 1 mbytes\n"
        "   priority-flow-control on\n"
        "qos map dscp 26 to traffic-class 3\n"
    )


def test_indented_input_and_no_and_existing_block() -> None:
    root = tree.parse("interface Ethernet1/1\n  mtu 9216\n  shutdown\n", tree.NXOS)
    ed = tree.Editor(root, tree.NXOS)
    for line in [
        "interface Ethernet1/1",
        "  no shutdown",
        "  mtu 1500",
        "policy-map type network-qos NQ",
        "  class type network-qos c-8q-nq3",
        "    pause pfc-cos 3",
        "    mtu 9216",
    ]:
        ed.apply(line)
    assert tree.render(root, tree.NXOS) == (
        "interface Ethernet1/1\n  mtu 1500\n  no shutdown\n"
        "policy-map type network-qos NQ\n  class type network-qos c-8q-nq3\n    pause pfc-cos 3\n    mtu 9216\n"
    )
    ed2 = tree.Editor(root, tree.NXOS)
    ed2.apply("no policy-map type network-qos NQ")
    ed2.apply("interface Ethernet1/1")
    ed2.apply("no mtu")
    assert tree.render(root, tree.NXOS) == "interface Ethernet1/1\n  no shutdown\n"


def test_nxos_shows_no_shutdown_as_a_line() -> None:
    root = tree.parse("interface Ethernet1/1\n  shutdown\n", tree.NXOS)
    ed = tree.Editor(root, tree.NXOS)
    ed.apply("interface Ethernet1/1")
    ed.apply("no shutdown")
    ed.apply("mtu 9216")
    assert tree.render(root, tree.NXOS) == "interface Ethernet1/1\n  no shutdown\n  mtu 9216\n"
    ed.apply("shutdown")
    assert tree.render(root, tree.NXOS) == "interface Ethernet1/1\n  mtu 9216\n  shutdown\n"


def test_eos_no_priority_is_a_setting_not_a_removal() -> None:
    root = tree.parse("qos profile P\n   uc-tx-queue 3\n      priority strict\n", tree.EOS)
    ed = tree.Editor(root, tree.EOS)
    for line in [
        "qos profile P",
        "   uc-tx-queue 3",
        "      no priority",
        "      bandwidth percent 50",
        "   uc-tx-queue 0",
        "      no priority",
    ]:
        ed.apply(line)
    assert tree.render(root, tree.EOS) == (
        "qos profile P\n"
        "   uc-tx-queue 3\n"
        "      no priority\n"
        "      bandwidth percent 50\n"
        "   uc-tx-queue 0\n"
        "      no priority\n"
    )
    ed.apply("qos profile P")
    ed.apply("   uc-tx-queue 0")
    ed.apply("      priority strict")
    assert "      no priority\n      bandwidth" in tree.render(root, tree.EOS)
    assert tree.render(root, tree.EOS).endswith("   uc-tx-queue 0\n      priority strict\n")
