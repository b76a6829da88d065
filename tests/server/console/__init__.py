"""Tests of strands_agui.server.console, at the mirrored path (src/strands_agui/AGENTS.md: Tests)."""
