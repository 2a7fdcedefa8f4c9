"""bordir's private network helpers: API-client helpers (keys, request options, TLS), retries, rate limits, the Ray connection.

Nothing is imported here: each module is imported by name (``from bordir._net.retry import retry_call``).
"""
