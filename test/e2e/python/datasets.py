"""Datasets through the official Python client: create_dataset (kv and chat, with metadata and
schemas), a duplicate name, read_dataset by id and by name, list_datasets with filters,
has_dataset, delete_dataset, create_chat_example and read_dataset_openai_finetuning. The client validates every answer against its Dataset model. The
name prefix comes as the first argument; prints one JSON line with what the client made of the
answers."""

import sys
from typing import Any

from langsmith import schemas

from _harness import emit, error_of, iso, recorded_client

prefix = sys.argv[1]
client = recorded_client()


def dataset(d: Any) -> dict[str, Any]:
    return {
        "type": type(d).__name__,
        "id": str(d.id),
        "name": d.name,
        "description": d.description,
        "data_type": d.data_type.value if d.data_type else None,
        "metadata": d.metadata,
        "inputs_schema": d.inputs_schema,
        "outputs_schema": d.outputs_schema,
        "example_count": d.example_count,
        "session_count": d.session_count,
        "created_at": iso(d.created_at),
        "modified_at": iso(d.modified_at),
    }



inputs_schema = {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}
kv = client.create_dataset(
    f"{prefix}-kv",
    description="from python",
    metadata={"suite": "py"},
    inputs_schema=inputs_schema,
)
chat = client.create_dataset(f"{prefix}-chat", data_type=schemas.DataType.chat)
duplicate = error_of(lambda: client.create_dataset(f"{prefix}-kv"))

by_id = client.read_dataset(dataset_id=kv.id)
by_name = client.read_dataset(dataset_name=f"{prefix}-chat")
listed = [d.name for d in client.list_datasets(dataset_name_contains=prefix)]
listed_by_ids = [d.name for d in client.list_datasets(dataset_ids=[kv.id])]
listed_by_type = [d.name for d in client.list_datasets(data_type="chat", dataset_name_contains=prefix)]
listed_by_metadata = [d.name for d in client.list_datasets(metadata={"suite": "py"})]
has_before = client.has_dataset(dataset_name=f"{prefix}-kv")
missing = error_of(lambda: client.read_dataset(dataset_name=f"{prefix}-missing"))

# A chat example, read back in OpenAI's fine-tuning format (JSON Lines the client parses).
client.create_chat_example(
    messages=[{"role": "user", "content": "What is 2+2?"}],
    generations={"role": "assistant", "content": "4"},
    dataset_id=chat.id,
)
finetuning = client.read_dataset_openai_finetuning(dataset_id=chat.id)

client.delete_dataset(dataset_name=f"{prefix}-kv")
has_after = client.has_dataset(dataset_name=f"{prefix}-kv")
read_deleted = error_of(lambda: client.read_dataset(dataset_id=kv.id))

emit(
    {
        "kv": dataset(kv),
        "chat": dataset(chat),
        "duplicate": duplicate,
        "by_id": dataset(by_id),
        "by_name": dataset(by_name),
        "listed": listed,
        "listed_by_ids": listed_by_ids,
        "listed_by_type": listed_by_type,
        "listed_by_metadata": listed_by_metadata,
        "has_before": has_before,
        "missing": missing,
        "has_after": has_after,
        "read_deleted": read_deleted,
        "finetuning": finetuning,
    }
)
