"""The page's routes: HTML drawn by the server, htmx requests answered with fragments."""
