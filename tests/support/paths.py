"""Where the tests are: every test and helper names these folders through them, wherever it lives
under tests/."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
"""The tests/ folder."""
REPO = TESTS.parent
"""The repository."""
