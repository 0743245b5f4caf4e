"""The shared counter readers (roceconf.counters.parsing) read a plain answer at once and any other line by line:
both ways give the same values."""

from __future__ import annotations

import pytest

from roceconf.counters.model import to_int
from roceconf.counters.parsing import _COUNTER_NAME, grep_files, key_values, table_blocks, tables


def _key_values_by_line(text: str, sep: str = ":") -> dict[str, int]:
    out: dict[str, int] = {}
    for line in text.replace("\r", "").split("\n"):
        if sep not in line:
            continue
        k, _, v = line.rpartition(sep)
        k = k.strip()
        n = to_int(v)
        if k and n is not None and _COUNTER_NAME.fullmatch(k):
            out[k] = n
    return out


def _grep_files_by_line(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in text.replace("\r", "").split("\n"):
        path, sep, v = line.rpartition(":")
        n = to_int(v)
        if sep and n is not None and "/" in path:
            out[path.rsplit("/", 1)[1].strip()] = n
    return out


@pytest.mark.parametrize(
    "text",
    [
        "NIC statistics:\n     rx_prio3_pause: 12\n     tx_prio3_pause: 7\n",
        "NIC statistics:\r\n     rx_prio3_pause: 12\r\n     rx_prio3_pause: 13\r\n",
        "     rx_prio3_pause: 1,234\n     tx: 5\n",
        "     a:b: 5\n     rx_prio3_pause: 12\n",
        "     rx_prio3_pause: 12\n     bad name: 3\n     tx_prio3_pause: \t\n",
        "     rx_prio3_pause: 123456789012345678901\n     x: 1\n",
        "     rx_prio3_pause:12 \n\tq[0].drops: 4\n",
        "     rx_prio3_pause: 12",
        "",
        "no counters here\n",
    ],
)
def test_key_values_reads_as_line_by_line(text: str) -> None:
    got = key_values(text)
    assert got == _key_values_by_line(text)
    assert list(got) == list(_key_values_by_line(text))


@pytest.mark.parametrize(
    "text",
    [
        "/sys/x/hw_counters/np_cnp_sent:44\n/sys/x/hw_counters/rp_cnp_handled:42\n",
        "/sys/x/hw_counters/np_cnp_sent:44\r\n/sys/x/hw_counters/np_cnp_sent:45\r\n",
        "/sys/x/hw_counters/np_cnp_sent:4,4\n/sys/x/a b:3\n",
        "/sys/x/c:d/e:5\n/sys/x/f:6\n",
        "grep: /sys/x/y: No such file or directory\n/sys/x/f:6\n",
        "/sys/x/f: 6\n",
        "",
    ],
)
def test_grep_files_reads_as_line_by_line(text: str) -> None:
    got = grep_files(text)
    assert got == _grep_files_by_line(text)
    assert list(got) == list(_grep_files_by_line(text))


TABLE = """\
     Port    PFC0    PFC1
---------  ------  ------
Ethernet0       1       2
Ethernet4       3      4
Ethernet8   5,000       6
"""


def test_table_blocks_unstripped_cells_are_the_rows() -> None:
    rows, problems = tables(TABLE)
    blocks, same = table_blocks(TABLE, strip=False)
    assert same == problems
    assert [dict(zip(head, (c.strip() for c in cells), strict=True)) for head, rs in blocks for cells in rs] == rows
    assert rows == [{"Port": "Ethernet0", "PFC0": "1", "PFC1": "2"}, {"Port": "Ethernet8", "PFC0": "5,000", "PFC1": "6"}]
    assert len(problems) == 1  # the cut row (its last count shorter than its column) is left out
