// An SMS sent through the Extended API pays nothing for the ways in it did not come through: its
// status changes read no SMPP or Twilio table, whether another account or its own account uses
// both, since each SMS says how it came in (sms.way_in). An SMS that did come through SMPP still
// gets its receipt: when its credential was written by another process (a command) after the
// gateway started, when it is reported on by a phone on another node that never heard of that
// credential, and when a node of the previous version, which does not name the way in, wrote it.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { createTenant } from '../support/tenant.ts';
import { bindEsme, issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { createCredential, messagesPath } from '../twilio/support.ts';
import { hashSecret } from '../../src/common/secrets.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';
import { connectDevice } from '../support/devices.ts';
import { insertCredential, insertSubmission } from '../../src/modules/smpp/repository.ts';
import { newObjectId } from '../../src/common/object-id.ts';
import type { Executor } from '../../src/storage/database.ts';
import type { Gateway } from '../../src/gateway.ts';
import type { Tenant } from '../support/tenant.ts';
import { recordTwilioMessage, smsRow, smsRowsOf } from '../support/test-data.ts';
import { statementsDuring } from '../support/statements.ts';

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
  const queries = await statementsDuring(gateway.services.db, run);
  const byTransaction = new Map<string, string[]>();
  for (const query of queries) {
    if (!query.__knexTxId || /^(BEGIN|COMMIT|ROLLBACK)/i.test(query.sql)) continue;
    byTransaction.set(query.__knexTxId, [...(byTransaction.get(query.__knexTxId) ?? []), query.sql]);
  }
  return [...byTransaction.values()].filter((sqls) => sqls.some((sql) => /update sms set status = v\.status/.test(sql)));
}

/** Sends an SMS through `tenant`'s Extended API and waits until `gateway` has committed its delivery. */
async function sendAndDeliver(gateway: Gateway, tenant: Tenant, text: string): Promise<string> {
  let id: string | undefined;
  const delivered = reached(gateway, () => id, 'delivered');
  const sent = await tenant.api.post('/sms', { phone: '+79161234567', message: text });
  expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
  id = sent.body.id as string;
  await delivered;
  return id;
}

/** A credential written as `sms-gateway smpp credentials create` writes it: straight to the database, in a process no node hears. */
async function credentialLikeTheCli(db: Executor, accountId: string): Promise<{ id: string; system_id: string; password: string }> {
  const password = 'Pw123456';
  const systemId = `cli${randomUUID().slice(0, 8)}`;
  const row = await insertCredential(db, {
    accountId,
    systemId,
    passwordHash: hashSecret(password),
    name: '',
    deviceIds: [],
    throughputPerSecond: 10,
    windowSize: 10,
    defaultDataCoding: 'gsm7',
  });
  return { id: row.id, system_id: systemId, password };
}

describe('an API SMS and the ways in it did not use', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON, webhooks: webhookConfig() } });

  const sendAndDeliverHere = (text: string) => sendAndDeliver(fx.gateway, fx.tenant, text);

  it('moves an API SMS through its statuses without one query on an SMPP or Twilio table, while another account uses both', async () => {
    const other = await createTenant(fx.gateway);
    await issueCredential(other);
    await createCredential(other);
    await fx.connectDevice();
    // The first SMS loads what the path needs, so that the measured one shows only its own queries.
    await sendAndDeliverHere('the first, which loads the path');

    const batches = await statusBatchQueries(fx.gateway, async () => void (await sendAndDeliverHere('the measured one')));
    expect(batches.length, 'processing, sent and delivered were written').to.be.at.least(2);
    const asked = batches.flat().filter((sql) => SMPP_OR_TWILIO.test(sql));
    expect(asked, asked.join('\n')).to.deep.equal([]);
  });

  it('still sends the receipt of an SMS submitted with a credential another process wrote after the gateway started', async () => {
    await fx.connectDevice();
    await sendAndDeliverHere('an SMS of the account before it has a credential');
    const esme = await bindEsme(fx.gateway, await credentialLikeTheCli(fx.gateway.services.db, fx.tenant.accountId));
    try {
      const submitted = await esme.call('submit_sm', { source_addr: 'MyShop', destination_addr: '+79161234567', short_message: 'receipt wanted', registered_delivery: 1 });
      const receipt = await esme.receiptOf(submitted.message_id);
      expect((receipt.short_message as { message: string }).message).to.contain('stat:DELIVRD');
    } finally {
      esme.close();
    }
  });

  it('sends the receipt of an SMPP SMS of an account whose other SMS came in by API, and the API SMS asks no SMPP or Twilio table', async () => {
    const credential = await issueCredential(fx.tenant);
    await createCredential(fx.tenant);
    await fx.connectDevice();
    const esme = await bindEsme(fx.gateway, credential);
    try {
      await sendAndDeliverHere('the first, which loads the path');
      const batches = await statusBatchQueries(fx.gateway, async () => void (await sendAndDeliverHere('an API SMS of an account using SMPP and Twilio')));
      expect(batches.length, 'processing, sent and delivered were written').to.be.at.least(2);
      const asked = batches.flat().filter((sql) => SMPP_OR_TWILIO.test(sql));
      expect(asked, asked.join('\n')).to.deep.equal([]);

      const submitted = await esme.call('submit_sm', { source_addr: 'MyShop', destination_addr: '+79161234567', short_message: 'receipt wanted', registered_delivery: 1 });
      const receipt = await esme.receiptOf(submitted.message_id);
      expect((receipt.short_message as { message: string }).message).to.contain('stat:DELIVRD');
    } finally {
      esme.close();
    }
  });
});

