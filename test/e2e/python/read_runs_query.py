"""Reads back, with the official Python client's list_runs / read_run / read_thread /
list_threads (each validating the server's answers against its Run model) and get_run_stats,
the runs that read_runs_trace.py traced. Argument: JSON {project, thread_ids, trace_id, bulk_id,
failing_id, leaf_id, chat_ids, since}. Prints one JSON line: every listing as a list of runs, the runs
read with their child trees, the threads, the stats; a call that raised is reported under
"errors" instead of stopping the rest.
"""

import datetime
import json
import sys
import traceback
from typing import Any, Callable, Iterable

from langsmith import schemas

from _harness import emit, iso, recorded_client

spec = json.loads(sys.argv[1])
project = spec["project"]
client = recorded_client()
errors: dict[str, str] = {}


def as_json(run: schemas.Run) -> dict[str, Any]:
    return {
        "id": str(run.id),
        "name": run.name,
        "run_type": run.run_type,
        "trace_id": str(run.trace_id),
        "parent_run_id": str(run.parent_run_id) if run.parent_run_id else None,
        "dotted_order": run.dotted_order,
        "session_id": str(run.session_id) if run.session_id else None,
        "status": run.status,
        "error": run.error,
        "inputs": run.inputs,
        "outputs": run.outputs,
        "tags": run.tags,
        "metadata": (run.extra or {}).get("metadata", {}),
        "prompt_tokens": run.prompt_tokens,
        "completion_tokens": run.completion_tokens,
        "total_tokens": run.total_tokens,
        "total_cost": run.total_cost,
        "start_time": iso(run.start_time),
        "end_time": iso(run.end_time),
        "feedback_stats": run.feedback_stats,
        "child_runs": [as_json(c) for c in run.child_runs] if run.child_runs is not None else None,
    }


def attempt(name: str, fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception:  # reported to the test, which fails naming the call
        errors[name] = traceback.format_exc()[-3000:]
        return None


project_id = str(client.read_project(project_name=project).id)
lists: dict[str, list[dict[str, Any]]] = {}


def listing(name: str, runs: Callable[[], Iterable[schemas.Run]]) -> None:
    got = attempt(name, lambda: [as_json(r) for r in runs()])
    if got is not None:
        lists[name] = got


listing("all", lambda: client.list_runs(project_name=project))
listing("by_project_id", lambda: client.list_runs(project_id=project_id))
listing("limit_5", lambda: client.list_runs(project_id=project_id, limit=5))
listing("limit_130", lambda: client.list_runs(project_id=project_id, limit=130))
listing("roots", lambda: client.list_runs(project_name=project, is_root=True))
listing("llm", lambda: client.list_runs(project_name=project, run_type="llm"))
listing("errors", lambda: client.list_runs(project_name=project, error=True))
listing("no_errors", lambda: client.list_runs(project_name=project, error=False))
listing("trace", lambda: client.list_runs(project_id=project_id, trace_id=spec["trace_id"]))
listing("bulk_trace", lambda: client.list_runs(trace_id=spec["bulk_id"]))
listing("bulk_children", lambda: client.list_runs(project_id=project_id, parent_run_id=spec["bulk_id"]))
listing("by_run_ids", lambda: client.list_runs(run_ids=spec["chat_ids"]))
listing("llm_tagged_x", lambda: client.list_runs(project_id=project_id, filter='and(eq(run_type, "llm"), has(tags, "x"))'))
listing("metadata_key_thread_id", lambda: client.list_runs(project_id=project_id, filter='eq(metadata_key, "thread_id")'))
thread_a = spec["thread_ids"][0]
listing(
    "metadata_thread_a",
    lambda: client.list_runs(project_id=project_id, filter=f'and(eq(metadata_key, "thread_id"), eq(metadata_value, {json.dumps(thread_a)}))'),
)
for label, thread in zip(["thread_a", "thread_b", "thread_c", "thread_d", "thread_shadowed"], spec["thread_ids"]):
    listing(label, lambda thread=thread: client.list_runs(project_id=project_id, filter=f"eq(thread_id, {json.dumps(thread)})"))
listing("liked", lambda: client.list_runs(project_id=project_id, filter='and(eq(feedback_key, "user_score"), eq(feedback_score, 1))'))
listing(
    "chats_of_liked",
    lambda: client.list_runs(project_id=project_id, filter='eq(name, "chat")', trace_filter='and(eq(feedback_key, "user_score"), eq(feedback_score, 1))'),
)
listing("helped_roots", lambda: client.list_runs(project_id=project_id, is_root=True, tree_filter='eq(feedback_key, "helpful")'))
since = datetime.datetime.fromisoformat(spec["since"].replace("Z", "+00:00"))
listing("since", lambda: client.list_runs(project_id=project_id, start_time=since))
listing("since_naive", lambda: client.list_runs(project_id=project_id, start_time=since.replace(tzinfo=None)))
listing(
    "selected",
    lambda: client.list_runs(project_id=project_id, select=["id", "name", "run_type", "trace_id", "start_time", "thread_id", "total_tokens"]),
)

read_runs: dict[str, Any] = {}
for label, run_id, children in [("turn", spec["trace_id"], True), ("failing", spec["failing_id"], True), ("bulk", spec["bulk_id"], True), ("leaf", spec["leaf_id"], False)]:
    got = attempt(f"read_run {label}", lambda run_id=run_id, children=children: as_json(client.read_run(run_id, load_child_runs=children)))
    if got is not None:
        read_runs[label] = got

threads = (
    attempt(
        "list_threads",
        lambda: [
            {
                "thread_id": t["thread_id"],
                "count": t["count"],
                "run_ids": [str(r.id) for r in t["runs"]],
                "min_start_time": t["min_start_time"],
                "max_start_time": t["max_start_time"],
            }
            for t in client.list_threads(project_name=project)
        ],
    )
    or []
)
read_threads: dict[str, list[str]] = {}
for thread in spec["thread_ids"]:
    got = attempt(f"read_thread {thread}", lambda thread=thread: [str(r.id) for r in client.read_thread(thread_id=thread, project_name=project)])
    if got is not None:
        read_threads[thread] = got

stats = {
    "all": attempt("get_run_stats", lambda: client.get_run_stats(project_names=[project])),
    "roots": attempt("get_run_stats is_root", lambda: client.get_run_stats(project_ids=[project_id], is_root=True)),
}

emit({"project_id": project_id, "lists": lists, "read_runs": read_runs, "threads": threads, "read_threads": read_threads, "stats": stats, "errors": errors})
