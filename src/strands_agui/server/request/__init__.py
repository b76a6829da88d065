"""What is decided about a request before its run: negotiation, validation, media, principals, the OpenAPI text.
Internal."""