describe('how an SMS came in, on its row', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });

  it('is api, legacy, smpp or twilio after the Extended API, the legacy API, submit_sm and the Twilio API', async () => {
    expect((await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'by api' })).status).to.equal(201);
    expect((await fx.tenant.root.post('/sms/send', { phone_number: '+79161234567', message: 'by legacy' })).status).to.equal(200);
    const twilio = await createCredential(fx.tenant);
    const answer = await fetch(`${fx.baseUrl}${messagesPath(twilio.account_sid)}.json`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${twilio.account_sid}:${twilio.auth_token}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ To: '+79161234567', Body: 'by twilio' }).toString(),
    });
    expect(answer.status).to.equal(201);
    const esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant));
    try {
      await esme.call('submit_sm', { source_addr: 'MyShop', destination_addr: '+79161234567', short_message: 'by smpp' });
    } finally {
      esme.close();
    }
    const rows: { message: string; way_in: string }[] = await smsRowsOf(fx, fx.tenant.accountId);
    expect(Object.fromEntries(rows.map((row) => [row.message, row.way_in]))).to.deep.equal({
      'by api': 'api',
      'by legacy': 'legacy',
      'by twilio': 'twilio',
      'by smpp': 'smpp',
    });
  });
});

describe('an SMPP SMS reported on by a phone on a node that never heard of its credential', function () {
  onlyOnPostgres();
  this.timeout(30_000);
  // Two nodes on one database and no Redis between them: neither hears of what the other learns.
  const fx = useGateway({ config: { smpp: SMPP_ON } });

  it('gets its receipt, written by that node', async () => {
    const other = await fx.startGateway({ webhooks: fx.gateway.config.webhooks });
    fx.track(await connectDevice(other, fx.tenant));
    // The phone's node has moved an SMS of the account before the account had a credential.
    await sendAndDeliver(other, fx.tenant, 'an SMS of the account before it has a credential');
    const esme = await bindEsme(fx.gateway, await credentialLikeTheCli(fx.gateway.services.db, fx.tenant.accountId));
    try {
      const submitted = await esme.call('submit_sm', { source_addr: 'MyShop', destination_addr: '+79161234567', short_message: 'receipt wanted', registered_delivery: 1 });
      const receipt = await esme.receiptOf(submitted.message_id, 10_000);
      expect((receipt.short_message as { message: string }).message).to.contain('stat:DELIVRD');
    } finally {
      esme.close();
    }
  });
});

describe('SMS written by a node of the previous version, which does not name the way in', () => {
  const fx = useGateway();

  /** Inserts an SMS row as the previous version did: without way_in. */
  async function insertLikeThePreviousVersion(db: Executor, accountId: string, id = randomUUID()): Promise<string> {
    await db.raw(
      `insert into sms (id, object_id, account_id, device_named, phone, message, status, priority, created_at, updated_at)
       values (?, ?, ?, false, '+79161234567', 'old node', 'pending', 0, now(), now())`,
      [id, newObjectId(), accountId],
    );
    return id;
  }

  const wayInOf = async (id: string) => (await smsRow(fx, id)).way_in as string;

  it('come in by SMPP when submit_sm recorded their submission first, as it does', async () => {
    const { db } = fx.gateway.services;
    const credential = await credentialLikeTheCli(db, fx.tenant.accountId);
    const smsId = randomUUID();
    await insertSubmission(db, { smsId, credentialId: credential.id, sourceAddr: 'MyShop', registeredDelivery: 1, dataCoding: 0 });
    await insertLikeThePreviousVersion(db, fx.tenant.accountId, smsId);
    expect(await wayInOf(smsId)).to.equal('smpp');
    expect(await wayInOf(await insertLikeThePreviousVersion(db, fx.tenant.accountId))).to.equal('api');
  });

  it('come in by the Twilio API when a StatusCallback was recorded for them, as the Twilio API does in their transaction', async () => {
    const { db } = fx.gateway.services;
    const credential = await createCredential(fx.tenant);
    const smsId = await insertLikeThePreviousVersion(db, fx.tenant.accountId);
    await recordTwilioMessage(fx, smsId, credential.account_sid);
    expect(await wayInOf(smsId)).to.equal('twilio');
  });
});
