"""Tests of strands_agui.server.transport, at the mirrored path (src/strands_agui/AGENTS.md: Tests)."""
