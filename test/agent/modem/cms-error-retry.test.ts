// A modem's +CMS ERROR reaches the gateway as an error code it acts on: the device agent on a
// stand-in modem (socat pty) against a real gateway over real MQTT. A network fault (38) is tried
// again on another phone and sent there; an unassigned number (1) is failed for good, never retried.
import { expect } from 'chai';
import { DeviceAgent } from '../../../agent/src/agent.ts';
import { Journal } from '../../../agent/src/journal/journal.ts';
import { createModemRadio } from '../../../agent/src/radio/modem/index.ts';
import { liftLimits, nextEvent } from '../../support/devices.ts';
import { useGateway } from '../../support/use-gateway.ts';
import { TEST_TIMINGS } from '../support/modem-fixture.ts';
import { ModemStandin } from '../support/modem-standin.ts';

const RECIPIENT = '+79161234567';

describe('device agent on a modem: +CMS ERROR and retries', () => {
  // No backoff: the retry is handed out as soon as a phone may take it.
  const fx = useGateway({ config: { sendRetryBackoffMs: 0 } });
  const opened: (() => Promise<unknown>)[] = [];

  afterEach(async () => {
    for (const close of opened.splice(0).reverse()) await close().catch(() => {});
  });

  /** A registered phone whose agent sends through its own stand-in modem, connected. */
  async function modemPhone(name: string): Promise<{ id: string; agent: DeviceAgent; standin: ModemStandin }> {
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, name);
    await liftLimits(fx.gateway, fx.tenant, device.id);
    const standin = await ModemStandin.start();
    opened.push(() => standin.close());
    const agent = new DeviceAgent({
      brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`,
      deviceId: device.id,
      token,
      radio: createModemRadio({ path: standin.agentPath, ...TEST_TIMINGS }),
      journal: Journal.open(undefined),
      reconnectPeriodMs: 50,
    });
    opened.push(() => agent.stop());
    return { id: device.id, agent, standin };
  }

  function reported(agent: DeviceAgent, smsId: string, status: string) {
    return nextEvent(agent, 'report', (id, reportedStatus) => id === smsId && reportedStatus === status, 15_000);
  }

  async function attemptsOf(smsId: string): Promise<{ device_id: string; result: string; error_code: string | null; retried: boolean }[]> {
    const answer = await fx.tenant.api.get(`/sms/${smsId}/attempts`);
    expect(answer.status).to.equal(200);
    return answer.body.data ?? answer.body;
  }

  describe('when the modem refuses the send with +CMS ERROR 38 (network out of order)', () => {
    it('then the gateway tries it again on another phone, which sends it', async () => {
      const first = await modemPhone('modem with a network fault');
      const second = await modemPhone('modem that works');
      first.standin.failSend(38);
      await first.agent.start();

      const created = await fx.tenant.api.post('/sms', { phone: RECIPIENT, message: 'try me twice' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.id as string;
      const failed = reported(first.agent, id, 'failed_send');
      await failed;
      expect(first.standin.submits).to.have.length(0);

      // The only phone online failed it; the retry waits for another one.
      const sent = reported(second.agent, id, 'sent');
      await second.agent.start();
      await sent;

      expect(second.standin.submits).to.have.length(1);
      expect(second.standin.submits[0]!.decoded.recipient.value).to.equal(RECIPIENT);
      expect((await fx.tenant.api.get(`/sms/${id}`)).body.status).to.equal('sent');
      const attempts = await attemptsOf(id);
      expect(attempts.map((attempt) => [attempt.device_id, attempt.result, attempt.error_code, attempt.retried])).to.deep.equal([
        [first.id, 'failed', 'network_failure', true],
        [second.id, 'sent', null, false],
      ]);
    });
  });

  describe('when the modem refuses the send with +CMS ERROR 1 (unassigned number)', () => {
    it('then the SMS fails for good with invalid_number and no phone is handed it again', async () => {
      const first = await modemPhone('modem told the number is unassigned');
      const second = await modemPhone('modem that would work');
      first.standin.failSend(1);
      await first.agent.start();

      const created = await fx.tenant.api.post('/sms', { phone: RECIPIENT, message: 'nobody there' });
      const id = created.body.id as string;
      await reported(first.agent, id, 'failed_send');

      const sms = (await fx.tenant.api.get(`/sms/${id}`)).body;
      expect(sms.status).to.equal('failed_send');
      expect(await attemptsOf(id)).to.have.length(1);
      expect((await attemptsOf(id))[0]).to.include({ device_id: first.id, result: 'failed', error_code: 'invalid_number', retried: false });

      // A phone coming online now is not handed the SMS: the failure was final. An SMS of its own
      // sent after it shows the phone was handed all there was (its sweep included).
      await second.agent.start();
      await fx.gateway.services.dispatcher.sweep();
      const own = (await fx.tenant.api.post('/sms', { phone: '+79161234568', message: 'mine', device_id: second.id })).body.id as string;
      await reported(second.agent, own, 'sent');
      expect(second.standin.submits.map((submit) => submit.decoded.recipient.value)).to.deep.equal(['+79161234568']);
      expect((await fx.tenant.api.get(`/sms/${id}`)).body.status).to.equal('failed_send');
    });
  });
});
