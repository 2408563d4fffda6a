"""Webhook verification without a gateway: the signature scheme itself."""

import base64
import json
import time
import unittest

from sms_gateway import WebhookVerificationError, sign_webhook, verify_webhook

SECRET = "whsec_" + base64.b64encode(bytes(range(32))).decode()
BODY = json.dumps({"id": "e1", "type": "sms.status_changed", "timestamp": "2026-01-01T00:00:00Z", "account_id": "a", "data": {}})


def headers(body=BODY, secret=SECRET, timestamp=None):
    timestamp = int(time.time()) if timestamp is None else timestamp
    return {"webhook-id": "msg_1", "webhook-timestamp": str(timestamp), "webhook-signature": sign_webhook(secret, "msg_1", timestamp, body)}


class WebhookSignatureTest(unittest.TestCase):
    def test_accepts_a_signed_body_with_any_case_of_header_names(self):
        given = {name.upper(): value for name, value in headers().items()}
        self.assertEqual(verify_webhook(SECRET, given, BODY)["id"], "e1")
        self.assertEqual(verify_webhook(SECRET, headers(), BODY.encode())["type"], "sms.status_changed")

    def test_accepts_when_one_of_several_signatures_matches(self):
        given = headers()
        given["webhook-signature"] = "v1,AAAA " + given["webhook-signature"]
        self.assertEqual(verify_webhook(SECRET, given, BODY)["id"], "e1")

    def test_refuses_an_altered_body(self):
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(SECRET, headers(), BODY.replace("e1", "e2"))

    def test_refuses_another_secret(self):
        other = "whsec_" + base64.b64encode(bytes(32)).decode()
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(other, headers(), BODY)

    def test_refuses_an_old_timestamp_and_missing_headers(self):
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(SECRET, headers(timestamp=int(time.time()) - 3600), BODY)
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(SECRET, {"webhook-id": "msg_1"}, BODY)


if __name__ == "__main__":
    unittest.main()
