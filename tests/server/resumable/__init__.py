"""Tests of strands_agui.server.resumable, at the mirrored path (src/strands_agui/AGENTS.md: Tests)."""
