// What the settings carry of the account's suppression list (docs/asyncapi.yaml,
// DeviceSettings.opted_out): keyed hashes a phone can compute itself from a number in E.164, pushed
// to the online phones whenever the API adds or removes a number, and bounded: past the limit the
// newest numbers, marked incomplete. The format is checked against an independent computation
// and against the documented test vector.
import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';
import { OptedOutLists } from '../../src/modules/opt-out/device-list.ts';
import { createLogger } from '../../src/common/logger.ts';
import { OptedOutNumbers } from '../../agent/src/protocol/opted-out.ts';
import { insertSuppressions } from '../support/test-data.ts';

type OptedOut = { scheme: string; key: string; hashes: string; count: number; complete: boolean };
type Settings = Record<string, unknown> & { opted_out?: OptedOut };

/** DeviceSettings as docs/asyncapi.yaml describes it. */
function documentedSettings() {
  const contract = parse(readFileSync(new URL('../../docs/asyncapi.yaml', import.meta.url), 'utf8'));
  return new Ajv({ strict: false, allErrors: true }).compile(contract.components.schemas.DeviceSettings);
}

/** The hashes of the list, as hex, computed here from the numbers and the key it came with. */
function expectedHashes(optedOut: OptedOut, phones: string[]): string {
  const key = Buffer.from(optedOut.key, 'base64');
  const hashes = phones.map((phone) => createHmac('sha256', key).update(phone).digest().subarray(0, 8)).sort(Buffer.compare);
  return Buffer.concat(hashes).toString('base64');
}

describe('the suppression list in the settings phones get', () => {
  const fx = useGateway();

  describe('when numbers are added and removed through the API while a phone is online', () => {
    it('then the phone gets settings with their keyed hashes each time, and none once the list is empty', async () => {
      const phone = await fx.connectDevice();
      const one = nextEvent(phone, 'settings', (settings: Settings) => settings.opted_out?.count === 1);
      expect((await fx.tenant.api.post('/suppressions', { phone: '+79161234567' })).status).to.equal(201);
      const [first] = (await one) as [Settings];
      const valid = documentedSettings();
      expect(valid(first), JSON.stringify(valid.errors)).to.equal(true);
      expect(first.opted_out).to.include({ scheme: 'hmac-sha256/64', complete: true });
      expect(Buffer.from(first.opted_out!.key, 'base64')).to.have.length(32);
      expect(first.opted_out!.hashes).to.equal(expectedHashes(first.opted_out!, ['+79161234567']));

      const two = nextEvent(phone, 'settings', (settings: Settings) => settings.opted_out?.count === 2);
      expect((await fx.tenant.api.post('/suppressions', { phone: '+79261234567' })).status).to.equal(201);
      const [second] = (await two) as [Settings];
      expect(second.opted_out!.hashes).to.equal(expectedHashes(second.opted_out!, ['+79161234567', '+79261234567']));

      const down = nextEvent(phone, 'settings', (settings: Settings) => settings.opted_out?.count === 1);
      expect((await fx.tenant.api.delete('/suppressions/%2B79161234567')).status).to.equal(204);
      const [third] = (await down) as [Settings];
      expect(third.opted_out!.hashes).to.equal(expectedHashes(third.opted_out!, ['+79261234567']));

      const none = nextEvent(phone, 'settings', (settings: Settings) => settings.opted_out === undefined);
      expect((await fx.tenant.api.delete('/suppressions/%2B79261234567')).status).to.equal(204);
      await none;
    });
  });

  describe('when the list is longer than phones are given', () => {
    it('then they get its newest numbers, marked incomplete', async () => {
      const phones = ['+79161234561', '+79161234562', '+79161234563', '+79161234564', '+79161234565'];
      // Listed a minute apart, oldest first: which are the newest does not hang on a clock's millisecond.
      const start = Date.now() - 3_600_000;
      await insertSuppressions(
        fx,
        phones.map((phone, index) => ({ id: randomUUID(), account_id: fx.tenant.accountId, phone, source: 'api', keyword: null, created_at: new Date(start + index * 60_000) })),
      );
      const lists = new OptedOutLists(fx.gateway.services.db, createLogger('silent'), 3);
      const list = (await lists.of(fx.tenant.accountId))!;
      expect(list).to.include({ count: 3, complete: false });
      expect(list.hashes).to.equal(expectedHashes(list, phones.slice(2)));
      expect((await lists.of(fx.tenant.accountId))!.key, 'kept until the list changes').to.equal(list.key);
      lists.changed(fx.tenant.accountId);
      expect((await lists.of(fx.tenant.accountId))!.key, 'a new key with every computation').to.not.equal(list.key);
    });
  });

  describe('when the agent reads the documented test vector', () => {
    it('then it finds the two numbers listed, in any international form, and no other', () => {
      const key = Buffer.from('AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=', 'base64');
      const list = new OptedOutNumbers(key, Buffer.from('NREq6jsMg8S20U02XS9+hQ==', 'base64'), true);
      expect(list.size).to.equal(2);
      for (const phone of ['+79161234567', '79161234567', '0079161234567', '+79161234568']) expect(list.has(phone), phone).to.equal(true);
      expect(list.has('+79161234569')).to.equal(false);
      expect(list.has('89161234567'), 'a national form is not the listed number').to.equal(false);
    });
  });
});
