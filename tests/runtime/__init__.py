"""The runtime tests (src/strands_agui/AGENTS.md: Tests)."""
