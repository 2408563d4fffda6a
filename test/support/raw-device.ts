// A bare MQTT connection with a device's credentials, for tests that need a device to behave
// in ways the simulator never would (take a task and vanish, publish junk).
import mqtt, { type MqttClient } from 'mqtt';
import { deviceTopic } from '../../broker/topics.ts';

export async function rawDevice(mqttPort: number, deviceId: string, token: string, subscribe = true): Promise<MqttClient> {
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
    clientId: deviceId,
    username: deviceId,
    password: token,
    protocolVersion: 4,
    reconnectPeriod: 0,
  });
  if (subscribe) await client.subscribeAsync(deviceTopic(deviceId, 'tasks'), { qos: 1 });
  return client;
}

/** Resolves with the next message on `topic`. */
export function nextMessage(client: MqttClient, topic: string, timeoutMs = 5_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('message', listener);
      reject(new Error(`no message on ${topic} within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (received: string, payload: Buffer) => {
      if (received !== topic) return;
      clearTimeout(timer);
      client.off('message', listener);
      resolve(payload);
    };
    client.on('message', listener);
  });
}
