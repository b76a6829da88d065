"""The order ``make test`` hands test files to its workers: the longest first.

pytest-xdist's ``--dist loadfile`` gives each worker a whole file at a time, from the front of a queue; by default it
sorts that queue by the number of tests in a file, so the few-test files that take longest (a browser, a restarted
runtime, a frozen store's timeouts) came last and one worker was still in them after the others had run out of
work. ``make test`` passes ``--no-loadscope-reorder`` and ``tests/conftest.py`` sorts the collection by ``LONGEST``
(longest processing time first): every file that takes over ~8 s, with the seconds it took in one ``make test``
(3 workers on this 2-core machine, 2026-11-28; three scaled by what they saved since; only the order matters);
every other file follows, the ones with more tests first, as xdist would have them. A file not named here is
scheduled late: put a new one of over ~10 s here (``tests/e2e/test_schedule.py`` checks each path here is a file)."""

from __future__ import annotations

from typing import Any

LONGEST: dict[str, float] = {
    "tests/frontends/test_copilotkit.py": 88,
    "tests/server/test_adversarial_threads.py": 88,
    "tests/console/test_gallery_layout.py": 82,  # 110 before its midpoints were timed ahead
    "tests/server/resumable/test_redis_store.py": 71,
    "tests/server/test_adversarial_stores.py": 65,
    "tests/frontends/test_restore.py": 62,  # 78 with a restart per client generation
    "tests/frontends/test_dojo_pages.py": 58,
    "tests/console/test_design.py": 57,
    "tests/e2e/test_cli.py": 51,
    "tests/frontends/test_restore_live.py": 45,  # 59 with a restart per client generation
    "tests/console/test_demo.py": 40,
    "tests/dojo/test_dojo.py": 39,
    "tests/frontends/test_interventions_copilotkit.py": 38,
    "tests/console/test_chat.py": 37,
    "tests/server/test_live_run.py": 33,
    "tests/server/test_hostile_input.py": 29,
    "tests/e2e/test_workers.py": 27,
    "tests/e2e/test_bench.py": 26,
    "tests/e2e/test_s3_across_machines.py": 25,
    "tests/server/test_thread_growth.py": 24,
    "tests/e2e/test_agentcore_contract.py": 24,  # measured alone (two server processes), not in a make test
    "tests/e2e/test_agentcore_container.py": 22,  # a wheel and a fresh environment; measured alone
    "tests/e2e/test_readme.py": 30,  # 22 before README's snippets ran as their text says (12.5 s alone, idle)
    "tests/server/resumable/test_run_routes.py": 22,
    "tests/server/transport/test_versions.py": 20,
    "tests/console/test_safety.py": 20,
    "tests/server/console/test_replay_parity.py": 20,
    "tests/server/observability/test_tracing.py": 19,
    "tests/e2e/test_oracle_server.py": 19,
    "tests/server/test_load.py": 19,
    "tests/server/test_http_oracles.py": 18,
    "tests/frontends/test_background_copilotkit.py": 17,
    "tests/e2e/test_agentcore_cli.py": 16,  # measured alone
    "tests/console/test_outcomes.py": 14,
    "tests/server/test_schemathesis.py": 14,
    "tests/console/test_dojo_examples.py": 14,
    "tests/console/test_a2ui_actions.py": 14,
    "tests/e2e/test_diagram_install.py": 13,
    "tests/console/test_restore_live_console.py": 13,
    "tests/e2e/test_install.py": 13,
    "tests/e2e/test_example_answers.py": 14,  # measured alone: every example's prompts and free text
    "tests/e2e/test_console_own_agent.py": 12,
    "tests/server/test_threads_api.py": 12,
    "tests/e2e/test_cli_explains.py": 11,
    "tests/frontends/test_a2ui_action.py": 11,
    "tests/console/test_open_log.py": 11,
    "tests/server/observability/test_metrics.py": 10,
    "tests/server/console/test_inspector.py": 10,
    "tests/server/test_hitl_team.py": 9,
    "tests/console/test_background_console.py": 9,
    "tests/server/test_id_grammar.py": 9,
    "tests/console/test_machine_panel.py": 9,
    "tests/e2e/test_examples.py": 9,
}


def longest_first(items: list[Any], path_of: Any) -> None:
    """Sort ``items`` (pytest's collection, in place) file by file: the files of ``LONGEST`` by their seconds, then
    the others by their number of tests; a file's own tests keep their order."""
    count: dict[str, int] = {}
    for item in items:
        count[path_of(item)] = count.get(path_of(item), 0) + 1
    items.sort(key=lambda item: (-LONGEST.get(path_of(item), 0), -count[path_of(item)], path_of(item)))
