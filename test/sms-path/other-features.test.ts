// An SMS sent through the Extended API pays nothing for the ways in it did not come through: its
// status changes read no SMPP or Twilio table, even while another account of the same gateway
// uses both. An SMS that did come through SMPP still gets its receipt, also when its credential
// was written by another process (a command) after the gateway had read which accounts use SMPP.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { createTenant } from '../support/tenant.ts';
import { bindEsme, issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { createCredential } from '../twilio/support.ts';
import { hashSecret } from '../../src/common/secrets.ts';
import { insertCredential } from '../../src/modules/smpp/repository.ts';
import type { Gateway } from '../../src/gateway.ts';

interface Query {
  sql: string;
  __knexTxId?: string;
}

/** The tables of the two ways in an API SMS does not use. */
const SMPP_OR_TWILIO = /"?(smpp_[a-z_]+|twilio_[a-z_]+)"?/;

/** Resolves once the SMS has reached `status` and that change has committed. */
function reached(gateway: Gateway, smsId: () => string | undefined, status: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = gateway.services.events.on('sms.status_changed', (changes) => {
      if (changes.some((change) => change.sms.id === smsId() && change.path.includes(status as never))) {
        stop();
        resolve();
      }
    });
  });
}

/** The queries of each status-change transaction `run` causes (BEGIN and COMMIT left out). */
async function statusBatchQueries(gateway: Gateway, run: () => Promise<void>): Promise<string[][]> {
  const queries: Query[] = [];
  const heard = (query: Query) => void queries.push(query);
  gateway.services.db.on('query', heard);
  try {
    await run();
  } finally {
    gateway.services.db.off('query', heard);
  }
  const byTransaction = new Map<string, string[]>();
  for (const query of queries) {
    if (!query.__knexTxId || /^(BEGIN|COMMIT|ROLLBACK)/i.test(query.sql)) continue;
    byTransaction.set(query.__knexTxId, [...(byTransaction.get(query.__knexTxId) ?? []), query.sql]);
  }
  return [...byTransaction.values()].filter((sqls) => sqls.some((sql) => /update sms set status = v\.status/.test(sql)));
}

describe('an API SMS and the ways in it did not use', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON, webhooks: webhookConfig() } });

  /** Sends an SMS through the Extended API and waits until its delivery has committed. */
  async function sendAndDeliver(text: string): Promise<string> {
    let id: string | undefined;
    const delivered = reached(fx.gateway, () => id, 'delivered');
    const sent = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: text });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    id = sent.body.id as string;
    await delivered;
    return id;
  }

  it('moves an API SMS through its statuses without one query on an SMPP or Twilio table, while another account uses both', async () => {
    const other = await createTenant(fx.gateway);
    await issueCredential(other);
    await createCredential(other);
    await fx.connectDevice();
    // The first status change of the process reads once which accounts use SMPP and Twilio.
    await sendAndDeliver('the first, which may read who uses what');

    const batches = await statusBatchQueries(fx.gateway, async () => void (await sendAndDeliver('the measured one')));
    expect(batches.length, 'processing, sent and delivered were written').to.be.at.least(2);
    const asked = batches.flat().filter((sql) => SMPP_OR_TWILIO.test(sql));
    expect(asked, asked.join('\n')).to.deep.equal([]);
  });

  it('still sends the receipt of an SMS submitted with a credential another process wrote after the gateway read who uses SMPP', async () => {
    await fx.connectDevice();
    await sendAndDeliver('makes the gateway read who uses SMPP');
    // Written as `sms-gateway smpp credentials create` writes it, in a process the gateway does not hear.
    const password = 'Pw123456';
    const systemId = `cli${Date.now().toString(36)}`.slice(0, 15);
    const row = await insertCredential(fx.gateway.services.db, {
      accountId: fx.tenant.accountId,
      systemId,
      passwordHash: hashSecret(password),
      name: '',
      deviceIds: [],
      throughputPerSecond: 10,
      windowSize: 10,
      defaultDataCoding: 'gsm7',
    });
    const esme = await bindEsme(fx.gateway, { id: row.id, system_id: systemId, password });
    try {
      const submitted = await esme.call('submit_sm', { source_addr: 'MyShop', destination_addr: '+79161234567', short_message: 'receipt wanted', registered_delivery: 1 });
      const receipt = await esme.receiptOf(submitted.message_id);
      expect((receipt.short_message as { message: string }).message).to.contain('stat:DELIVRD');
    } finally {
      esme.close();
    }
  });
});
