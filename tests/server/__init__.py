"""The server tests (src/strands_agui/AGENTS.md: Tests)."""
