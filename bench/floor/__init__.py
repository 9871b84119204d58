"""The *floor* baseline: plain Django function views over the service's own models and database."""
