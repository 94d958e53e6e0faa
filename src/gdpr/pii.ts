/*
 * Which property names look like personal data, for `gdpr --require`. Names are compared by
 * tokens, not substrings: `classname` holds "ssn" and `mailbox_count` holds "mail", but neither
 * names personal data, while `first_name` does though no token of it is personal alone.
 */

/** Tells whether a property name looks like personal data. */
export type PiiMatcher = (name: string) => boolean;

/**
 * The lower-case words of a name: split on anything that is not a letter or digit (`_`, `-`, `.`,
 * spaces), at camelCase boundaries (`dateOfBirth`, `userIPAddress` → user ip address) and between
 * letters and digits (`address2` → address 2). Each regex is a fixed-width lookaround or a single
 * character class, so the whole runs in time linear in the name.
 */
export function nameTokens(name: string): string[] {
  const spaced = name
    .replace(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})/gu, ' ')
    .replace(/(?<=\p{Lu})(?=\p{Lu}\p{Ll})/gu, ' ')
    .replace(/(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/gu, ' ');
  return spaced
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== '')
    .map((t) => t.toLowerCase());
}

/**
 * Words that name personal data on their own. Lower-case run-together spellings of the
 * multi-word names below are listed too (`firstname`, `zipcode`), as they are one token.
 * Left out on purpose, as they mostly name something else: `name` alone (product, event, file
 * names), `city`, `country`, `latitude`/`longitude` (stores, warehouses), `mobile` alone (app
 * versions), `id` alone.
 */
const WORDS: ReadonlySet<string> = new Set([
  // contact
  'email',
  'mail',
  'emailaddress',
  'phone',
  'telephone',
  'phonenumber',
  'mobilenumber',
  'msisdn',
  // identity documents and numbers
  'ssn',
  'tckn',
  'nationalid',
  'passport',
  'iban',
  'creditcard',
  'cardnumber',
  'cardholder',
  'cvv',
  'cvc',
  // birth
  'dob',
  'birth',
  'birthdate',
  'birthday',
  'dateofbirth',
  // names of a person
  'firstname',
  'lastname',
  'fullname',
  'username',
  'givenname',
  'familyname',
  'middlename',
  'maidenname',
  'surname',
  'forename',
  'nickname',
  'displayname',
  // where a person is
  'address',
  'street',
  'zip',
  'zipcode',
  'postcode',
  'postalcode',
  'ip',
  'ipaddress',
  'ipv', // ipv4, ipv6: digits are split off
]);

/** Consecutive words that name personal data together (each word alone does not). */
const PHRASES: ReadonlyArray<readonly string[]> = [
  ...[
    'first',
    'last',
    'full',
    'user',
    'given',
    'family',
    'middle',
    'maiden',
    'sur',
    'fore',
    'nick',
    'display',
    'legal',
    'customer',
    'contact',
    'person',
    'holder',
    'recipient',
  ].map((w) => [w, 'name']),
  ['mobile', 'number'],
  ['credit', 'card'],
  ['card', 'number'],
  ['card', 'holder'],
  ['national', 'id'],
  ['tax', 'id'],
  ['social', 'security'],
  ['postal', 'code'],
  ['post', 'code'],
  ['driver', 'license'],
  ['drivers', 'license'],
  ['driving', 'licence'],
  ['driving', 'license'],
  ['bank', 'account'],
  ['account', 'number'],
];

/**
 * Words that, after the personal word, make the name about the data rather than the data itself:
 * `email_verified`, `phone_type`, `email_count`, `address_changed_at`. A flag, a count or a kind
 * of a value is not the value: such fields do not need the marker. (A hashed email still does.)
 */
const ABOUT_WORDS: ReadonlySet<string> = new Set([
  'verified',
  'verification',
  'confirmed',
  'confirmation',
  'valid',
  'validated',
  'validation',
  'enabled',
  'disabled',
  'opt',
  'optin',
  'optout',
  'opted',
  'consent',
  'count',
  'type',
  'kind',
  'status',
  'format',
  'length',
  'provider',
  'template',
  'sent',
  'bounced',
  'changed',
  'updated',
  'at',
  'required',
  'visible',
  'hidden',
  'preference',
  'preferences',
  'file',
  'archive', // zip_file: another zip
]);

/** Leading words of a boolean about the data: `is_email`, `has_phone`. */
const BOOLEAN_PREFIXES: ReadonlySet<string> = new Set(['is', 'has', 'can', 'should', 'allow', 'allows']);

/** A listed word, or its plural: `emails`, `addresses`, `ips`. */
function isWord(t: string): boolean {
  return WORDS.has(t) || (t.endsWith('es') && WORDS.has(t.slice(0, -2))) || (t.endsWith('s') && WORDS.has(t.slice(0, -1)));
}

/**
 * The default matcher of `gdpr --require`: a personal word or phrase among the name's tokens,
 * unless a later token says the field is about it (`email_verified`) or the name opens like a
 * boolean (`has_email`).
 */
export const isPiiName: PiiMatcher = (name) => {
  const tokens = nameTokens(name);
  // A listed word, or a phrase whose last word may be plural (`first_names`).
  const phraseAt = (i: number, phrase: readonly string[]): boolean =>
    phrase.every((w, k) => tokens[i + k] === w || (k === phrase.length - 1 && isPlural(tokens[i + k], w)));
  let end = -1; // the index after the last personal word or phrase
  for (let i = 0; i < tokens.length; i++) {
    if (isWord(tokens[i]!)) end = Math.max(end, i + 1);
    for (const phrase of PHRASES) if (phraseAt(i, phrase)) end = Math.max(end, i + phrase.length);
  }
  if (end < 0 || BOOLEAN_PREFIXES.has(tokens[0]!)) return false;
  for (let i = end; i < tokens.length; i++) if (ABOUT_WORDS.has(tokens[i]!)) return false;
  return true;
};

const isPlural = (token: string | undefined, word: string): boolean => token === `${word}s` || token === `${word}es`;

/** Builds the case-insensitive pattern given as `--pattern RE`; an invalid or empty one throws. */
export function parsePiiPattern(source: string): RegExp {
  if (source === '') throw new SyntaxError('the PII pattern is empty: it would match every property name');
  try {
    return new RegExp(source, 'i');
  } catch (err) {
    throw new SyntaxError(`invalid PII pattern ${JSON.stringify(source)}: ${(err as Error).message}`);
  }
}

/**
 * The matcher `gdpr --require` uses: `isPiiName`, or with `--pattern RE` a case-insensitive test
 * of the whole property name against RE (a substring match unless RE is anchored). Throws a
 * SyntaxError on an invalid or empty RE.
 */
export function piiMatcher(pattern?: string | RegExp): PiiMatcher {
  if (pattern === undefined) return isPiiName;
  const re = typeof pattern === 'string' ? parsePiiPattern(pattern) : pattern;
  // A g or y flag would make test() depend on lastIndex left by the previous call.
  const safe = re.global || re.sticky ? new RegExp(re.source, re.flags.replace(/[gy]/g, '')) : re;
  return (name) => safe.test(name);
}
