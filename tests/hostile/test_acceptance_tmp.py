"""The acceptance script (``roceconf acceptance plan --format shell``) on hosts whose temp directory others
share: it writes and runs nothing under a fixed name there, only inside a private directory of the run
(mode 0700, an unpredictable name, created so that a name someone else took fails), removed at the end.

The script runs for real with bash, against fake hosts: ``ssh`` runs the command locally with each host's
``/tmp`` mapped into a sandbox, and ``ip``, ``sleep``, perftest and ``mpirun`` are stand-ins that record what
they were given.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.hostile.harness import LAB, check, run

FAKES = {
    "ssh": r"""#!/usr/bin/env bash
# ssh [-n] [-o X] HOST COMMAND...: run COMMAND here, the host's /tmp being $SANDBOX/HOST/tmp
while [ "${1#-}" != "$1" ]; do [ "$1" = -o ] && shift; shift; done
host=$1
shift
cmd="$*"
cmd=${cmd//\/tmp\//$SANDBOX/$host/tmp/}
printf '%s\n' "$cmd" >> "$SANDBOX/ssh.log"
exec bash -c "$cmd"
""",
    "ip": """#!/usr/bin/env bash
echo "2: $5    inet 10.0.0.1/24 brd 10.0.0.255 scope global $5"
""",
    "sleep": "#!/usr/bin/env bash\nexit 0\n",
    "perftest": r"""#!/usr/bin/env bash
# a perftest stand-in: --help offers --out_json; a run writes its JSON where it is told
if [ "${1:-}" = --help ]; then echo "  --out_json  --out_json_file=<file>"; exit 0; fi
for a in "$@"; do
  case "$a" in --out_json_file=*) printf '{}\n' > "${a#--out_json_file=}" ;; esac
done
echo "#bytes #iterations BW average[Gb/sec]"
""",
    "mpirun": r"""#!/usr/bin/env bash
# record the program mpirun would start on every host of -H, and the modes it has there
hosts=
while [ $# -gt 0 ]; do
  case "$1" in
    -H) hosts=$2; shift 2 ;;
    -np|--bind-to|-x) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
IFS=, read -r -a hl <<< "$hosts"
for h in "${hl[@]}"; do
  h=${h%%:*}
  prog=${1//\/tmp\//$SANDBOX/$h/tmp/}
  printf '%s %s %s %s\n' "$h" "$1" "$(stat -c %a "$(dirname "$prog")")" "$(stat -c %a "$prog")" >> "$SANDBOX/mpirun.log"
done
""",
}
HOSTS = ("gpu1", "gpu2", "gpu3", "gpu4")  # the lab intent's hosts
PERFTEST_TOOLS = ("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_write_lat", "ib_read_lat", "ib_send_lat")


def _run_script(
    tmp: Path, script: Path, plant: Callable[[Path], None] | None = None
) -> tuple[subprocess.CompletedProcess, Path]:
    sandbox = tmp / "sandbox"
    for host in HOSTS:
        (sandbox / host / "tmp").mkdir(parents=True)
        (sandbox / host / "tmp").chmod(0o1777)  # each host's shared temp directory
        if plant:
            plant(sandbox / host / "tmp")
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for name, body in FAKES.items():
        for n in PERFTEST_TOOLS if name == "perftest" else (name,):
            (bin_dir / n).write_text(body)
            (bin_dir / n).chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "SANDBOX": str(sandbox),
        "SSH_COMMAND": str(bin_dir / "ssh"),
        "REPEATS": "1",
        "RESULTS": "results",
        "HOME": str(tmp),
    }
    res = subprocess.run(
        ["bash", str(script)], cwd=tmp, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    return res, sandbox


def _plan_script(tmp: Path) -> Path:
    script = tmp / "plan.sh"
    o = run("acceptance", "plan", str(LAB), "--format", "shell", "--output", str(script))
    check(o, bad_input=False, rc=0)
    return script


def _shared(sandbox: Path) -> dict[str, list[str]]:
    return {h: sorted(os.listdir(sandbox / h / "tmp")) for h in HOSTS}


def test_the_script_writes_and_runs_nothing_under_a_fixed_name_in_shared_tmp(tmp_path: Path) -> None:
    script = _plan_script(tmp_path)
    res, sandbox = _run_script(tmp_path, script)
    assert res.returncode == 0, res.stderr[-2000:]
    # the run left nothing in any host's shared temp directory: its private directory is removed at the end
    assert _shared(sandbox) == {h: [] for h in HOSTS}
    log = (sandbox / "ssh.log").read_text()
    made = re.findall(r"mkdir -m 700 -- (\S+)", log)
    assert len(made) == len(HOSTS), log[:2000]
    private = {re.sub(r"^.*/tmp/", "/tmp/", m) for m in made}
    assert len(private) == 1  # one name, created on each host
    (run_dir,) = private
    assert re.fullmatch(r"/tmp/roceconf\.[A-Za-z0-9]{10}", run_dir), run_dir
    # every path the script uses in a host's temp directory is inside that directory
    used = re.findall(rf"{re.escape(str(sandbox))}/[^/]+/tmp/[^\s'\"]*", log)
    assert used
    for path in used:
        inner = "/" + path[len(str(sandbox)) + 1 :].partition("/")[2]  # the path on its host
        assert inner == run_dir or inner.startswith(run_dir + "/"), path
    # mpirun starts the NCCL environment script from the private directory on every host, both mode 0700
    started = (sandbox / "mpirun.log").read_text().splitlines()
    assert {line.split()[0] for line in started} == set(HOSTS)
    for line in started:
        _host, prog, dir_mode, file_mode = line.split()
        assert prog == f"{run_dir}/nccl-env.sh" and dir_mode == "700" and file_mode == "700", line
    # a second run gets another private directory
    shutil.rmtree(sandbox)
    shutil.rmtree(tmp_path / "bin")
    _, sandbox = _run_script(tmp_path, script)
    again = re.findall(r"mkdir -m 700 -- (\S+)", (sandbox / "ssh.log").read_text())
    assert again and re.sub(r"^.*/tmp/", "/tmp/", again[0]) != run_dir


def test_a_planted_file_under_the_old_fixed_names_is_neither_run_nor_overwritten(tmp_path: Path) -> None:
    script = _plan_script(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("original\n")

    def plant(shared: Path) -> None:  # what another user of the host could put there before the run
        (shared / "roceconf-nccl-env.sh").symlink_to(victim)

    res, sandbox = _run_script(tmp_path, script, plant)
    assert res.returncode == 0, res.stderr[-2000:]
    assert victim.read_text() == "original\n"
    assert _shared(sandbox) == {h: ["roceconf-nccl-env.sh"] for h in HOSTS}  # the planted link, untouched
    for line in (sandbox / "mpirun.log").read_text().splitlines():
        assert "roceconf-nccl-env.sh" not in line
