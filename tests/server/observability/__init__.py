"""Tests of strands_agui.server.observability, at the mirrored path (src/strands_agui/AGENTS.md: Tests)."""
