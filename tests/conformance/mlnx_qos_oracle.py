"""NVIDIA's own ``mlnx_qos`` (mlnx-tools ``python/mlnx_qos``) run in-process, without netlink.

The real script is executed as it is (``runpy``), with ``sys.argv`` set to the command. Its only device
access is ``dcbnetlink.DcbController`` (its README: options are parsed before the first netlink request);
that one class is replaced by :class:`FakeController`, an in-memory DCB device with the same methods, so
every check the script makes - optparse option names and prefixes, list lengths, value ranges, TSA names,
"ETS BW for a strict/vendor TC must be 0", dscp2prio actions, trust values - runs unchanged, and the
script's writes land in the fake device, whose state can be compared with what roceconf meant.
``DcbApp`` / ``DcbAppTable`` are the vendor's own classes (loaded from ``Python/dcbnetlink.py``).
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import io
import runpy
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

DCB_CAP_DCBX_HOST = 0x1
DCB_CAP_DCBX_VER_IEEE = 0x8


@dataclass
class Device:
    """The DCB state of one fake NIC port (survives between mlnx_qos runs, like a real port)."""

    pfc_en: int = 0
    delay: int = 0
    prio_tc: list[int] = field(default_factory=lambda: [0] * 8)
    tsa: list[int] = field(default_factory=lambda: [0] * 8)  # IEEE_8021QAZ_TSA_STRICT
    tc_bw: list[int] = field(default_factory=lambda: [0] * 8)
    maxrate: list[int] = field(default_factory=lambda: [0] * 8)
    #: APP entries (selector, priority, protocol), in insertion order
    apps: list[tuple[int, int, int]] = field(default_factory=list)
    dcbx: int = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE

    def dscp_map(self) -> dict[int, set[int]]:
        out: dict[int, set[int]] = {}
        for sel, prio, proto in self.apps:
            if sel == 5:
                out.setdefault(proto, set()).add(prio)
        return out


@dataclass
class Result:
    rc: int
    stdout: str
    stderr: str

    @property
    def accepted(self) -> bool:
        return self.rc == 0


class MlnxQos:
    """Runs ``mlnx_qos`` commands against fake devices (one per interface name)."""

    def __init__(self, mlnx_tools: Path) -> None:
        self.script = mlnx_tools / "python" / "mlnx_qos"
        pydir = mlnx_tools / "python" / "Python"
        if str(pydir) not in sys.path:
            sys.path.insert(0, str(pydir))
        spec = importlib.util.spec_from_file_location("_vendor_dcbnetlink", pydir / "dcbnetlink.py")
        assert spec is not None and spec.loader is not None
        real = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(real)  # defines classes only; no socket is opened at import
        self.real = real
        self.devices: dict[str, Device] = {}
        self.code = compile(self.script.read_text(), str(self.script), "exec")

    def _module(self) -> types.ModuleType:
        real, devices = self.real, self.devices

        class FakeController:
            def __init__(self, intf: str) -> None:
                self.d = devices.setdefault(intf, Device())

            def get_dcbx(self) -> int:
                return self.d.dcbx

            def set_dcbx(self, mode: int) -> None:
                self.d.dcbx = mode

            def get_ieee_pfc_en(self) -> int:
                return self.d.pfc_en

            def get_ieee_pfc_delay(self) -> int:
                return self.d.delay

            def set_ieee_pfc(self, _pfc_en: int, _delay: int) -> None:
                self.d.pfc_en, self.d.delay = _pfc_en, _delay

            def get_ieee_ets(self):
                return list(self.d.prio_tc), list(self.d.tsa), list(self.d.tc_bw)

            def set_ieee_ets(self, _prio_tc, _tsa, _tc_bw) -> None:
                self.d.prio_tc, self.d.tsa, self.d.tc_bw = list(_prio_tc), list(_tsa), list(_tc_bw)

            def get_ieee_maxrate(self):
                return list(self.d.maxrate)

            def set_ieee_maxrate(self, _tc_maxrate) -> None:
                self.d.maxrate = list(_tc_maxrate)

            def get_ieee_dcb_buffer(self):
                raise OSError(errno.EOPNOTSUPP, "Operation not supported")

            def set_dcb_buffer(self, **_kw) -> None:
                raise OSError(errno.EOPNOTSUPP, "Operation not supported")

            def get_ieee_app_table(self):
                tab = real.DcbAppTable()
                for i, (sel, prio, proto) in enumerate(self.d.apps):
                    tab.apps[i] = real.DcbApp(sel, prio, proto)
                return tab

            def set_ieee_app(self, selector: int, priority: int, protocol: int) -> None:
                # mlx5e_dcbnl_ieee_setapp: a DSCP has one priority; a new one replaces the old entry
                if selector == 5:
                    self.d.apps = [a for a in self.d.apps if not (a[0] == 5 and a[2] == protocol)]
                if (selector, priority, protocol) not in self.d.apps:
                    self.d.apps.append((selector, priority, protocol))

            def del_ieee_app(self, selector: int, priority: int, protocol: int) -> None:
                self.d.apps = [a for a in self.d.apps if a != (selector, priority, protocol)]

        mod = types.ModuleType("dcbnetlink")
        mod.DcbController = FakeController  # type: ignore[attr-defined]
        mod.DcbApp = real.DcbApp  # type: ignore[attr-defined]
        mod.DcbAppTable = real.DcbAppTable  # type: ignore[attr-defined]
        return mod

    def run(self, argv: list[str]) -> Result:
        """Run one ``mlnx_qos ...`` command line (``argv[0]`` is ``mlnx_qos``)."""
        out, err = io.StringIO(), io.StringIO()
        saved_argv, saved_mod = sys.argv, sys.modules.get("dcbnetlink")
        sys.argv = ["mlnx_qos", *argv[1:]]
        sys.modules["dcbnetlink"] = self._module()
        rc = 0
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                exec(self.code, {"__name__": "__main__", "__file__": str(self.script)})  # noqa: S102
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception as exc:  # noqa: BLE001 - the script's own crash is a refusal too
            rc = 1
            err.write(f"{type(exc).__name__}: {exc}\n")
        finally:
            sys.argv = saved_argv
            if saved_mod is None:
                sys.modules.pop("dcbnetlink", None)
            else:
                sys.modules["dcbnetlink"] = saved_mod
        return Result(rc, out.getvalue(), err.getvalue())


__all__ = ["Device", "MlnxQos", "Result", "runpy"]
