# SPDX-License-Identifier: Apache-2.0
#
# Opens ETDump files that `etref profile` wrote with ExecuTorch's own devtools
# Inspector and checks its events against what etref measured (the JSON
# written by the same command: per instruction, every recorded duration in
# run order):
#   - the Inspector parses the file (size-prefixed "ED00" FlatBuffer);
#   - event blocks: "Default" (Method::init, Program::load_method) and the
#     timed "Execute" runs aggregated into one block, plus the capture run's
#     block when debug events were written;
#   - per instruction: the event name ExecuTorch uses
#     (native_call_<op>.<overload>, OPERATOR_CALL, DELEGATE_CALL), the
#     instruction id, and raw durations equal to etref's (ns -> ms) in run
#     order, hence the same p10/p50/p90/min/max; Method::execute per run;
#   - delegate events: is_delegated_op with etref's debug ids;
#   - debug events: intermediate outputs and the run output read back from
#     the debug buffer, shapes as the program says, the output close to
#     PyTorch eager's.
# Usage: inspector_check.py ETDUMP JSON [--debug-buffer BIN --expected NPY]
#        [--delegate]
# Exit 0 when everything matches; 1 with the first mismatch otherwise.
import argparse
import json
import sys
import warnings


def fail(message):
    print("inspector_check: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def close(a, b, tolerance=1e-6):
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("etdump")
    parser.add_argument("profile_json")
    parser.add_argument("--debug-buffer")
    parser.add_argument("--expected")
    parser.add_argument("--delegate", action="store_true")
    args = parser.parse_args()

    warnings.filterwarnings("ignore")
    from importlib import metadata

    from executorch.devtools import Inspector

    version = metadata.version("executorch")
    profile = json.load(open(args.profile_json))
    variant = profile["variants"][0]
    rows = variant["instructions"]
    runs = variant["runs"]

    kwargs = {}
    if args.debug_buffer:
        kwargs["debug_buffer_path"] = args.debug_buffer
    inspector = Inspector(etdump_path=args.etdump, **kwargs)
    blocks = inspector.event_blocks
    names = [block.name for block in blocks]
    if names[0] != "Default":
        fail("first block is %r, not ExecuTorch's 'Default'" % names[0])
    default_events = sorted(event.name for event in blocks[0].events)
    if default_events != ["Method::init", "Program::load_method"]:
        fail("Default block holds %r" % default_events)
    timed = blocks[1]
    if timed.name != "Execute":
        fail("second block is %r, not 'Execute'" % timed.name)
    expected_blocks = 3 if args.debug_buffer else 2
    if len(blocks) != expected_blocks:
        fail("%d event blocks, expected %d (%r)" % (len(blocks), expected_blocks, names))

    # Index the timed block's events by (name, instruction id).
    events = {}
    for event in timed.events:
        key = (event.name, event._instruction_id)
        if key in events:
            fail("two events named %r at instruction %r" % key)
        events[key] = event

    checked = 0
    for row in rows:
        if row["chain"] != 0:
            continue
        instruction = row["instruction"]
        operator = row["operator"]
        raw_ms = [value / 1000.0 for value in row["raw_us"]]
        if len(raw_ms) != runs:
            fail("etref recorded %d calls of instruction %d over %d runs"
                 % (len(raw_ms), instruction, runs))
        wanted = []
        if row["kernel"] == "delegate":
            wanted.append("DELEGATE_CALL")
        elif row["kernel"] in ("reference", "optimized"):
            bare = operator.split("::", 1)[-1]
            wanted += ["native_call_" + bare, "OPERATOR_CALL"]
        else:
            wanted.append("OPERATOR_CALL")
        for name in wanted:
            event = events.get((name, instruction))
            if event is None:
                fail("no %r event at instruction %d (%s); the Inspector has %r"
                     % (name, instruction, operator, sorted(events)))
            theirs = event.perf_data.raw
            if len(theirs) != len(raw_ms) or not all(
                    close(a, b) for a, b in zip(theirs, raw_ms)):
                fail("%s at instruction %d: Inspector times %r ms, etref measured %r ms"
                     % (name, instruction, theirs, raw_ms))
            if not close(event.perf_data.p50, row["time_us"]["p50"] / 1000.0):
                fail("%s at instruction %d: Inspector p50 %r ms, etref p50 %r us"
                     % (name, instruction, event.perf_data.p50, row["time_us"]["p50"]))
            if event.is_delegated_op:
                fail("%s at instruction %d is marked delegated" % (name, instruction))
            checked += 1

    execute = events.get(("Method::execute", 0))
    if execute is None:
        fail("no Method::execute event")
    run_ms = [value / 1000.0 for value in variant["run_raw_us"]]
    if not all(close(a, b) for a, b in zip(execute.perf_data.raw, run_ms)):
        fail("Method::execute %r ms vs etref's runs %r ms" % (execute.perf_data.raw, run_ms))

    delegated = [event for event in timed.events if event.is_delegated_op]
    if args.delegate:
        ids = sorted({d["debug_id"] for d in variant["delegate_events"]})
        theirs = sorted({event.delegate_debug_identifier for event in delegated})
        if not ids or ids != theirs:
            fail("delegate debug ids: Inspector %r, etref %r" % (theirs, ids))
        for event in delegated:
            if len(event.perf_data.raw) != runs:
                fail("delegate event %r has %d samples for %d runs"
                     % (event.name, len(event.perf_data.raw), runs))
        checked += len(delegated)
    elif delegated:
        fail("unexpected delegated events %r" % [e.name for e in delegated])

    if args.debug_buffer:
        capture = blocks[2]
        with_data = [e for e in capture.events if e.debug_data]
        if not with_data:
            fail("the capture block has no intermediate outputs")
        for event in with_data:
            row = next((r for r in rows if r["instruction"] == event._instruction_id), None)
            if row is None:
                fail("debug data at unknown instruction %r" % event._instruction_id)
            shape = list(event.debug_data[0].shape)
            produced = row["shapes"].split("-> ")[-1].split("]")[0].split("[")[-1]
            expected_shape = [int(x) for x in produced.split(",") if x]
            if shape != expected_shape:
                fail("instruction %d output shape %r, program says %r"
                     % (event._instruction_id, shape, expected_shape))
        outputs = capture.run_output
        if not outputs:
            fail("the capture block has no run output")
        if args.expected:
            import numpy as np
            expected = np.load(args.expected)
            got = outputs[0].numpy()
            if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-4, atol=1e-5):
                fail("run output from the debug buffer differs from %s (max |diff| %g)"
                     % (args.expected, float(np.max(np.abs(got - expected)))))
        checked += len(with_data)

    print("inspector_check: executorch %s Inspector read %s: %d blocks, %d events checked against etref's measurements"
          % (version, args.etdump, len(blocks), checked))


if __name__ == "__main__":
    main()
