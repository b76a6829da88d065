"""Tests of strands_agui.server.request, at the mirrored path (src/strands_agui/AGENTS.md: Tests)."""
