// Encrypted SMS sent through a simulated phone, for the tests of what the phone does with them.
import { expect } from 'chai';
import { encrypt } from '../../src/common/end-to-end.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { nextEvent } from '../support/devices.ts';
import type { Tenant } from '../support/tenant.ts';

export const PASSPHRASE = 'a passphrase only the client and its phones know';

/** Posts an encrypted SMS through `device` and resolves with it as the API reads it once the phone reported `status`. */
export async function sendEncryptedThrough(tenant: Tenant, device: SimulatedDevice, phone: string, status: 'failed_send' | 'delivered') {
  let id: string | undefined;
  const reported = nextEvent(device, 'report', (smsId, reportedStatus) => smsId === id && reportedStatus === status);
  const reply = await tenant.api.post('/sms/encrypted', { phone: await encrypt(phone, PASSPHRASE), message: await encrypt('Sale today only', PASSPHRASE), device_id: device.id });
  expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
  id = reply.body.id as string;
  await reported;
  return (await tenant.api.get(`/sms/${id}`)).body;
}
