"""The Python client of the Risk Indicator Scoring Service: standard library only, Python 3.8+.

>>> from svc_client import Client
>>> client = Client("https://scores.example.com", api_key="svc_live_...")
>>> for indicator in client.iter_scores(planner_type="btc"):
...     print(indicator["name"], indicator["final_score"], indicator["risk_band"])
"""

from ._version import __version__
from .async_client import AsyncClient
from .client import Client
from .errors import UNEXPECTED_RESPONSE, SvcApiError, SvcError, SvcNetworkError
from .types import is_withdrawal
from .webhooks import (
    PREVIOUS_SIGNATURE_HEADER,
    SIGNATURE_HEADER,
    WebhookVerificationError,
    verify_standard_webhook,
    verify_webhook_signature,
)

__all__ = [
    "AsyncClient",
    "Client",
    "PREVIOUS_SIGNATURE_HEADER",
    "SIGNATURE_HEADER",
    "SvcApiError",
    "SvcError",
    "SvcNetworkError",
    "UNEXPECTED_RESPONSE",
    "WebhookVerificationError",
    "__version__",
    "is_withdrawal",
    "verify_standard_webhook",
    "verify_webhook_signature",
]
