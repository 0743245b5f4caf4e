"""Rule IDs of the acceptance verdict (RC401-RC412) and of the acceptance baseline in drift (RC400, RC413).
Registered in the one rule catalogue (docs/rules.md, SARIF)."""

from __future__ import annotations

from roceconf.intent.rules import rule

for _id, _sev, _title, _hint, _why in [
    ("RC400", "warning", "Acceptance baseline is stale",
     "re-run the acceptance test (roceconf acceptance plan) and record a new baseline",
     "the fabric changed (firmware, driver, OS, config) since its acceptance result was measured: that result no "
     "longer proves the lossless path"),
    ("RC401", "error", "Acceptance bandwidth below the pass mark",
     "check PFC/ECN counters (roceconf health), cabling and NIC firmware on the slow path",
     "bandwidth well below line rate at large messages means drops, pauses or a lossy hop on the path"),
    ("RC402", "error", "Acceptance latency above the bound",
     "check the path for queueing (ECN marks, pauses) and the NIC's interrupt/CPU settings",
     "high small-message latency points at queueing or a congested hop"),
    ("RC403", "error", "Collective computed wrong results",
     "run the collective again with -c 1 and check GPU/NIC health",
     "wrong elements or out-of-bounds values mean data corruption: no bandwidth figure counts"),
    ("RC404", "error", "Acceptance test ran with another traffic class",
     "set NCCL_IB_TC / perftest -T to the plan's value (TOS = RoCE DSCP << 2)",
     "traffic marked with another DSCP lands in another (often lossy) queue: the test measured a path "
     "production will not use"),
    ("RC405", "error", "Acceptance test ran on other HCAs or hosts",
     "set NCCL_IB_HCA / perftest -d to the plan's devices and run on the plan's hosts",
     "a run over other NICs or hosts says nothing about the planned rails"),
    ("RC406", "warning", "Outlier pair", "check that pair's NICs, cables and leaf ports",
     "one pair well below its peers is usually one bad link, optic or NIC"),
    ("RC407", "warning", "Asymmetric pair", "compare the two directions' switch ports and NIC counters",
     "one slow direction points at a one-sided problem (PFC on one end only, a bad transmit lane)"),
    ("RC408", "warning", "Results vary across repeats", "re-run; look for other traffic or flapping links",
     "unstable bandwidth hides intermittent pauses or retransmissions"),
    ("RC409", "error", "Result file unreadable or unmatched", "give the files the plan's script wrote",
     "a test without a readable result has not passed"),
    ("RC410", "warning", "Traffic class not shown by the result",
     "run nccl-tests with NCCL_DEBUG=INFO or -J, perftest with -R -T",
     "without it the verdict cannot confirm the test used the lossless class"),
    ("RC411", "error", "NCCL ran over TCP sockets", "check NCCL_IB_HCA, the RDMA devices and NCCL_NET",
     "a socket run does not touch the RoCE path at all"),
    ("RC412", "error", "Planned test has no result", "run the plan's script again for that test",
     "the acceptance test is incomplete"),
    ("RC413", "warning", "Acceptance baseline cannot be checked on a device",
     "make the device readable (inventory, credentials) and audit again",
     "an unread device may have changed since the accepted test"),
]:
    rule(_id, _sev, _title, _hint, _why)
