"""The read calls of the Python client that go through its generated resources: the streamed
queries (`runs.streaming.query_v2_items`, `traces.streaming.query_items`,
`threads.streaming.query_items`), run URLs (`get_run_url`, `runs.get_url`), address resolution
(`sessions.resolve`) and thread aggregate stats. The spec comes as one JSON argument; prints one
JSON line with what the client got."""

import asyncio
import json
import sys
from typing import Any

import langsmith
from langsmith import Client

from _harness import emit, recorded_client

spec = json.loads(sys.argv[1])
client: Client = recorded_client()
out: dict[str, Any] = {"langsmith_version": langsmith.__version__, "errors": {}}


async def main() -> None:
    project_id = spec["project_id"]
    runs = client.runs.streaming.query_v2_items(
        project_ids=[project_id], page_size=spec["runs_page_size"], selects=["ID", "NAME", "START_TIME", "APP_PATH"]
    )
    out["runs"] = [{"id": r.id, "name": r.name, "app_path": r.app_path} async for r in runs]
    traces = client.traces.streaming.query_items(project_id=project_id, page_size=spec["traces_page_size"])
    out["traces"] = [t.root_run.id async for t in traces]
    threads = client.threads.streaming.query_items(project_id=project_id, page_size=spec["threads_page_size"])
    out["threads"] = [t.thread_id async for t in threads]

    run_id, trace_id = spec["run_id"], spec["trace_id"]
    run = client.read_run(run_id)
    out["read_run_app_path"] = run.app_path
    out["read_run_url"] = run.url
    out["get_run_url"] = client.get_run_url(run=run)
    got = await client.runs.get_url(run_id, project_id=project_id, trace_id=trace_id)
    out["runs_get_url"] = got.url

    resolved = await client.sessions.resolve(kind="EXPERIMENT", id=spec["experiment_id"])
    out["resolved_experiment"] = resolved.session_id
    try:
        await client.sessions.resolve(kind="AGENT", id="support-agent", environment="PRODUCTION")
        out["errors"]["agent"] = "resolved"
    except langsmith.NotFoundError as e:
        out["agent_status"] = e.status_code

    stats = await client.threads.aggregate_stats(
        project_id=project_id, select=["THREAD_COUNT", "TRACE_COUNT", "TOTAL_TOKENS", "ERROR_RATE"]
    )
    out["thread_stats"] = stats.model_dump(exclude_none=True)


asyncio.run(main())
emit(out)
