"""The benchmark harness (see bench/README.md); not part of the service."""
