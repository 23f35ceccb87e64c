"""The JSON API's routes (``docs/api.md``): games, analyses of positions, operations."""
