"""What several test files need, defined once (a test file never imports another; what a second one needs moves here).

* ``wire.py``: request bodies (``run_input``, ``body``, ``user``, ``image``), headers, posting, and reading
  what comes back (``parse_sse`` asserting our exact framing, ``sse_events`` lenient, ``events_in`` either framing).
* ``agents.py``: the scripted agents served in tests (``echo_model``, ``strands_agent``, ``ScriptedRun``).
* ``servers.py``: live servers (``echo_server``, ``served_examples``; ``paced=False`` / ``unpace_examples``: the
  examples without the scripted model's 0.03 s per word, for tests that only read what a run ends with), raw
  sockets for disconnect tests, and the ``no_server_errors`` guard with its ``tolerates`` marker.
* ``replays.py``: the recorded fixtures replayed with their scenario's config.
* ``hostile.py``: the battery of bad requests (``CASES``).
* ``trace.py``: checking a machine trace against the transition table.
* ``recorded.py``: stepping a recorded fixture through single handlers (the ``test_handler_*`` unit tests).
* ``resumable.py``: resumable runs: SSE frames with ids, cutting a stream, reconnecting.
* ``cli.py``: the command line as a subprocess or in process, and what a one-line mistake looks like.
* ``workers.py``: ``strands-agui serve`` processes, and pausing and resuming the human_in_the_loop example on them.
* ``s3.py``: a real S3 (moto's server as its own process: frozen with SIGSTOP, killed with SIGKILL), and a record of
  the S3 requests this process sends.
"""
