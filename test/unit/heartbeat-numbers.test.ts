// broker/heartbeat-numbers.ts: a SIM number the gateway cannot read is dropped for that SIM, and
// the line logged for it names the SIM without the whole number.
import { expect } from 'chai';
import { checkSimNumbers } from '../../broker/heartbeat-numbers.ts';

describe('heartbeat SIM numbers', () => {
  it('when a SIM reports its number in national form, then it is dropped and the logged reason masks it', () => {
    const { heartbeat, dropped } = checkSimNumbers({
      battery_level: 50,
      is_charging: false,
      sim_cards: [{ index: 0, name_operator: 'MTS', phone_number: '89165550001' }],
    });
    expect(heartbeat.sim_cards).to.deep.equal([{ index: 0, name_operator: 'MTS' }]);
    expect(dropped).to.have.length(1);
    expect(dropped[0]).to.contain('sim_cards[0].phone_number');
    expect(dropped[0]).not.to.contain('89165550001');
  });
});
