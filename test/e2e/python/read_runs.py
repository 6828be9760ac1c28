"""Reads runs back with the official Python client's Client.read_run, which validates the
server's answer against its Run model and downloads attachments eagerly. Run ids come as
arguments; prints one JSON line with what the client made of each run."""

import sys
from typing import Any

from _harness import emit, iso, recorded_client

client = recorded_client()
runs: dict[str, Any] = {}
for run_id in sys.argv[1:]:
    run = client.read_run(run_id)
    attachments = {}
    for name, info in (run.attachments or {}).items():
        attachments[name] = {"mime_type": info.get("mime_type"), "hex": info["reader"].read().hex()}
    runs[run_id] = {
        "type": type(run).__name__,
        "id": str(run.id),
        "name": run.name,
        "run_type": run.run_type,
        "trace_id": str(run.trace_id),
        "dotted_order": run.dotted_order,
        "parent_run_id": str(run.parent_run_id) if run.parent_run_id else None,
        "session_id": str(run.session_id) if run.session_id else None,
        "status": run.status,
        "error": run.error,
        "inputs": run.inputs,
        "outputs": run.outputs,
        "tags": run.tags,
        "start_time": iso(run.start_time),
        "end_time": iso(run.end_time),
        "attachments": attachments,
    }
emit({"runs": runs})
