// What a phone needs to join the gateway, as the QR code on the registration page carries it:
//   {"v":1,"broker":"mqtt://gateway.example:1883","device_id":"<uuid>","token":"<token>"}
// `v` lets a later app tell formats apart; the device id is also the MQTT client id and
// username, and the token is the MQTT password (src/modules/devices/schema.ts, credentials).

/**
 * The API does not say where its MQTT broker listens, so the panel proposes the host the panel
 * was loaded from with MQTT's registered port, 1883 (the gateway's MQTT_PORT default); the
 * user corrects it on the page when the broker is reached elsewhere (a proxy, another port).
 */
export const DEFAULT_MQTT_PORT = 1883;

export function defaultBrokerAddress(location: Pick<Location, 'hostname'> = window.location): string {
  const host = location.hostname.includes(':') ? `[${location.hostname}]` : location.hostname;
  return `mqtt://${host}:${DEFAULT_MQTT_PORT}`;
}

export function connectionPayload(broker: string, deviceId: string, token: string): string {
  return JSON.stringify({ v: 1, broker, device_id: deviceId, token });
}
