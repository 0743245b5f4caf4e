"""Parsers for acceptance-test outputs: nccl-tests (text table and ``-J`` JSON) and perftest (text and
``--out_json``). A parser never raises: what it cannot read becomes ``Result.error``.

Formats, from the tools' own writers:
* nccl-tests text: ``src/common.cu`` / ``src/util.cu`` print ``#  Rank  N Group G Pid P on HOST device D ...``
  lines, a header ``#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong``
  (older releases: no ``root`` column and ``error`` instead of ``#wrong``), one row per size (out-of-place, then
  in-place), and ``# Out of bounds values : N OK|FAILED`` / ``# Avg bus bandwidth : X``. With ``NCCL_DEBUG=INFO``
  NCCL logs ``NCCL_IB_TC set by environment to N`` and ``NET/IB : Using [0]mlx5_0:1/RoCE ...``.
* nccl-tests JSON (``src/util.cu``, format version 3): ``env`` (the process environment), ``config.devices``
  (rank, hostname, device), ``results`` (size, count, type, redop, ``out_of_place``/``in_place`` with ``time``,
  ``alg_bw``, ``bus_bw``, ``nwrong``), ``out_of_bounds.count``, ``average_bus_bandwidth.bandwidth``.
* perftest text (``src/perftest_parameters.c``, ``ctx_print_test_info``; ``perftest_parameters.h`` RESULT_FMT*):
  `` Device         : mlx5_0``, `` GID index       : 3``, `` Data ex. method : rdma_cm  TOS    : 106``, then
  `` #bytes  #iterations  BW peak[Gb/sec]  BW average[Gb/sec]  MsgRate[Mpps]`` (or ``[MB/sec]``/``[MiB/sec]``)
  or the latency header with ``t_min[usec] ... t_typical[usec] t_avg[usec]``.
* perftest JSON (``write_test_info_to_file`` / ``write_bw_report_to_file``): ``test_info`` (``test``, ``Device``,
  ``GID_index``, ``TOS`` when RDMA-CM), ``results`` (``MsgSize``, ``BW_peak``, ``BW_average``, ``MsgRate`` or
  ``t_min``, ``t_typical``, ``t_avg`` ...).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from roceconf import limits
from roceconf.inputfile import InputFileError, read_text

#: results files larger than this are refused (a plan writes KB-sized files)
MAX_BYTES = limits.MAX_RESULT_BYTES


@dataclass
class Row:
    size: int
    #: bus bandwidth (nccl, GB/s), average bandwidth (perftest, Gb/s) or typical latency (perftest, us)
    value: float
    #: second figure: nccl in-place busbw / perftest peak BW or average latency
    other: float | None = None
    wrong: float | None = None


@dataclass
class Result:
    file: str
    tool: str  # "nccl-tests" | "perftest" | "unknown"
    kind: str  # collective ("all_reduce") or perftest test ("ib_write_bw"); "" when unknown
    fmt: str  # "text" | "json"
    rows: list[Row] = field(default_factory=list)
    unit: str = ""
    device: str | None = None
    hcas: list[str] = field(default_factory=list)
    traffic_class: int | None = None
    gid_index: int | None = None
    hosts: list[str] = field(default_factory=list)
    out_of_bounds: int | None = None
    avg_busbw: float | None = None
    #: nccl-tests: the network NCCL reported ("IB" for RDMA / RoCE, "Socket" for TCP), when logged
    network: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_PERFTEST_NAMES = {
    "RDMA_Write": "ib_write_bw",
    "RDMA_Read": "ib_read_bw",
    "Send": "ib_send_bw",
}
_RANK = re.compile(r"#\s+Rank\s+\d+\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device")
_TC_INFO = re.compile(r"NCCL_IB_TC set by environment to (\d+)")
_NET_IB = re.compile(r"NET/IB\s*:\s*Using\s+(.*?)(?:;|$)")
_HCA_ITEM = re.compile(r"\[\d+\]([A-Za-z0-9_.-]+?)(?::\d+)?/")
_COLL = re.compile(r"#\s*Collective test (?:starting|concluded):\s*(\w+?)_perf")
_NETWORK = re.compile(r"NCCL INFO Using network (\w+)")
_TAG = re.compile(r"^\[\d+,\d+\]<std(?:out|err)>:")


def _num(word: str) -> float | None:
    try:
        return float(word)
    except ValueError:
        return None


def _kind_from_name(name: str) -> str:
    """Collective or perftest name from a result file name written by the plan's script."""
    for coll in ("all_reduce", "all_gather", "reduce_scatter", "alltoall"):
        if f"nccl.{coll}." in name or name.startswith(f"{coll}"):
            return coll
    for tool in ("ib_write_bw", "ib_read_bw", "ib_send_lat", "ib_send_bw"):
        if name.startswith(tool):
            return tool
    return ""


