"""Building one run's Strands agent: the per-run copy of a template (``copying``), a Swarm/Graph's
copy (``multiagent``), its tools (``tool_selection``), the approval gate (``approval``), its session
(``session_provider``), its history (``conversation``), the hooks it runs with (``ran_inputs``,
``background_watch``) and its models (``model_info``)."""
