"""An experiment's results read back through the official Python client: evaluate() over a dataset
of two examples with two repetitions, an evaluator and a summary evaluator, then
get_experiment_results(name=...) (POST /datasets/{id}/runs: each example with the experiment's
runs and their feedback_stats; the project's stats as run_stats and feedback_stats), whole and
with a limit. The name prefix comes as the first argument; prints one JSON line with what the
client made of the answers."""

import sys
import time
import warnings

from langsmith import evaluate

from _harness import emit, recorded_client

prefix = sys.argv[1]
client = recorded_client()

dataset = client.create_dataset(f"{prefix}-results")
client.create_examples(
    dataset_id=dataset.id,
    examples=[
        {"inputs": {"question": "2+2?"}, "outputs": {"answer": "4"}},
        {"inputs": {"question": "3+3?"}, "outputs": {"answer": "6"}},
    ],
)


def target(inputs: dict) -> dict:
    # Right about the first question, wrong about the second.
    return {"answer": "4"}


def exact_match(outputs: dict, reference_outputs: dict) -> bool:
    return outputs["answer"] == reference_outputs["answer"]


def pass_rate(outputs: list[dict], reference_outputs: list[dict]) -> dict:
    hits = sum(o["answer"] == r["answer"] for o, r in zip(outputs, reference_outputs))
    return {"key": "pass_rate", "score": hits / len(outputs)}


results = evaluate(
    target,
    data=dataset.name,
    evaluators=[exact_match],
    summary_evaluators=[pass_rate],
    experiment_prefix=f"{prefix}-experiment",
    num_repetitions=2,
    client=client,
)
list(results)
name = results.experiment_name
client.flush()


def read(limit=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # get_experiment_results is deprecated, not gone
        found = client.get_experiment_results(name=name, limit=limit)
    return found, list(found["examples_with_runs"])


# Runs and feedback reach the read models a moment after the client sent them.
deadline = time.monotonic() + 60
while True:
    experiment, rows = read()
    runs = [run for row in rows for run in row.runs]
    if len(runs) == 4 and all((run.feedback_stats or {}).get("exact_match") for run in runs):
        if "pass_rate" in experiment["feedback_stats"]:
            break
    assert time.monotonic() < deadline, (
        f"the experiment's results did not arrive: runs {[(r.id, r.feedback_stats) for r in runs]}, "
        f"the experiment's feedback_stats {experiment['feedback_stats']}"
    )
    time.sleep(0.25)

_, first_only = read(limit=1)
emit(
    {
        "dataset_id": str(dataset.id),
        "experiment": name,
        "examples": [
            {
                "type": type(row).__name__,
                "id": str(row.id),
                "dataset_id": str(row.dataset_id),
                "inputs": row.inputs,
                "outputs": row.outputs,
                "runs": [
                    {
                        "type": type(run).__name__,
                        "reference_example_id": str(run.reference_example_id),
                        "session_id": str(run.session_id),
                        "outputs": run.outputs,
                        "exact_match": run.feedback_stats["exact_match"]["avg"],
                    }
                    for run in row.runs
                ],
            }
            for row in rows
        ],
        "run_count": experiment["run_stats"]["run_count"],
        "feedback_keys": sorted(experiment["feedback_stats"]),
        "exact_match_avg": experiment["feedback_stats"]["exact_match"]["avg"],
        "pass_rate": experiment["feedback_stats"]["pass_rate"]["avg"],
        "limited": [str(row.id) for row in first_only],
        "experiment_id": str(client.read_project(project_name=name).id),
    }
)
