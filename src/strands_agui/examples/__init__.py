"""Runnable strands-agui examples: AG-UI apps, each a small module exposing ``agent`` and ``app``.

- ``agentic_chat``: plain chat plus a frontend-only ``change_background`` tool (the run halts on it)
- ``backend_tool_rendering``: backend tools (``get_weather``, ``render_chart``) whose results the UI renders
- ``shared_state``: a recipe both the user and the agent edit, synchronised through AG-UI state
- ``agentic_generative_ui``: a plan predicted from tool arguments, then progressed with state deltas
- ``human_in_the_loop``: a backend tool (``book_flight``) that runs only after the user approves it
- ``a2ui_generative_ui``: an A2UI surface designed by a subagent (``generate_a2ui``), painted while it streams
- the AG-UI Dojo's other Strands features: ``agentic_chat_reasoning`` (streamed reasoning),
  ``tool_based_generative_ui`` (a haiku drawn from a frontend tool's arguments), ``interrupt`` (a tool that pauses
  for a time picker), ``predictive_state_updates`` (a document predicted from a streamed call, confirmed),
  ``agentic_chat_multimodal`` (image input), ``a2ui_fixed_schema`` (fixed-layout A2UI surfaces from backend
  tools), ``a2ui_recovery`` (A2UI surfaces validated and redesigned)

Run one alone (``python -m strands_agui.examples.agentic_chat``) or all of them behind one server with a browser page
(``python -m strands_agui.examples.demo``). Without ``STRANDS_AGUI_MODEL`` they use a scripted model: no key, no
network; see :mod:`strands_agui.tooling.models` for the real providers.
"""
