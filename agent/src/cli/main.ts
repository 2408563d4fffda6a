// `sms-gateway-agent`: reads the command line, opens each device's journal and radio, runs the
// agents until SIGINT or SIGTERM, then stops them cleanly (a send on the radio is finished, its
// outcome journaled). Exit codes: 0 after a clean stop, 1 when a device cannot start, 2 for a
// command line that cannot be run, 3 when a device cannot start until someone acts (a PIN the SIM
// refused): the systemd unit does not restart on 3, since every start would try the PIN again.
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent } from '../agent.ts';
import { Journal } from '../journal/journal.ts';
import { consoleLogger, maskPhone, type AgentLogger } from '../log.ts';
import { agentVersion } from '../version.ts';
import { RadioNeedsOperatorError } from '../radio/radio.ts';
import { createRadio } from './backends.ts';
import { lockStateDir } from './state-lock.ts';
import { HELP, readCommand, SAVED_DEVICE_FILE, savedForm, UsageError, type AgentCommand, type DeviceConfig } from './options.ts';

/** Also in deploy/agent/sms-gateway-agent@.service, as RestartPreventExitStatus. */
export const EXIT_NEEDS_OPERATOR = 3;

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let command: AgentCommand;
  try {
    command = readCommand(argv, env, homedir());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`sms-gateway-agent: ${error.message}\n(see sms-gateway-agent --help)\n`);
    return 2;
  }
  if (command.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (command.version) {
    process.stdout.write(`${agentVersion()}\n`);
    return 0;
  }
  const running: DeviceAgent[] = [];
  const releases: (() => void)[] = [];
  const stop = async () => {
    await Promise.allSettled(running.map((agent) => agent.stop()));
    for (const release of releases) release();
  };
  let stopping: Promise<void> | undefined;
  const onSignal = () => (stopping ??= stop().then(() => process.exit(0)));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const device of command.devices) {
      const logger = consoleLogger({ json: command.logFormat === 'json', prefix: command.devices.length > 1 ? device.pairing.deviceId.slice(0, 8) : undefined });
      releases.push(lockStateDir(device.stateDir));
      // The next start needs no pairing URL: it is kept here, readable by this user only.
      writeFileSync(join(device.stateDir, SAVED_DEVICE_FILE), `${JSON.stringify(savedForm(device, device.pairingUrl), null, 2)}\n`, { mode: 0o600 });
      running.push(await startDevice(device, command, logger));
    }
  } catch (error) {
    process.stderr.write(`sms-gateway-agent: ${(error as Error).message}\n`);
    await stop();
    return error instanceof RadioNeedsOperatorError ? EXIT_NEEDS_OPERATOR : 1;
  }
  // Runs until a signal ends the process.
  await new Promise(() => {});
  return 0;
}

async function startDevice(device: DeviceConfig, command: AgentCommand, logger: AgentLogger): Promise<DeviceAgent> {
  const journal = Journal.open(device.stateDir);
  const radio = await createRadio(device);
  const agent = new DeviceAgent({
    brokerUrl: device.pairing.brokerUrl,
    deviceId: device.pairing.deviceId,
    token: device.pairing.token,
    ...(device.ca ? { ca: device.ca } : {}),
    ...(device.pairing.pin ? { pin: device.pairing.pin } : {}),
    radio,
    journal,
    heartbeatIntervalMs: command.heartbeatIntervalMs,
    appVersion: `sms-gateway-agent ${agentVersion()} (${device.backend})`,
    logger,
    ...(command.passphrase !== undefined ? { passphrase: command.passphrase, encryptIncoming: command.encryptIncoming } : {}),
  });
  agent.on('connected', () => logger.info('connected to the gateway', { broker: device.pairing.brokerUrl }));
  // Failed attempts (a refused CONNACK, a certificate not trusted) are told by the session, once per reason.
  agent.on('task', (task, again) => logger.info(again ? 'a task came again; answered with its status' : 'task taken', { sms: task.sms_id, to: maskPhone(task.phone) }));
  agent.on('report', (smsId, status) => logger.info('reported', { sms: smsId, status }));
  agent.on('revoked', (smsId, reason) => logger.info('task taken back by the gateway', { sms: smsId, reason }));
  logger.info('starting', { backend: device.backend, device: device.pairing.deviceId, state: device.stateDir });
  await agent.start();
  return agent;
}
