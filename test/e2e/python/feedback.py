"""Feedback with the official Python client: create_feedback(run_id=…) without trace_id (so
POST /feedback rather than a multipart batch), read_feedback, list_feedback, update_feedback
and delete_feedback on the run given as the argument. Every answer goes through the client's
Feedback model; prints one JSON line with what the client made of them."""

import sys
from typing import Any

from langsmith import utils as ls_utils
from langsmith.schemas import Feedback

from _harness import emit, recorded_client

client = recorded_client()
run_id = sys.argv[1]


def shown(f: Feedback) -> dict[str, Any]:
    return {"type": type(f).__name__, **f.model_dump(mode="json")}


def ids(**filters: Any) -> list[str]:
    return sorted(str(f.id) for f in client.list_feedback(run_ids=[run_id], **filters))


created = client.create_feedback(
    run_id=run_id,
    key="correctness",
    score=0.8,
    value="good",
    comment="fine",
    correction={"answer": "better"},
    source_info={"reviewer": "py"},
    feedback_config={"type": "continuous", "min": 0, "max": 1},
)
other = client.create_feedback(run_id, "helpfulness", score=True)
# read at once: the server waits for its projector rather than answer 404
read = client.read_feedback(created.id)
listed = {"all": ids(), "by_key": ids(feedback_key=["correctness"]), "by_source": ids(feedback_source_type=["api"])}
client.update_feedback(created.id, score=0.2, comment="on reflection")
updated = client.read_feedback(created.id)
client.delete_feedback(other.id)
try:
    client.read_feedback(other.id)
    deleted = "still readable"
except ls_utils.LangSmithNotFoundError:
    deleted = "not found"
emit(
    {
        "created": str(created.id),
        "other": str(other.id),
        "read": shown(read),
        "listed": listed,
        "updated": shown(updated),
        "deleted": deleted,
        "after_delete": ids(),
    }
)
