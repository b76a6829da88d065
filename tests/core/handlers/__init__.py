"""Tests of strands_agui.core.handlers, at the mirrored path (src/strands_agui/AGENTS.md: Tests)."""
