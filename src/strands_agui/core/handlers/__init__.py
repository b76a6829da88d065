"""The translator's handlers, one module per concern, one method per Strands input.

* ``text.py`` -- text deltas, reasoning deltas and signatures (the text and reasoning envelopes);
* ``tools.py`` -- tool-call announce / arguments / end, and the tool results of a batch;
* ``turns.py`` -- the end of a model turn (the assistant ``message``) and retried attempts;
* ``outcome.py`` -- run start, finish and failure: the terminal event and what it carries;
* ``interrupts.py`` -- Strands interrupts kept for the paused run's outcome, and the parked calls of a resume;
* ``subagents.py`` -- nested runs: Swarm/Graph nodes and agents as tools (each a nested translator), and the
  progress of streaming tools (activity messages); ``lifecycles.py`` -- how a node shows (subagent or step).

Shared by all: ``base.py`` (items, ``Turn``, ``ToolCallRecord``) and ``run.py`` (the ``Run`` protocol: what a
handler may ask of its run, so no handler imports the translator). Each handler object is built by the per-run
:class:`~strands_agui.core.translator.Translator` with the translator itself (``run``): the machine, the ids,
the messages the client holds, the run facts. The translator's dispatch tables name which handler consumes
which Strands input; a new concern is a new module here plus a line in those tables.
"""
