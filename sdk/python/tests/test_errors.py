"""How an answer that is not a 2xx becomes an exception, without a gateway: the statuses a real
gateway is hard to drive into from here (429, 503) and bodies that are not the gateway's."""

import json
import unittest

from sms_gateway import BadRequest, GatewayError, RateLimited, ServerError, Unavailable
from sms_gateway.errors import error_from_response


def body(code, message="m", details=None):
    error = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return json.dumps({"error": error})


class ErrorMappingTest(unittest.TestCase):
    def test_429_carries_the_seconds_of_retry_after(self):
        error = error_from_response(429, "7", body("too_many_bulk_requests"))
        self.assertIsInstance(error, RateLimited)
        self.assertEqual((error.status, error.code, error.retry_after), (429, "too_many_bulk_requests", 7))

    def test_503_is_unavailable_with_or_without_retry_after(self):
        self.assertEqual(error_from_response(503, "5", body("database_unavailable")).retry_after, 5)
        error = error_from_response(503, None, body("no_device_available"))
        self.assertIsInstance(error, Unavailable)
        self.assertIsNone(error.retry_after)

    def test_400_keeps_the_details(self):
        error = error_from_response(400, None, body("validation_failed", details=[{"field": "phone", "message": "bad"}]))
        self.assertIsInstance(error, BadRequest)
        self.assertEqual(error.details, [{"field": "phone", "message": "bad"}])

    def test_a_body_that_is_not_the_gateways_still_gives_status_and_text(self):
        error = error_from_response(502, None, "<html>Bad Gateway</html>")
        self.assertIsInstance(error, ServerError)
        self.assertEqual((error.status, error.code, error.body), (502, "unknown", "<html>Bad Gateway</html>"))
        other = error_from_response(418, "soon", "")
        self.assertIs(type(other), GatewayError)
        self.assertIsNone(other.retry_after)


if __name__ == "__main__":
    unittest.main()