# --------------------------------------------------------------------------------------------- nccl-tests
def _nccl_text(text: str, res: Result) -> None:
    cols: list[str] | None = None
    hcas: list[str] = []
    for raw in text.splitlines():
        line = _TAG.sub("", raw).rstrip()
        if m := _RANK.search(line):
            if m.group(1) not in res.hosts:
                res.hosts.append(m.group(1))
            continue
        if m := _TC_INFO.search(line):
            res.traffic_class = int(m.group(1))
        if m := _NET_IB.search(line):
            for h in _HCA_ITEM.findall(m.group(1)):
                if h not in hcas:
                    hcas.append(h)
        if m := _COLL.search(line):
            res.kind = m.group(1)
        if m := _NETWORK.search(line):
            res.network = m.group(1)
        s = line.strip()
        if s.startswith("#") and " size " in f" {s[1:]} " and "count" in s and ("busbw" in s):
            cols = s.lstrip("#").split()
            continue
        if s.startswith("# Out of bounds values"):
            m2 = re.search(r":\s*(\d+)", s)
            res.out_of_bounds = int(m2.group(1)) if m2 else None
            continue
        if s.startswith("# Avg bus bandwidth"):
            m2 = re.search(r":\s*([0-9.eE+-]+)", s)
            res.avg_busbw = _num(m2.group(1)) if m2 else None
            continue
        if cols is None or s.startswith("#") or not s:
            continue
        words = s.split()
        if len(words) < len(cols) - 1 or not words[0].isdigit():
            continue
        try:
            busbw_i = [i for i, c in enumerate(cols) if c == "busbw"]
            # "#wrong" counts wrong elements; the older "error" column is a rounding-error magnitude, judged
            # by nccl-tests itself in "Out of bounds values"
            err_i = [i for i, c in enumerate(cols) if c == "#wrong"]
            # the alltoall/none rows keep every column; a row shorter than the header lacks the last one
            busbw = _num(words[busbw_i[0]])
            inplace = _num(words[busbw_i[1]]) if len(busbw_i) > 1 and busbw_i[1] < len(words) else None
            wrong = _num(words[err_i[0]]) if err_i and err_i[0] < len(words) else None
            wrong2 = _num(words[err_i[1]]) if len(err_i) > 1 and err_i[1] < len(words) else None
        except IndexError:
            continue
        if busbw is None:
            continue
        worst = max((w for w in (wrong, wrong2) if w is not None), default=None)
        res.rows.append(Row(int(words[0]), busbw, inplace, worst))
    res.hcas = hcas
    res.unit = "GB/s"
    if cols is None:
        res.error = "no nccl-tests result table (header '#  size  count ...  busbw') found"


def _nccl_json(data: dict[str, Any], res: Result) -> None:
    env = {}
    for item in data.get("env") or []:
        if isinstance(item, str) and "=" in item:
            k, _, v = item.partition("=")
            env[k] = v
    if env.get("NCCL_IB_TC", "").strip().isdigit():
        res.traffic_class = int(env["NCCL_IB_TC"])
    if env.get("NCCL_IB_GID_INDEX", "").strip().lstrip("-").isdigit():
        res.gid_index = int(env["NCCL_IB_GID_INDEX"])
    hca = env.get("NCCL_IB_HCA", "")
    if hca:
        res.hcas = [h.split(":")[0] for h in hca.lstrip("=^").split(",") if h]
    cfg = data.get("config") if isinstance(data.get("config"), dict) else {}
    for d in cfg.get("devices") or []:
        if isinstance(d, dict) and isinstance(d.get("hostname"), str) and d["hostname"] not in res.hosts:
            res.hosts.append(d["hostname"])
    args = [a for a in data.get("args") or [] if isinstance(a, str)]
    if args:
        m = re.search(r"(\w+?)_perf", Path(args[0]).name)
        if m:
            res.kind = m.group(1)
    for r in data.get("results") or []:
        if not isinstance(r, dict) or not isinstance(r.get("size"), int):
            continue
        oop = r.get("out_of_place") if isinstance(r.get("out_of_place"), dict) else {}
        ip = r.get("in_place") if isinstance(r.get("in_place"), dict) else {}
        bus = oop.get("bus_bw", ip.get("bus_bw"))
        if not isinstance(bus, (int, float)):
            continue
        wrongs = [w for w in (oop.get("nwrong"), ip.get("nwrong")) if isinstance(w, (int, float))]
        inplace = ip.get("bus_bw") if isinstance(ip.get("bus_bw"), (int, float)) else None
        res.rows.append(Row(r["size"], float(bus), inplace, max(wrongs) if wrongs else None))
    oob = data.get("out_of_bounds")
    if isinstance(oob, dict) and isinstance(oob.get("count"), int):
        res.out_of_bounds = oob["count"]
    avg = data.get("average_bus_bandwidth")
    if isinstance(avg, dict) and isinstance(avg.get("bandwidth"), (int, float)):
        res.avg_busbw = float(avg["bandwidth"])
    res.unit = "GB/s"


