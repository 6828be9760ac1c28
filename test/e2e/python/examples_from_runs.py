"""Examples made from traced runs through the official Python client: create_example_from_run
into a kv dataset (the run's inputs and outputs as they are), an llm one (the prompt and the
generation's text) and a chat one (the messages and the generation's message), by dataset id and
by name; create_examples with source_run_ids; create_example with use_source_run_io (the server
takes the run's inputs and outputs). The name prefix comes as the first argument; prints one JSON
line with what the client made of the answers."""

import datetime
import sys
import time
import uuid

from langsmith.schemas import DataType

from _harness import emit, recorded_client

prefix = sys.argv[1]
client = recorded_client()

project = f"{prefix}-source-runs"
specs = {
    "kv": ("chain", {"question": "2+2?"}, {"answer": "4"}),
    "llm": ("llm", {"prompt": "Say hi"}, {"generations": [{"text": "hi"}]}),
    "chat": (
        "llm",
        {"messages": [{"type": "human", "data": {"content": "Say hi"}}]},
        {"generations": [{"message": {"type": "ai", "data": {"content": "hi"}}}]},
    ),
}
ids = {kind: str(uuid.uuid4()) for kind in specs}
for kind, (run_type, inputs, outputs) in specs.items():
    now = datetime.datetime.now(datetime.timezone.utc)
    client.create_run(
        id=ids[kind],
        name=f"{kind}-run",
        run_type=run_type,
        inputs=inputs,
        outputs=outputs,
        project_name=project,
        start_time=now,
        end_time=now,
    )
client.flush()
deadline = time.monotonic() + 60
while len(list(client.list_runs(project_name=project, is_root=True))) < len(specs):
    assert time.monotonic() < deadline, "the runs did not arrive"
    time.sleep(0.25)
runs = {kind: client.read_run(ids[kind]) for kind in specs}

kv = client.create_dataset(f"{prefix}-kv")
llm = client.create_dataset(f"{prefix}-llm", data_type=DataType.llm)
chat = client.create_dataset(f"{prefix}-chat", data_type=DataType.chat)
from_kv = client.create_example_from_run(runs["kv"], dataset_id=kv.id)
from_llm = client.create_example_from_run(runs["llm"], dataset_name=llm.name)
from_chat = client.create_example_from_run(runs["chat"], dataset_id=chat.id)

made = client.create_examples(
    dataset_id=kv.id,
    inputs=[runs["kv"].inputs],
    outputs=[runs["kv"].outputs],
    source_run_ids=[ids["kv"]],
)
with_source = client.read_example(made["example_ids"][0])
from_io = client.create_example(dataset_id=kv.id, source_run_id=ids["kv"], use_source_run_io=True)


def brief(example):
    return {
        "dataset_id": str(example.dataset_id),
        "inputs": example.inputs,
        "outputs": example.outputs,
        "source_run_id": str(example.source_run_id) if example.source_run_id else None,
    }


emit(
    {
        "run_ids": ids,
        "datasets": {"kv": str(kv.id), "llm": str(llm.id), "chat": str(chat.id)},
        "from_kv": brief(from_kv),
        "from_llm": brief(from_llm),
        "from_chat": brief(from_chat),
        "with_source": brief(with_source),
        "from_io": brief(from_io),
        "kv_count": len(list(client.list_examples(dataset_id=kv.id))),
    }
)
