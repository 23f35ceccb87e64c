"""The Kaboom game server."""

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("kaboom")
    """The installed package's version: the API's, the health check's and the metrics'."""
except PackageNotFoundError:  # a checkout run without being installed
    VERSION = "0+unknown"
