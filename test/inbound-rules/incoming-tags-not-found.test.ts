// GET /incoming/{id}/tags reads one received SMS, as every other read of one thing: an id the
// account received nothing under (unknown, or another account's SMS) is a 404 sms_not_found,
// never an empty list that looks like an untagged SMS of its own.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError, UNKNOWN_ID } from '../support/expectations.ts';
import { receive, receivingPhone } from '../opt-out/support.ts';

describe('inbound rules: the tags of a received SMS that is not the account\'s', () => {
  const fx = useGateway();

  it('when the id is unknown or another account\'s received SMS, then the tags read answers 404 sms_not_found', async () => {
    const phone = await receivingPhone(fx);
    await receive(phone, '+79161234567', 'hello');
    const received = (await fx.tenant.api.get('/incoming?limit=1')).body.data[0] as { id: string };

    const own = await fx.tenant.api.get(`/incoming/${received.id}/tags`);
    expect(own.status, JSON.stringify(own.body)).to.equal(200);
    expect(own.body).to.deep.equal({ tags: [] });

    expectError(await fx.tenant.api.get(`/incoming/${UNKNOWN_ID}/tags`), 404, 'sms_not_found');
    const other = await fx.newTenant();
    expectError(await other.api.get(`/incoming/${received.id}/tags`), 404, 'sms_not_found');
    expectError(await other.api.get('/incoming/abc/tags'), 400, 'invalid_id');
  });
});
