"""Annotation queues through the official Python client: create_annotation_queue with a rubric,
read, list, update, add_runs_to_annotation_queue (by id and by run key), list_runs_from_annotation_queue,
get_run_from_annotation_queue, delete_run_from_annotation_queue (by run id, as Python names it),
delete_annotation_queue. The client validates every answer against its models. The name prefix
comes as the first argument; prints one JSON line with what the client made of the answers."""

import datetime
import sys
import time
import uuid

from _harness import emit, error_of, recorded_client

prefix = sys.argv[1]
client = recorded_client()

project = f"{prefix}-runs"
run_ids = [str(uuid.uuid4()) for _ in range(3)]
for i, run_id in enumerate(run_ids):
    now = datetime.datetime.now(datetime.timezone.utc)
    client.create_run(
        id=run_id,
        name=f"answer-{i}",
        run_type="chain",
        inputs={"question": f"q{i}"},
        outputs={"answer": f"a{i}"},
        project_name=project,
        start_time=now,
        end_time=now,
    )
client.flush()
deadline = time.monotonic() + 60
while len(list(client.list_runs(project_name=project, is_root=True))) < 3:
    assert time.monotonic() < deadline, "the runs did not arrive"
    time.sleep(0.25)
runs = {str(r.id): r for r in client.list_runs(project_name=project, is_root=True)}

queue = client.create_annotation_queue(
    name=f"{prefix}-queue",
    description="answers",
    rubric_instructions="Score the answer",
    rubric_items=[{"feedback_key": "quality", "description": "how good", "is_required": True}],
)
read = client.read_annotation_queue(queue.id)
listed = [str(q.id) for q in client.list_annotation_queues(name_contains=prefix)]
client.update_annotation_queue(queue.id, name=f"{prefix}-queue-2", description="updated")
updated = client.read_annotation_queue(queue.id)

client.add_runs_to_annotation_queue(queue.id, run_ids=run_ids[:2])
third = runs[run_ids[2]]
client.add_runs_to_annotation_queue(
    queue.id, runs=[{"run_id": run_ids[2], "session_id": str(third.session_id), "start_time": third.start_time}]
)
in_queue = list(client.list_runs_from_annotation_queue(queue.id))
at_0 = client.get_run_from_annotation_queue(queue.id, index=0)
client.delete_run_from_annotation_queue(queue.id, run_id=run_ids[0])
after_delete = [str(r.id) for r in client.list_runs_from_annotation_queue(queue.id)]
client.delete_annotation_queue(queue.id)

emit(
    {
        "queue": {"type": type(queue).__name__, "id": str(queue.id), "name": queue.name, "description": queue.description},
        "read": {"rubric_instructions": read.rubric_instructions, "rubric_items": read.rubric_items},
        "listed": listed,
        "updated": {"name": updated.name, "description": updated.description},
        "run_ids": run_ids,
        "in_queue": [str(r.id) for r in in_queue],
        "in_queue_types": sorted({type(r).__name__ for r in in_queue}),
        "at_0": str(at_0.id),
        "after_delete": after_delete,
        "deleted": error_of(lambda: client.read_annotation_queue(queue.id)),
    }
)
