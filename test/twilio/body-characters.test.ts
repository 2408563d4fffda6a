// Twilio's Body is counted in characters as the API counts them (grapheme clusters, no further
// than the limit), not in code points: 170 emoji with a skin tone are 170 characters and are
// sent; one more is 21617, and so is a Body of 10,000.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { createCredential, messagesPath, twilioRequest } from './support.ts';

describe('twilio: the Body limit', () => {
  const fx = useGateway();

  it('when Body has 170 characters of two code points each, then it is accepted; 171 or 10,000 are refused 21617', async () => {
    const credential = await createCredential(fx.tenant);
    const auth = { sid: credential.account_sid, token: credential.auth_token };
    const create = (Body: string) => twilioRequest(fx.baseUrl, 'POST', `${messagesPath(credential.account_sid)}.json`, auth, { To: '+79161234567', Body });
    const wave = '\u{1F44B}\u{1F3FD}';
    const accepted = await create(wave.repeat(170));
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(201);
    expect(accepted.body.body).to.equal(wave.repeat(170));
    for (const body of [wave.repeat(171), 'x'.repeat(10_000)]) {
      const refused = await create(body);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body.code).to.equal(21617);
    }
  });
});
