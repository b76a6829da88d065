"""Tests of strands_agui.server.agentcore, at the mirrored path (src/strands_agui/AGENTS.md: Tests)."""
