# `celery -A config` finds the Celery app in config/celery.py. The web processes import it only
# when they first hand work to the broker (core.broker), so a web worker that never does (no
# webhook subscription, no edge, no scheduled draft) carries none of Celery.
