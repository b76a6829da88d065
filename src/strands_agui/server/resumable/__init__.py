"""Resumable runs: the reconnect and cancel routes, the event stores (memory, Redis). Internal."""
