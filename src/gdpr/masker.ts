import { EnvelopeError, readEnvelope } from '../guard/envelope.js';
import { RegistryError, stripBom, type Registry } from '../registry/index.js';
import { isSchemaObject } from '../validator/index.js';
import { mask, withData } from './mask.js';
import { spliceMasked } from './splice.js';

/*
 * gdpr --mask's core: a message (an envelope, or bare data with --urn) masked against its URN's
 * schema and written back as its own source text with only the masked values changed. Nothing
 * unmasked is ever returned: a message that cannot be masked is an error, with why.
 */

export type Masked = { text: string; warnings: string[] } | { error: string; warnings: string[] };

/**
 * Masks messages against their URN's schema. Schema documents are loaded on first use, once per
 * URN, so a log pipeline starts at once whatever the size of the registry.
 */
export class Masker {
  constructor(
    private readonly registry: Registry,
    private readonly urn: string | undefined,
  ) {}

  /** `text` is the document's source; `pretty` picks the layout of the fallback rendering. */
  mask(value: unknown, text: string, pretty: boolean): Masked {
    let urn: string;
    let data: unknown;
    let warnings: string[] = [];
    if (this.urn !== undefined) {
      if (!isSchemaObject(value)) return { error: 'data must be a JSON object', warnings };
      urn = this.urn;
      data = value;
    } else {
      try {
        ({ urn, data, warnings } = readEnvelope(value));
      } catch (err) {
        if (!(err instanceof EnvelopeError)) throw err;
        return { error: err.message, warnings: [...err.warnings] };
      }
    }
    if (!this.registry.has(urn)) return { error: `no schema registered for ${urn}: it cannot be masked, so it is not printed`, warnings };
    let schema: unknown;
    try {
      schema = this.registry.document(urn).value;
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err;
      return { error: `${err.message}: the message cannot be masked, so it is not printed`, warnings };
    }
    const masked = mask(data, schema);
    const whole = this.urn !== undefined ? masked : withData(value as Record<string, unknown>, masked);
    try {
      return { text: spliceMasked(stripBom(text), value, whole) ?? JSON.stringify(whole, null, pretty ? 2 : undefined), warnings };
    } catch (err) {
      if (err instanceof RangeError) return { error: 'the message is nested too deeply to be printed', warnings };
      throw err;
    }
  }
}
