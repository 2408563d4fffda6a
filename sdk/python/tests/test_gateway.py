"""The client against a real gateway. The mocha test test/sdk/python.test.ts starts the gateway
and gives its address and a fresh account's key in SMS_GATEWAY_URL and SMS_GATEWAY_KEY, and a
delivery it received signed by the gateway (headers, body and the webhook's secret, as JSON) in
the file SMS_GATEWAY_DELIVERY. It also gives a key of the same account that may only read
(SMS_GATEWAY_READ_KEY), the id of its one device (SMS_GATEWAY_DEVICE_ID) and of an SMS that device
has already taken (SMS_GATEWAY_TAKEN_SMS), and an address that accepts webhooks
(SMS_GATEWAY_WEBHOOK_URL). Skipped when run without them."""

import json
import os
import unittest
import uuid

from sms_gateway import (
    BadRequest,
    Client,
    Conflict,
    Forbidden,
    NotFound,
    Unauthorized,
    Unprocessable,
    WebhookVerificationError,
    verify_webhook,
)

URL = os.environ.get("SMS_GATEWAY_URL")
KEY = os.environ.get("SMS_GATEWAY_KEY")
DELIVERY = os.environ.get("SMS_GATEWAY_DELIVERY")
READ_KEY = os.environ.get("SMS_GATEWAY_READ_KEY")
DEVICE_ID = os.environ.get("SMS_GATEWAY_DEVICE_ID")
TAKEN_SMS = os.environ.get("SMS_GATEWAY_TAKEN_SMS")
WEBHOOK_URL = os.environ.get("SMS_GATEWAY_WEBHOOK_URL")


