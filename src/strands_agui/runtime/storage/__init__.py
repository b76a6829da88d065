"""What is kept between requests: pauses and server-side threads in a ``SessionStore`` (``sessions``:
the protocol and ``FileSessions``; ``s3sessions``: ``S3Sessions``), the threads on it (``threads``) and
the store a process uses when the app names none (``default``)."""
