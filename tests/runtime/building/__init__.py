"""Tests of strands_agui.runtime.building, at the mirrored path (src/strands_agui/AGENTS.md: Tests)."""
