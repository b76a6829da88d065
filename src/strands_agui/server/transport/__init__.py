"""A served run's transport: the driver (its phase), pacing, framing (SSE, protobuf), the versions each client
generation gets. Internal."""
