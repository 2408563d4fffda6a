// A webhook format other than the standard one: another module's receivers expect their own body
// and signature (the Twilio-compatible API's callbacks: form-encoded, X-Twilio-Signature). Their
// deliveries still go through the outbox and the sender (retried, in order per SMS, the
// destination checked at every send); only what is sent, and how it is signed, differs. A format
// is handed to the sender by the feature that provides it (deliveryFormats).

export interface DeliveryFormat {
  /**
   * The headers of one attempt (content type, signature) for `body` sent to `url`, signed with the
   * webhook's secret; `id` is the delivery's, the same at every attempt (for de-duplication).
   */
  headers(attempt: { id: string; url: string; body: string; secret: string }): Record<string, string>;
  /**
   * A delivery the receiver accepted (2xx), with the first bytes of its answer: receivers of some
   * formats answer with work to do (TwiML). Called after the outcome is recorded; at least once.
   */
  answered?(delivery: AnsweredDelivery): Promise<void>;
}

export interface AnsweredDelivery {
  id: string;
  accountId: string;
  body: string;
  answer: string;
}
