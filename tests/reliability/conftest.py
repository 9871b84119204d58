from tests.support.fixtures import *  # noqa: F403
from tests.support.webhooks import broker, receiver, start_celery, webhook_env  # noqa: F401
