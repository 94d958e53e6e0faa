import { describe, expect, test } from 'vitest';
import { audit, isPiiName, nameTokens, piiMatcher, sensitivePaths, summaryNotice } from '../../src/gdpr/index.js';

// `gdpr --require`'s default PII name matcher: name tokens, not substrings.

/** [field name, looks personal]. The first block are the issue's own examples. */
const NAMES: ReadonlyArray<[string, boolean]> = [
  ['classname', false], // holds "ssn"
  ['adobe_id', false], // holds "dob"
  ['email_verified', false], // a flag about the email, not the email
  ['mailbox_count', false], // holds "mail"
  ['first_name', true],
  ['last_name', true],
  ['user_name', true],
  // contact
  ['email', true],
  ['customerEmail', true],
  ['E_MAIL', true],
  ['eMail', true],
  ['emails', true],
  ['verified_email', true], // the email that was verified
  ['email_hash', true], // pseudonymous data is still personal
  ['phone', true],
  ['PHONE', true],
  ['phone_numbers', true],
  ['mobile_number', true],
  ['msisdn', true],
  ['emailVerifiedAt', false],
  ['email_count', false],
  ['phoneType', false],
  ['has_email', false],
  ['is_phone_public', false],
  ['email_opt_in', false],
  // names
  ['FirstName', true],
  ['firstname', true],
  ['lastName', true],
  ['full-name', true],
  ['surname', true],
  ['given_names', true],
  ['card_holder_name', true],
  ['name', false], // product, event and file names far outnumber people's
  ['product_name', false],
  ['file.name', false],
  // identity
  ['ssn', true],
  ['x_ssn_y', true],
  ['national_id', true],
  ['nationalId', true],
  ['passport_number', true],
  ['IBAN', true],
  ['creditCardNumber', true],
  ['cvv2', true],
  ['tckn', true],
  // birth
  ['dob', true],
  ['dateOfBirth', true],
  ['birth_date', true],
  ['birthYear', true],
  // where
  ['address', true],
  ['billingAddress', true],
  ['address_line2', true],
  ['Street Address', true],
  ['zip', true],
  ['zip_code', true],
  ['postal-code', true],
  ['postcode', true],
  ['ip', true],
  ['client_ip', true],
  ['userIPAddress', true],
  ['ipv6_address', true],
  ['addresses', true],
  ['address_type', false],
  ['ip_whitelist_enabled', false],
  ['zip_file', false],
  // nothing personal
  ['order_id', false],
  ['amount', false],
  ['status', false],
  ['tip', false],
  ['skip_count', false],
  ['mobile_app_version', false],
  ['XMLHttpRequest', false],
  ['shipment', false], // holds "ip"
  ['description', false], // holds "ip"
  ['', false],
];

describe('isPiiName', () => {
  test.each(NAMES)('%j → %s', (name, expected) => {
    expect(isPiiName(name)).toBe(expected);
  });

  test('the table is large enough to pin the behaviour', () => {
    expect(NAMES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(NAMES.map(([n]) => n)).size).toBe(NAMES.length);
  });

  test('tokens: separators, camelCase, acronyms and digits', () => {
    expect(nameTokens('userIPAddress')).toEqual(['user', 'ip', 'address']);
    expect(nameTokens('address_line-2.x y')).toEqual(['address', 'line', '2', 'x', 'y']);
    expect(nameTokens('ipv4Addr')).toEqual(['ipv', '4', 'addr']);
    expect(nameTokens('__')).toEqual([]);
  });

  test('hostile names end at once and match nothing they should not', () => {
    const long = 'aB1_'.repeat(50_000);
    const start = Date.now();
    expect(isPiiName(long)).toBe(false);
    expect(Date.now() - start).toBeLessThan(2000);
    for (const n of ['__proto__', 'constructor', '*/', '<script>', '"\'\\', 'a\u2028b', '\u0000\u001b[31m'])
      expect(isPiiName(n), n).toBe(false);
  });
});

describe('piiMatcher', () => {
  test('no pattern is isPiiName; a custom pattern tests the whole name, case-insensitively', () => {
    expect(piiMatcher()).toBe(isPiiName);
    const m = piiMatcher('license_?plate');
    expect(m('LicensePlate')).toBe(true);
    expect(m('vehicle_license_plate_no')).toBe(true); // a substring, as before
    expect(m('email')).toBe(false);
    expect(piiMatcher('^ssn$')('classname')).toBe(false);
  });

  test('a g or y regex gives the same answer every time', () => {
    const m = piiMatcher(/mail/gy);
    expect([m('mail'), m('mail'), m('mail')]).toEqual([true, true, true]);
  });

  test('an invalid or empty pattern throws a SyntaxError naming it', () => {
    expect(() => piiMatcher('(x')).toThrow(/invalid PII pattern "\(x"/);
    expect(() => piiMatcher('')).toThrow(/empty/);
  });
});

describe('audit with the token matcher and the false opt-out', () => {
  const schema = {
    properties: {
      classname: { type: 'string' },
      first_name: { type: 'string' },
      email_verified: { type: 'boolean' },
      reviewed_email: { type: 'string', 'x-gdpr-sensitive': false },
      warehouse_address: {
        'x-gdpr-sensitive': false,
        properties: { street: { type: 'string' }, dock: { type: 'string' } },
      },
      contact: { properties: { phone: { type: 'string', 'x-gdpr-sensitive': false }, note: { type: 'string' } } },
    },
  };

  test('false silences that field only: its name is not passed down, own personal names below still count', () => {
    expect(audit([{ urn: 'u', schema }])).toEqual([
      { urn: 'u', path: 'first_name' },
      { urn: 'u', path: 'warehouse_address.street' },
    ]);
  });

  test('a false field is not listed as sensitive', () => {
    expect(sensitivePaths(schema)).toEqual([]);
  });

  test('a custom matcher replaces the default', () => {
    expect(audit([{ urn: 'u', schema }], piiMatcher('^class'))).toEqual([{ urn: 'u', path: 'classname' }]);
  });
});

describe('summaryNotice', () => {
  test('one notice for the whole inventory', () => {
    const notice = summaryNotice([
      {
        urn: 'urn:a',
        fields: [
          { path: 'email', category: 'email' },
          { path: 'orders[].card', category: '' },
        ],
      },
      { urn: 'urn:b', fields: [] },
      { urn: 'urn:c', fields: [{ path: '', category: 'all' }] },
    ]);
    expect(notice).toEqual({
      title: 'Personal data inventory',
      message: ['3 sensitive field(s) in 2 of 3 URN(s)', 'urn:a: email (email), orders[].card', 'urn:c: (root) (all)'].join('\n'),
    });
  });

  test('control characters from the schema cannot add lines', () => {
    const { message } = summaryNotice([{ urn: 'urn:x\nforged', fields: [{ path: 'a\u001b[31m', category: 'c\u2028d\r' }] }]);
    expect(message.split('\n')).toEqual(['1 sensitive field(s) in 1 of 1 URN(s)', 'urn:x\\u000aforged: a\\u001b[31m (c\\u2028d\\u000d)']);
  });

  test('an empty registry', () => {
    expect(summaryNotice([]).message).toBe('0 sensitive field(s) in 0 of 0 URN(s)');
  });
});
