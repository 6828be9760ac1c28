"""The LangSmith docs' Python quick start for evaluation, adapted only in endpoint and key: a
dataset of two examples, a target, an exact-match evaluator, a summary evaluator, evaluate() with
two repetitions; then the same experiment given to evaluate() again by name with one more
evaluator (evaluate an existing experiment), aevaluate() once, and evaluate_comparative() of the
first experiment and the async one with a pairwise evaluator. The name prefix comes as the first
argument; prints one JSON line with what the client made of it."""

import asyncio
import sys
import time
from typing import Any

from langsmith import aevaluate, evaluate
from langsmith.evaluation import evaluate_comparative

from _harness import emit, recorded_client

prefix = sys.argv[1]
client = recorded_client()

dataset = client.create_dataset(f"{prefix}-qa", description="A sample dataset in LangSmith.")
client.create_examples(
    dataset_id=dataset.id,
    examples=[
        {
            "inputs": {"question": "Which country is Mount Kilimanjaro located in?"},
            "outputs": {"answer": "Mount Kilimanjaro is located in Tanzania."},
        },
        {
            "inputs": {"question": "What is Earth's lowest point?"},
            "outputs": {"answer": "Earth's lowest point is The Dead Sea."},
        },
    ],
)


def target(inputs: dict) -> dict:
    # The docs call an LLM here; a lookup answers the same way every time.
    if "Kilimanjaro" in inputs["question"]:
        return {"answer": "Mount Kilimanjaro is located in Tanzania."}
    return {"answer": "The Dead Sea."}


def exact_match(outputs: dict, reference_outputs: dict) -> bool:
    return outputs["answer"] == reference_outputs["answer"]


def concise(outputs: dict) -> dict:
    return {"key": "concise", "score": int(len(outputs["answer"]) < 40)}


def pass_rate(outputs: list[dict], reference_outputs: list[dict]) -> dict:
    hits = sum(o["answer"] == r["answer"] for o, r in zip(outputs, reference_outputs))
    return {"key": "pass_rate", "score": hits / len(outputs)}


results = evaluate(
    target,
    data=dataset.name,
    evaluators=[exact_match],
    summary_evaluators=[pass_rate],
    experiment_prefix=f"{prefix}-first-eval",
    num_repetitions=2,
    max_concurrency=2,
    client=client,
)
rows = list(results)
experiment_name = results.experiment_name
client.flush()

# Runs reach the read model a moment after the client sent them: wait until the experiment has them.
deadline = time.monotonic() + 60
while client.read_project(project_name=experiment_name, include_stats=True).run_count != 4:
    assert time.monotonic() < deadline, "the experiment's runs did not arrive"
    time.sleep(0.25)

# Evaluate the existing experiment with one more evaluator.
again = evaluate(experiment_name, evaluators=[concise], client=client)
again_rows = list(again)
client.flush()


async def run_async() -> Any:
    async def atarget(inputs: dict) -> dict:
        return target(inputs)

    results = await aevaluate(
        atarget,
        data=dataset.name,
        evaluators=[exact_match],
        experiment_prefix=f"{prefix}-async-eval",
        client=client,
    )
    return results, [r async for r in results]


async_results, async_rows = asyncio.run(run_async())
client.flush()

# The async experiment's runs are read back by evaluate_comparative: wait until they are stored.
deadline = time.monotonic() + 60
while client.read_project(project_name=async_results.experiment_name, include_stats=True).run_count != 2:
    assert time.monotonic() < deadline, "the async experiment's runs did not arrive"
    time.sleep(0.25)


def shorter(runs: list, example: Any) -> dict:
    # Pairwise: the run with the shortest answer preferred (ties to the first).
    best = min(runs, key=lambda run: len(run.outputs["answer"]))
    return {"key": "shorter", "scores": {run.id: int(run.id == best.id) for run in runs}}


compared = evaluate_comparative(
    (experiment_name, async_results.experiment_name),
    evaluators=[shorter],
    experiment_prefix=f"{prefix}-compared",
    client=client,
)
client.flush()
comparative = compared._comparative_experiment

project = client.read_project(project_name=experiment_name)
emit(
    {
        "dataset_id": str(dataset.id),
        "experiment_name": experiment_name,
        "experiment_id": str(project.id),
        "reference_dataset_id": str(project.reference_dataset_id),
        "dataset_version": (project.extra or {}).get("metadata", {}).get("dataset_version"),
        "rows": len(rows),
        "scores": sorted(
            [r["evaluation_results"]["results"][0].score for r in rows], key=lambda s: (s is None, s)
        ),
        "again_rows": len(again_rows),
        "again_keys": sorted({res.key for r in again_rows for res in r["evaluation_results"]["results"]}),
        "async_experiment": async_results.experiment_name,
        "async_rows": len(async_rows),
        "comparative_id": str(comparative.id),
        "comparative_dataset_id": str(comparative.reference_dataset_id),
        "comparative_experiments": sorted(str(e["id"]) for e in comparative.experiments_info or []),
        "async_experiment_id": str(client.read_project(project_name=async_results.experiment_name).id),
    }
)
