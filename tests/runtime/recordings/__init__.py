"""Tests of strands_agui.runtime.recordings, at the mirrored path (src/strands_agui/AGENTS.md: Tests)."""