# --------------------------------------------------------------------------------------------- perftest
def _perftest_text(text: str, res: Result) -> None:
    header: list[str] | None = None
    latency = False
    for raw in text.splitlines():
        line = raw.rstrip()
        s = line.strip()
        if m := re.search(r"Device\s+:\s*(\S+)", s):
            res.device = m.group(1)
        if m := re.search(r"GID index\s*:\s*(\d+)", s, re.I):
            res.gid_index = int(m.group(1))
        if m := re.search(r"TOS\s*:\s*(\d+)", s):
            res.traffic_class = int(m.group(1))
        if m := re.match(r"^(RDMA_Write|RDMA_Read|Send)\s+(?:\w+\s+)*?(BW|Latency)\s+Test$", s):
            base = _PERFTEST_NAMES[m.group(1)]
            res.kind = base if m.group(2) == "BW" else base.replace("_bw", "_lat")
        if s.startswith("#bytes"):
            header = s.split()
            latency = any(h.startswith("t_typical") for h in header)
            unit = re.search(r"\[(Gb/sec|MB/sec|MiB/sec)\]", s)
            res.unit = "us" if latency else (unit.group(1) if unit else "")
            continue
        if header is None or not s or not s[0].isdigit():
            continue
        words = s.split()
        nums = [_num(w) for w in words]
        if any(n is None for n in nums) or len(nums) < 4:
            continue
        if latency:
            typ_i = next(i for i, h in enumerate(header) if h.startswith("t_typical"))
            avg_i = next((i for i, h in enumerate(header) if h.startswith("t_avg")), None)
            if typ_i < len(nums):
                res.rows.append(
                    Row(
                        int(nums[0]),
                        nums[typ_i],
                        nums[avg_i] if avg_i is not None and avg_i < len(nums) else None,
                    )  # type: ignore[arg-type]
                )
        else:
            # #bytes #iterations BW-peak BW-average MsgRate
            res.rows.append(Row(int(nums[0]), nums[3], nums[2]))  # type: ignore[arg-type]
    if header is None:
        res.error = "no perftest result header (' #bytes ...') found"


def _perftest_json(data: dict[str, Any], res: Result) -> None:
    info = data.get("test_info") if isinstance(data.get("test_info"), dict) else {}
    if isinstance(info.get("Device"), str):
        res.device = info["Device"]
    if isinstance(info.get("TOS"), int):
        res.traffic_class = info["TOS"]
    if isinstance(info.get("GID_index"), int):
        res.gid_index = info["GID_index"]
    test = str(info.get("test", ""))
    for prefix, name in _PERFTEST_NAMES.items():
        if test.startswith(prefix + "_"):
            res.kind = name if "_Latency_" not in test else name.replace("_bw", "_lat")
    r = data.get("results") if isinstance(data.get("results"), dict) else {}
    size = r.get("MsgSize")
    if isinstance(size, int):
        if isinstance(r.get("t_typical"), (int, float)):
            res.unit = "us"
            res.rows.append(Row(size, float(r["t_typical"]), r.get("t_avg")))
        elif isinstance(r.get("BW_average"), (int, float)):
            res.rows.append(Row(size, float(r["BW_average"]), r.get("BW_peak")))
    if not res.unit:
        res.unit = "Gb/sec"  # the plan always asks for --report_gbits


# --------------------------------------------------------------------------------------------- entry
def parse_text(text: str, name: str = "-") -> Result:
    """Recognise and parse one result output. Never raises."""
    res = Result(file=name, tool="unknown", kind=_kind_from_name(Path(name).name), fmt="text")
    try:
        stripped = text.lstrip("\ufeff \t\r\n")
        if stripped.startswith("{"):
            res.fmt = "json"
            try:
                data = json.loads(stripped)
            except ValueError as e:
                res.error = f"invalid JSON: {str(e)[:120]}"
                return res
            if not isinstance(data, dict):
                res.error = "JSON is not an object"
            elif "test_info" in data:
                res.tool = "perftest"
                _perftest_json(data, res)
            elif "results" in data and ("nccl_version" in data or "config" in data):
                res.tool = "nccl-tests"
                _nccl_json(data, res)
            else:
                res.error = "JSON is neither nccl-tests -J nor perftest --out_json output"
            return res
        if re.search(r"busbw|Avg bus bandwidth|nThread \d+ nGpus", text):
            res.tool = "nccl-tests"
            _nccl_text(text, res)
        elif re.search(r"#bytes\s+#iterations|BW average\[|t_typical\[|Data ex\. method", text):
            res.tool = "perftest"
            _perftest_text(text, res)
        else:
            res.error = "not an nccl-tests or perftest output"
    except Exception as e:  # noqa: BLE001 - a parser never raises on a result file
        res.error = f"cannot parse: {type(e).__name__}"
    return res


def parse_file(path: str | Path) -> Result:
    p = Path(path)
    try:
        text = read_text(p, MAX_BYTES, errors="replace", encoding="utf-8")
    except InputFileError as e:
        return Result(str(p), "unknown", "", "text", error=e.reason)
    return parse_text(text, str(p))


__all__ = ["Result", "Row", "parse_file", "parse_text"]
