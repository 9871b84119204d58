"""Prometheus metrics at /metrics (docs/production.md, "Metrics";
docs/decisions/metrics.md): what is counted (instruments), where requests are measured
(middleware), the cache's counting layer (cache), the endpoint (views) and gunicorn's
multiprocess bookkeeping (multiprocess)."""
