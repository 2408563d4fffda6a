// The device protocol does not depend on our own client: a device driven by Debian's
// mosquitto_pub / mosquitto_sub, following docs/asyncapi.yaml, sends an SMS end to end.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a mosquitto client to its end; `started` resolves once the process is running. */
function mosquitto(command: 'mosquitto_pub' | 'mosquitto_sub', args: string[], timeoutMs = 10_000) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<Run>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, done };
}

describe('device protocol contract, driven by mosquitto_pub / mosquitto_sub', () => {
  const fx = useGateway();
  let device: { id: string; token: string };

  beforeEach(async () => {
    const registered = await fx.gateway.services.devices.register(fx.tenant.accountId, 'mosquitto phone');
    device = { id: registered.device.id, token: registered.token };
  });

  const base = () => `sms-gateway/v1/devices/${device.id}`;
  const connection = (clientSuffix = '') => [
    '-h', '127.0.0.1', '-p', String(fx.gateway.mqttPort), '-V', 'mqttv311',
    '-i', device.id + clientSuffix, '-u', device.id, '-P', device.token,
  ];

  describe('when a device subscribes to its tasks with mosquitto_sub', () => {
    it('then it receives the task of a new SMS, and reports published with mosquitto_pub apply', async () => {
      // Subscribe as the device (QoS 1) and wait for one task; the gateway sees the subscription.
      const ready = nextEvent(fx.gateway.channel, 'ready', (id: string) => id === device.id);
      const sub = mosquitto('mosquitto_sub', [...connection(), '-t', `${base()}/tasks`, '-q', '1', '-C', '1']);
      await ready;
      const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'via mosquitto' });
      // Stored unassigned; the subscribed device claims it right after.
      expect(created.body.device_id).to.equal(null);

      const received = await sub.done;
      expect(received.code, received.stderr).to.equal(0);
      const task = JSON.parse(received.stdout.trim());
      expect(task).to.include({ sms_id: created.body.id, phone: '+79161234567', message: 'via mosquitto', sim: -2 });

      // Report "delivered" straight away (QoS 2): it implies processing and sent.
      const report = JSON.stringify({ sms_id: task.sms_id, status: 'delivered' });
      const pub = await mosquitto('mosquitto_pub', [...connection(), '-t', `${base()}/status`, '-q', '2', '-m', report]).done;
      expect(pub.code, pub.stderr).to.equal(0);

      const read = await fx.tenant.api.get(`/sms/${task.sms_id}`);
      expect(read.body).to.include({ status: 'delivered', device_id: device.id });
      expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal([
        'pending',
        'processing',
        'sent',
        'delivered',
      ]);
    });
  });

  describe('when a device publishes a retained heartbeat with mosquitto_pub', () => {
    it('then the device record shows its battery, charging state and SIM cards', async () => {
      const heartbeat = JSON.stringify({
        battery_level: 42,
        is_charging: true,
        sim_cards: [{ index: 0, name_operator: 'MTS' }, { index: 1, name_operator: 'Beeline' }],
        type: 'android',
        name: 'Pixel 8',
        app_version: '2.1.0',
      });
      const pub = await mosquitto('mosquitto_pub', [...connection(), '-t', `${base()}/heartbeat`, '-q', '2', '-r', '-m', heartbeat]).done;
      expect(pub.code, pub.stderr).to.equal(0);
      const read = await fx.tenant.api.get(`/devices/${device.id}`);
      expect(read.body).to.include({ battery_level: 42, is_charging: true, name: 'Pixel 8', type: 'android' });
      expect(read.body.sim_cards).to.deep.equal([
        { index: 0, name_operator: 'MTS', phone_number: null, phone_number_source: null },
        { index: 1, name_operator: 'Beeline', phone_number: null, phone_number_source: null },
      ]);
    });
  });

  describe('when mosquitto_pub connects with a wrong token', () => {
    it('then the broker refuses the connection as not authorized', async () => {
      const args = ['-h', '127.0.0.1', '-p', String(fx.gateway.mqttPort), '-V', 'mqttv311', '-i', device.id, '-u', device.id, '-P', 'wrong'];
      const pub = await mosquitto('mosquitto_pub', [...args, '-t', `${base()}/status`, '-m', '{}']).done;
      expect(pub.code).to.not.equal(0);
      expect(pub.stderr.toLowerCase()).to.match(/not authori[sz]ed/);
    });
  });
});
