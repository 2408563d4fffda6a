// What the SMPP module announces to the rest of the gateway (src/events/domain-events.ts).
export interface SmppEvents {
  /** An SMPP credential was revoked; committed. Its sessions must end now. */
  'smpp.credential_revoked': { credentialId: string; systemId: string };
}
