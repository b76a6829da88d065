"""Spans and metrics of served runs (docs/observability.md). Internal."""
