"""Chromium for the installed server's page: the same fixtures as the page's tests."""

from tests.web.conftest import browser, playwright

__all__ = ["browser", "playwright"]