@unittest.skipUnless(URL and KEY and READ_KEY and DEVICE_ID and TAKEN_SMS and WEBHOOK_URL, "the environment names a running gateway and an account on it")
class GatewayTest(unittest.TestCase):
    def setUp(self):
        self.client = Client(URL, KEY)

    def test_send_then_get_the_sms_with_its_history(self):
        sms = self.client.send_sms("+79161230001", "hello from python", priority=5)
        self.assertEqual(sms["status"], "pending")
        self.assertEqual(sms["priority"], 5)
        read = self.client.get_sms(sms["id"])
        self.assertEqual(read["id"], sms["id"])
        self.assertEqual(read["message"], "hello from python")
        self.assertEqual([entry["status"] for entry in read["history"]], ["pending"])

    def test_an_idempotency_key_sends_once(self):
        key = str(uuid.uuid4())
        first = self.client.send_sms("+79161230002", "once", idempotency_key=key)
        again = self.client.send_sms("+79161230002", "once", idempotency_key=key)
        self.assertEqual(again["id"], first["id"])
        with self.assertRaises(Unprocessable) as caught:
            self.client.send_sms("+79161230002", "another text", idempotency_key=key)
        self.assertEqual((caught.exception.status, caught.exception.code), (422, "idempotency_key_reused"))

    def test_list_pages_through_every_sms(self):
        # A number none of the other tests sends to (they use +7916123...), so the list holds only these five.
        phone = "+79169" + str(uuid.uuid4().int % 10**6).zfill(6)
        sent = [self.client.send_sms(phone, f"page {n}")["id"] for n in range(5)]
        first = self.client.list_sms(phone=phone, limit=2)
        self.assertEqual(len(first["data"]), 2)
        self.assertIsNotNone(first["next_cursor"])
        every = [sms["id"] for sms in self.client.iter_sms(phone=phone, limit=2)]
        self.assertEqual(sorted(every), sorted(sent))
        self.assertEqual(len(every), 5)

    def test_cancel_an_sms_no_phone_took_and_a_taken_one_is_a_conflict(self):
        sms = self.client.send_sms("+79161230003", "cancel me")
        cancelled = self.client.cancel_sms(sms["id"])
        self.assertEqual(cancelled["status"], "failed_send")
        self.assertEqual(cancelled["reason"], "cancelled")
        with self.assertRaises(Conflict) as caught:
            self.client.cancel_sms(TAKEN_SMS)
        self.assertEqual((caught.exception.status, caught.exception.code), (409, "already_taken"))

    def test_bulk_from_json_and_from_csv(self):
        created = self.client.send_bulk([{"phone": "+79161230004", "message": "a"}, {"phone": "+79161230005", "message": "b"}])
        self.assertEqual([sms["phone"] for sms in created["data"]], ["+79161230004", "+79161230005"])
        from_csv = self.client.send_bulk("phone,message\n+79161230006,c\n+79161230007,d\n")
        self.assertEqual([sms["message"] for sms in from_csv["data"]], ["c", "d"])

    def test_a_bad_bulk_message_is_a_bad_request_naming_it(self):
        with self.assertRaises(BadRequest) as caught:
            self.client.send_bulk([{"phone": "+79161230004", "message": "ok"}, {"phone": "not a phone", "message": "x"}])
        self.assertEqual(caught.exception.status, 400)
        self.assertTrue(any(str(detail.get("field", "")).startswith("messages.1") or "/messages/1" in str(detail.get("field", "")) for detail in caught.exception.details), caught.exception.details)

    def test_devices_and_incoming_lists(self):
        devices = self.client.list_devices()
        self.assertEqual([device["id"] for device in devices["data"]], [DEVICE_ID])
        incoming = self.client.list_incoming(limit=5)
        self.assertEqual(incoming["data"], [])
        self.assertEqual(list(self.client.iter_incoming()), [])

    def test_the_live_stream_shows_an_sms_stored_after_it_opened(self):
        with self.client.events(timeout=10) as stream:
            sms = self.client.send_sms("+79161230010", "live")
            for item in stream:
                if item["event"] == "sms.status" and item["data"]["id"] == sms["id"]:
                    self.assertEqual(item["data"]["internal_status"], "pending")
                    break
            else:
                self.fail("the stream ended before the SMS's event")

    def test_webhooks_through_their_helper(self):
        created = self.client.webhooks.create(WEBHOOK_URL, ["sms.received"], description="from python")
        self.assertTrue(created["secret"].startswith("whsec_"))
        hook_id = created["webhook"]["id"]
        self.assertIn(hook_id, [hook["id"] for hook in self.client.webhooks.list()["data"]])
        self.assertEqual(self.client.webhooks.update(hook_id, enabled=False)["enabled"], False)
        self.assertNotEqual(self.client.webhooks.rotate_secret(hook_id)["secret"], created["secret"])
        self.client.webhooks.delete(hook_id)
        with self.assertRaises(NotFound):
            self.client.webhooks.get(hook_id)

    def test_a_key_created_then_revoked_is_refused(self):
        created = self.client.keys.create(["sms:read"], name="from python")
        reader = Client(URL, created["key"])
        self.assertIsInstance(reader.list_sms()["data"], list)
        self.assertIn(created["id"], [key["id"] for key in self.client.keys.list(revoked=False)["data"]])
        self.assertIsNotNone(self.client.keys.revoke(created["id"])["revoked_at"])
        with self.assertRaises(Unauthorized):
            reader.list_sms()
        self.assertIsNotNone(self.client.keys.get(created["id"])["revoked_at"])

    def test_a_device_registered_renamed_and_deleted(self):
        registered = self.client.devices.register("python phone")
        device_id = registered["device"]["id"]
        self.assertTrue(registered["credentials"])
        self.assertIn(device_id, [device["id"] for device in self.client.devices.list()["data"]])
        self.assertEqual(self.client.devices.update(device_id, name_custom="Renamed")["name_custom"], "Renamed")
        self.assertEqual(self.client.devices.get(device_id)["id"], device_id)
        self.client.devices.delete(device_id)
        with self.assertRaises(NotFound):
            self.client.devices.get(device_id)

    def test_smpp_and_twilio_credentials(self):
        smpp = self.client.smpp_credentials.create(name="ESME")
        self.assertEqual(len(smpp["password"]), 8)
        self.assertIn(smpp["id"], [credential["id"] for credential in self.client.smpp_credentials.list()["data"]])
        self.assertEqual(self.client.smpp_credentials.update(smpp["id"], name="ESME renamed")["name"], "ESME renamed")
        self.assertIsNotNone(self.client.smpp_credentials.revoke(smpp["id"])["revoked_at"])
        twilio = self.client.twilio_credentials.create(friendly_name="helper library")
        rotated = self.client.twilio_credentials.rotate(twilio["account_sid"])
        self.assertNotEqual(rotated["auth_token"], twilio["auth_token"])
        self.client.twilio_credentials.delete(twilio["account_sid"])
        self.assertNotIn(twilio["account_sid"], [credential["account_sid"] for credential in self.client.twilio_credentials.list()["data"]])

    def test_errors_are_typed(self):
        with self.assertRaises(NotFound) as caught:
            self.client.get_sms(str(uuid.uuid4()))
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "sms_not_found"))
        with self.assertRaises(Unauthorized) as caught:
            Client(URL, "not-a-key").list_sms()
        self.assertEqual(caught.exception.status, 401)
        with self.assertRaises(Forbidden) as caught:
            Client(URL + "/api/ext/v1/", READ_KEY).send_sms("+79161230008", "may not")
        self.assertEqual(caught.exception.status, 403)
        with self.assertRaises(BadRequest) as caught:
            self.client.send_sms("+79161230008", "")
        self.assertEqual(caught.exception.code, "validation_failed")
        self.assertTrue(caught.exception.details)


@unittest.skipUnless(DELIVERY, "SMS_GATEWAY_DELIVERY names a delivery the gateway signed")
class RealDeliveryTest(unittest.TestCase):
    def setUp(self):
        with open(DELIVERY, encoding="utf-8") as file:
            self.delivery = json.load(file)

    def test_a_delivery_signed_by_the_gateway_verifies(self):
        event = verify_webhook(self.delivery["secret"], self.delivery["headers"], self.delivery["body"])
        self.assertEqual(event["type"], "sms.status_changed")
        self.assertEqual(event["data"]["sms"]["id"], self.delivery["sms_id"])

    def test_a_tampered_delivery_does_not(self):
        tampered = self.delivery["body"].replace(self.delivery["sms_id"], str(uuid.uuid4()))
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(self.delivery["secret"], self.delivery["headers"], tampered)


if __name__ == "__main__":
    unittest.main()
