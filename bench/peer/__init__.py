"""The *peer*: the contract's writes in Django REST framework and drf-hal-json, nothing else."""
