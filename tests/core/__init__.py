"""The core tests (src/strands_agui/AGENTS.md: Tests)."""
