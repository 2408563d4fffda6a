// MQTT traffic on /metrics: packets received from and sent to clients, by packet type, read off
// the broker's events (Aedes has no per-packet hook). Called once the channel's own hooks are
// installed, because it wraps the forwarding hook they set.
import type { Aedes } from 'aedes';
import type { Metrics } from '../src/common/metrics.ts';

const RECEIVED = 'mqtt_packets_received_total';
const RECEIVED_HELP = 'MQTT packets received from clients, by type (connect: each CONNECT the broker answered; ack: PUBACK/PUBCOMP of a delivery)';
const SENT = 'mqtt_packets_sent_total';
const SENT_HELP = 'MQTT packets sent to clients, by type (publish: each message forwarded to a subscriber)';

export function meterBroker(aedes: Aedes, metrics: Metrics): void {
  const received = (type: string) => metrics.count(RECEIVED, RECEIVED_HELP, { type });
  const sent = (type: string) => metrics.count(SENT, SENT_HELP, { type });
  metrics.declareCounter(RECEIVED, RECEIVED_HELP, ['type']);
  metrics.declareCounter(SENT, SENT_HELP, ['type']);
  // Refusals are counted where they are decided (connect.ts); declared here so that a
  // dashboard finds the families before the first refusal.
  metrics.declareCounter('mqtt_auth_failures_total', 'MQTT connections refused at CONNECT', ['reason']);

  aedes.on('connackSent', () => {
    received('connect');
    sent('connack');
  });
  // A publish without a client is the gateway's own (tasks, settings, revokes): not received.
  aedes.on('publish', (_packet, client) => {
    if (client) received('publish');
  });
  aedes.on('subscribe', () => {
    received('subscribe');
    sent('suback');
  });
  aedes.on('unsubscribe', () => received('unsubscribe'));
  aedes.on('ping', () => {
    received('pingreq');
    sent('pingresp');
  });
  aedes.on('ack', () => received('ack'));

  const forward = aedes.authorizeForward;
  aedes.authorizeForward = (client, packet) => {
    const forwarded = forward.call(aedes, client, packet);
    if (forwarded) sent('publish');
    return forwarded;
  };
}
