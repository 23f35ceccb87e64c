"""The ``kaboom`` command: one entry point for the server, the benchmark and the bots."""
