"""The e2e tests (src/strands_agui/AGENTS.md: Tests)."""
