"""Record the reference: upstream ``ag_ui_strands`` on every scenario, through the same harness, into
``reference/<scenario>.json`` (what the official client holds after each step, and the event types of each
step's stream). ``python -m tests.dojo.record`` after a change to the scenarios, the fixtures or the upstream
version; ``tests/dojo/test_dojo.py`` checks that upstream still reproduces it."""

from __future__ import annotations

import json

from .harness import GENERATIONS, UPSTREAM_VERSION, Run, dojo, play_all, reference_path
from .scenarios import AGENTS, SCENARIOS


def main() -> None:
    with dojo(AGENTS) as live:
        runs = play_all(live, SCENARIOS, adapters=("upstream",))
    for scenario in SCENARIOS:
        record: dict[str, object] = {
            "recorded_from": f"ag_ui_strands {UPSTREAM_VERSION} (PyPI) serving its own examples/demo/api/"
                             f"{scenario.agent}.py, the model @copilotkit/aimock on tests/dojo/fixtures",
            "spec": scenario.spec, "generations": {}}
        for generation in GENERATIONS:
            run = runs[("upstream", scenario.name, generation)]
            if not isinstance(run, Run):
                raise run
            record["generations"][generation] = {"views": run.views, "event_types": run.event_types}  # type: ignore[index]
        reference_path(scenario).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {reference_path(scenario).name}")


if __name__ == "__main__":
    main()
