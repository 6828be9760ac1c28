"""Feedback configs through the official Python client: create_feedback_config (the same config
again, a different one refused), list_feedback_configs by key, part of the key and enforcement,
update_feedback_config, add_feedback_categories, remove_feedback_categories, delete_feedback_config
by key and by id. The client validates every answer against its FeedbackConfigSchema model. The
key prefix comes as the first argument; prints one JSON line with what the client made of the
answers."""

import sys
from typing import Any


from _harness import emit, error_of, recorded_client

prefix = sys.argv[1]
client = recorded_client()


def config(c: Any) -> dict[str, Any]:
    return {
        "type": type(c).__name__,
        "id": str(c.id),
        "feedback_key": c.feedback_key,
        "feedback_config": dict(c.feedback_config),
        "is_lower_score_better": c.is_lower_score_better,
        "is_enforced": c.is_enforced,
        "is_first": c.is_first,
    }



score_key = f"{prefix}-correctness"
tag_key = f"{prefix}-tone"
score = client.create_feedback_config(
    score_key, feedback_config={"type": "continuous", "min": 0, "max": 1}, is_lower_score_better=False
)
again = client.create_feedback_config(score_key, feedback_config={"type": "continuous", "min": 0, "max": 1})
different = error_of(lambda: client.create_feedback_config(score_key, feedback_config={"type": "freeform"}))
tags = client.create_feedback_config(
    tag_key,
    feedback_config={
        "type": "categorical",
        "categories": [{"value": 0, "label": "rude"}, {"value": 1, "label": "polite"}],
    },
    is_enforced=True,
)
listed = [c.feedback_key for c in client.list_feedback_configs(name_contains=prefix)]
listed_by_key = [c.feedback_key for c in client.list_feedback_configs(feedback_key=[tag_key])]
listed_enforced = [c.feedback_key for c in client.list_feedback_configs(name_contains=prefix, is_enforced=True)]
updated = client.update_feedback_config(
    score_key, feedback_config={"type": "continuous", "min": 0, "max": 10}, is_lower_score_better=True
)
added = client.add_feedback_categories(tag_key, [{"value": 2, "label": "warm"}])
removed = client.remove_feedback_categories(tag_key, [0], config_id=tags.id)
too_few = error_of(lambda: client.remove_feedback_categories(tag_key, [1, 2]))
client.delete_feedback_config(config_id=tags.id)
client.delete_feedback_config(score_key)
after = [c.feedback_key for c in client.list_feedback_configs(name_contains=prefix)]
all_after = [
    (c.feedback_key, c.is_deleted)
    for c in client.list_feedback_configs(name_contains=prefix, include_all_configs=True)
]

emit(
    {
        "score": config(score),
        "again": config(again),
        "different": different,
        "tags": config(tags),
        "listed": listed,
        "listed_by_key": listed_by_key,
        "listed_enforced": listed_enforced,
        "updated": config(updated),
        "added": config(added),
        "removed": config(removed),
        "too_few": too_few,
        "after": after,
        "all_after": all_after,
    }
)
