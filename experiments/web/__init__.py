"""The browser board: a FastAPI server (app.py) over live games (sessions.py), a SQLite
store (store.py), per-seat views (view.py), replays (replays.py) and analysis
(analysis.py); the client is static HTML/JS in static/.  See docs/web.md."""

from .app import create_app

__all__ = ["create_app"]
