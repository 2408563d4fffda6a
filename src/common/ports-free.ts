// Before a start does anything slow (opening the database, running migrations), each port it will
// listen on is tried once: a port already taken (1883 by a local Mosquitto, often) is reported at
// once, naming the variable to change, rather than after the migrations when the listener opens.
// The listeners still report it themselves when something takes the port in between.
import { createServer } from 'node:net';
import type { Config } from '../config.ts';
import { describeEnvironmentError } from './errors.ts';

export interface PlannedPort {
  /** The setting that chose it, named in the message: MQTT_PORT, SMPP_PORT... */
  variable: string;
  port: number;
  host: string;
}

/** Resolves once every port could be listened on (and was let go again); throws the first that could not. */
export async function ensurePortsFree(planned: readonly PlannedPort[]): Promise<void> {
  // Port 0 picks a free one when the listener opens: nothing to check.
  for (const { variable, port, host } of planned.filter((entry) => entry.port !== 0)) {
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', (error) => reject(describeEnvironmentError(error, { port: [variable, port, host] })));
      probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
    });
  }
}

/** Every port this configuration listens on, with the variable that sets it (ports-free.ts). */
export function plannedPorts(config: Config): PlannedPort[] {
  const planned: PlannedPort[] = [{ variable: 'PORT', port: config.port, host: config.host }];
  if (config.plainMqtt) planned.push({ variable: 'MQTT_PORT', port: config.mqttPort, host: config.host });
  if (config.tls) planned.push({ variable: 'MQTTS_PORT', port: config.tls.mqttsPort, host: config.host });
  if (config.metrics.port !== undefined) planned.push({ variable: 'METRICS_PORT', port: config.metrics.port, host: config.metrics.host });
  if (config.smpp.port !== undefined) planned.push({ variable: 'SMPP_PORT', port: config.smpp.port, host: config.host });
  if (config.smpp.tls) planned.push({ variable: 'SMPP_TLS_PORT', port: config.smpp.tls.port, host: config.host });
  if (config.smtp.port !== undefined && config.smtp.domain) planned.push({ variable: 'SMTP_PORT', port: config.smtp.port, host: config.host });
  return planned;
}
