from __future__ import annotations

import os

from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from tests.support.fixtures import *  # noqa: F403

# Bounded: FUZZ_EXAMPLES examples per operation or property (CI: .ci/fuzz keeps the stage short).
hypothesis_settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "50")),
    deadline=None,
    derandomize=os.environ.get("FUZZ_SEED") is None and os.environ.get("CI") == "true",
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
    database=None,
)
hypothesis_settings.load_profile("fuzz")
