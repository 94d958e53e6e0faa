import { EnvelopeError, readEnvelope } from '../guard/envelope.js';
import { RegistryError, stripBom, type Registry } from '../registry/index.js';
import { isSchemaObject } from '../validator/index.js';
import { mask, withData } from '../validator/mask.js';
import { spliceMasked } from './splice.js';

/*
 * gdpr --mask's core: a message (an envelope, or bare data with --urn) masked against its URN's
 * schema and written back as its own source text with only the masked values changed. Nothing
 * unmasked is ever returned: a message that cannot be masked is an error, with why. An envelope
 * given with --urn has its data masked too (an envelope of another URN is refused): the input is
 * not known to be bare data just because --urn says so.
 */

/** The envelope `value` reads as (its URN and warnings), or undefined when it is not one. */
function asEnvelope(value: unknown): { urn: string; warnings: string[] } | undefined {
  try {
    const { urn, warnings } = readEnvelope(value);
    return { urn, warnings };
  } catch (err) {
    if (!(err instanceof EnvelopeError)) throw err;
    return undefined;
  }
}

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
    /** With --urn, whether the input is an envelope of that URN after all: its data is masked too. */
    let envelope = false;
    if (this.urn !== undefined) {
      if (!isSchemaObject(value)) return { error: 'data must be a JSON object', warnings };
      urn = this.urn;
      data = value;
      const read = asEnvelope(value);
      if (read !== undefined) {
        if (read.urn !== urn) {
          return {
            error: `the input is a message envelope of ${read.urn}, not of --urn ${urn}: it is not masked against another URN's schema, so it is not printed; drop --urn to mask an envelope by its own URN`,
            warnings: read.warnings,
          };
        }
        envelope = true;
        warnings = read.warnings;
      }
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
    let whole = this.urn !== undefined ? masked : withData(value as Record<string, unknown>, masked);
    if (envelope) {
      // Masked both ways (fail closed): as bare data of the URN, which it also may be, and as an
      // envelope whose data is of the URN.
      const inner = (whole as Record<string, unknown>).data;
      if (isSchemaObject(inner)) whole = withData(whole as Record<string, unknown>, mask(inner, schema));
    }
    try {
      return { text: spliceMasked(stripBom(text), value, whole) ?? JSON.stringify(whole, null, pretty ? 2 : undefined), warnings };
    } catch (err) {
      if (err instanceof RangeError) return { error: 'the message is nested too deeply to be printed', warnings };
      throw err;
    }
  }
}
