// What a phone needs to join the gateway, as the QR code on the registration page carries it:
//   {"v":1,"broker":"mqtt://gateway.example:1883","device_id":"<uuid>","token":"<token>"}
// `v` lets a later app tell formats apart; the device id is also the MQTT client id and
// username, and the token is the MQTT password (src/modules/devices/schema.ts, credentials).

/**
 * The registration answer names the port the broker listens on; the host is the one the panel
 * was loaded from. The user corrects it on the page when phones reach the broker elsewhere (a
 * proxy, a public name).
 */
export function defaultBrokerAddress(mqttPort: number, location: Pick<Location, 'hostname'> = window.location): string {
  const host = location.hostname.includes(':') ? `[${location.hostname}]` : location.hostname;
  return `mqtt://${host}:${mqttPort}`;
}

export function connectionPayload(broker: string, deviceId: string, token: string): string {
  return JSON.stringify({ v: 1, broker, device_id: deviceId, token });
}
