"""Examples and dataset versions through the official Python client: create_example(s) with
splits, metadata and attachments, read_example (also as of a version), list_examples by
dataset, ids, splits, metadata and as_of, update_example(s), update_dataset_splits,
list_dataset_splits, read_dataset_version, update_dataset_tag, list_dataset_versions,
diff_dataset_versions, delete_example(s) (soft and hard), upload_csv. The client validates every
answer against its models. The name prefix comes as the first argument; prints one JSON line with
what the client made of the answers."""

import datetime
import io
import sys
import uuid
from typing import Any

from _harness import emit, error_of, recorded_client

prefix = sys.argv[1]
client = recorded_client()


def brief(e: Any) -> dict[str, Any]:
    return {
        "type": type(e).__name__,
        "id": str(e.id),
        "dataset_id": str(e.dataset_id),
        "inputs": e.inputs,
        "outputs": e.outputs,
        "metadata": e.metadata,
        "modified_at": e.modified_at.isoformat() if e.modified_at else None,
        "attachments": sorted((e.attachments or {}).keys()),
    }


def ids(examples: Any) -> list[str]:
    return sorted(str(e.id) for e in examples)


dataset = client.create_dataset(f"{prefix}-examples")
one = client.create_example(
    inputs={"question": "2+2?"},
    outputs={"answer": "4"},
    dataset_id=dataset.id,
    metadata={"level": "easy"},
    split="train",
)
made = [str(uuid.uuid4()) for _ in range(3)]
created = client.create_examples(
    dataset_id=dataset.id,
    examples=[
        {"id": made[0], "inputs": {"q": "a"}, "outputs": {"a": "A"}, "metadata": {"level": "hard"}, "split": "test"},
        {"id": made[1], "inputs": {"q": "b"}, "outputs": {"a": "B"}, "split": ["test", "train"]},
        {
            "id": made[2],
            "inputs": {"q": "c"},
            "outputs": {"a": "C"},
            "attachments": {"notes": ("text/plain", b"hello attachment")},
        },
    ],
)
with_file = client.read_example(made[2])
attachment = with_file.attachments["notes"]
attachment_bytes = attachment["reader"].read().decode()

listed = list(client.list_examples(dataset_id=dataset.id))
listed_by_name = list(client.list_examples(dataset_name=dataset.name, splits=["test"]))
listed_by_metadata = list(client.list_examples(dataset_id=dataset.id, metadata={"level": "hard"}))
listed_by_ids = list(client.list_examples(dataset_id=dataset.id, example_ids=[made[0], str(one.id)]))
listed_paged = list(client.list_examples(dataset_id=dataset.id, limit=2))
splits = sorted(client.list_dataset_splits(dataset_id=dataset.id))

first_version = client.read_dataset_version(dataset_id=dataset.id, as_of=datetime.datetime.now(datetime.timezone.utc))
client.update_dataset_tag(dataset_id=dataset.id, as_of=first_version.as_of, tag="prod")

client.update_example(one.id, inputs={"question": "3+3?"}, outputs={"answer": "6"})
client.update_examples(
    dataset_id=dataset.id,
    updates=[{"id": made[0], "metadata": {"level": "medium"}}, {"id": made[1], "split": "validation"}],
)
client.update_dataset_splits(dataset_id=dataset.id, split_name="golden", example_ids=[made[0]])
updated = [brief(client.read_example(i)) for i in (str(one.id), made[0], made[1])]
one_then = brief(client.read_example(one.id, as_of=first_version.as_of))

client.delete_example(made[1])
client.delete_examples([made[0]])
client.delete_examples([made[2]], hard_delete=True)
after_delete = ids(client.list_examples(dataset_id=dataset.id))
at_tag = ids(client.list_examples(dataset_id=dataset.id, as_of="prod"))
versions = [{"as_of": v.as_of.isoformat(), "tags": v.tags} for v in client.list_dataset_versions(dataset_id=dataset.id)]
tagged = client.read_dataset_version(dataset_id=dataset.id, tag="prod")
diff = client.diff_dataset_versions(dataset_id=dataset.id, from_version="prod", to_version="latest")

csv = io.BytesIO(b"question,answer,notes\nWhat is 1+1?,2,easy\nWhat is 2*3?,6,hard\n")
uploaded = client.upload_csv((f"{prefix}-upload.csv", csv), input_keys=["question"], output_keys=["answer"], name=f"{prefix}-csv")
uploaded_examples = [(e.inputs, e.outputs) for e in client.list_examples(dataset_id=uploaded.id)]

emit(
    {
        "dataset_id": str(dataset.id),
        "one": brief(one),
        "created": created,
        "made": made,
        "with_file": brief(with_file),
        "attachment_type": attachment["mime_type"],
        "attachment_bytes": attachment_bytes,
        "listed": ids(listed),
        "listed_types": sorted({type(e).__name__ for e in listed}),
        "listed_by_name": ids(listed_by_name),
        "listed_by_metadata": ids(listed_by_metadata),
        "listed_by_ids": ids(listed_by_ids),
        "listed_paged": len(listed_paged),
        "splits": splits,
        "first_version": first_version.as_of.isoformat(),
        "updated": updated,
        "one_then": one_then,
        "after_delete": after_delete,
        "at_tag": at_tag,
        "versions": versions,
        "tagged": {"as_of": tagged.as_of.isoformat(), "tags": tagged.tags},
        "diff": {
            "added": sorted(str(i) for i in diff.examples_added),
            "removed": sorted(str(i) for i in diff.examples_removed),
            "modified": sorted(str(i) for i in diff.examples_modified),
        },
        "uploaded": {"name": uploaded.name, "example_count": uploaded.example_count},
        "uploaded_examples": sorted(uploaded_examples, key=lambda x: str(x)),
        "missing": error_of(lambda: client.read_example(made[1])),
    }
)
