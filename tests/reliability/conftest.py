from tests.support.fixtures import *  # noqa: F403
from tests.support.webhook_fixtures import *  # noqa: F403
