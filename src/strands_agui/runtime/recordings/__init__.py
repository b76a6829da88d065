"""The run log: the JSON Lines format a run is recorded in and replayed from.

The format is a runtime contract (``runtime/adapter.py`` records and replays through it, the inspector ships it
to the console), so it lives in the runtime layer; ``tooling`` and the CLI only use it.
``recording.py`` writes logs (sanitizing each event on receipt); ``reading.py`` reads them back (the end
marker, ``partial``); ``naming.py`` names the configuration a log was recorded with.
"""

from .naming import CONFIG_KEY, config_reference, name_config
from .reading import IncompleteLog, LogFormatError, RecordedRun, read_log
from .recording import (
    LIVE_KEYS,
    LOG_VERSION,
    Recorder,
    ReplayedException,
    decode_event,
    exception_record,
    record_stream,
    replay_events,
    sanitize_event,
    write_log,
)

__all__ = ["CONFIG_KEY", "LIVE_KEYS", "LOG_VERSION", "IncompleteLog", "LogFormatError", "RecordedRun", "Recorder",
           "ReplayedException", "config_reference", "decode_event", "exception_record", "name_config", "read_log",
           "record_stream", "replay_events", "sanitize_event", "write_log"]
