"""/docs works with no network: every asset comes from Kaboom itself, under a strict CSP."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Route, expect

from tests.web.conftest import Server

# What the docs page must live with: scripts and styles from the server only, no inline script.
STRICT_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:"


def test_docs_work_offline_and_try_a_request(browser: Browser, server: Server) -> None:
    context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900})
    outside: list[str] = []
    problems: list[str] = []

    def only_this_server(route: Route) -> None:
        if urlsplit(route.request.url).hostname not in ("127.0.0.1", "localhost"):
            outside.append(route.request.url)
            route.abort()
            return
        response = route.fetch()
        headers = {"content-security-policy": STRICT_CSP, **response.headers}
        route.fulfill(response=response, headers=headers)

    context.route("**/*", only_this_server)
    page = context.new_page()
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    try:
        page.goto("/docs")
        assert page.eval_on_selector_all("script", "ss => ss.every(s => s.src)")
        spec = server.http.get("/openapi.json").json()
        operations = sum(len(methods) for methods in spec["paths"].values())
        expect(page.locator(".opblock")).to_have_count(operations)

        create = page.locator("#operations-games-create_game_api_games_post")
        create.locator(".opblock-summary").click()
        create.locator(".try-out__btn").click()
        create.locator("textarea.body-param__text").fill(
            json.dumps({"width": 9, "height": 9, "mines": 10}))
        create.locator("button.execute").click()
        live = create.locator(".live-responses-table")
        expect(live.locator("td.response-col_status:not(.col_header)")).to_have_text("201")
        answer = json.loads(live.locator(".microlight").first.inner_text())
        assert server.game(answer["id"])["status"] == "playing"
    finally:
        context.close()
    assert outside == []
    assert problems == []
