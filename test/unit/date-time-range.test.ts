// A date-time is taken only at an instant of the years 1 to 9999 in UTC, what the database holds:
// year 1 at +14:00 is year 0 in UTC, 9999 at -12:00 is year 10000.
import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { compile } from '../../src/common/schema-validation.ts';

describe('date-time values at the edges of what the database holds', () => {
  const validate = compile(Type.Object({ at: Type.String({ format: 'date-time' }) }), 'body');

  for (const at of ['0001-01-01T00:00:00+14:00', '0001-01-01T13:59:59+14:00', '9999-12-31T23:59:59.999-12:00', '9999-12-31T12:00:00-12:00']) {
    it(`then ${at} is refused`, () => {
      expect(validate({ at })).to.equal(false);
      expect(validate.errors?.[0]?.keyword).to.equal('format');
    });
  }

  for (const at of ['0001-01-01T00:00:00Z', '0001-01-01T14:00:00+14:00', '9999-12-31T23:59:59.999Z', '9999-12-31T11:59:59-12:00', '2026-11-26T12:00:00+03:00']) {
    it(`then ${at} is taken`, () => {
      expect(validate({ at }), JSON.stringify(validate.errors)).to.equal(true);
    });
  }
});
