import { EnvelopeError, readEnvelope } from '../guard/envelope.js';
import { closest, RegistryError, type Registry } from '../registry/index.js';
import { envelopeAsData, envelopeMessage } from './diagnose.js';
import {
  deprecationText,
  MAX_VIOLATIONS,
  noSchemaMessage,
  type MessageViolation,
  type MessageStatus,
  type MessageVerdict,
} from './report.js';

/*
 * validate's core: one parsed message in, one Result out, judged against an open registry. The CLI
 * loads (reads and parses the inputs, opens the registry) and renders (src/validate/report.ts's
 * findings through a formatter); the command and its worker threads judge with this.
 */

/** How the envelope is labelled in every output, where a violation of its data has a pointer (the data root: pointerLabel). */
const ENVELOPE = '(envelope)';

/** What changes a verdict: the URN bare data is judged as (`--urn`), and whether a URN with no schema fails. */
export interface JudgeOptions {
  urn?: string;
  strict?: boolean;
  /** false: no warning on a message of a deprecated URN. */
  deprecationWarnings?: boolean;
}

/** A message's status, and its verdict below: the shapes src/validate/report.ts builds findings from. */
export type Status = MessageStatus;

interface Problem extends MessageViolation {
  schemaPath?: string;
  keyword: string;
}

/** One message's verdict. Built field by field (no spreads): this runs once per message. The lists are the judge's to fill. */
export interface Result extends MessageVerdict {
  violations: Problem[] | undefined;
  warnings: string[] | undefined;
}

export function result(file: string, line: number | undefined, urn: string | undefined, status: Status): Result {
  return {
    file,
    line,
    urn,
    status,
    violations: undefined,
    warnings: undefined,
    error: undefined,
    errorLine: undefined,
    col: undefined,
    suggestion: undefined,
    moreViolations: undefined,
    // Every field a verdict can get, from the start: the objects of a run keep one shape.
    errorLocation: undefined,
    unregistered: undefined,
    deprecation: undefined,
  };
}

// Suggestions: URNs longer than this get none; at most this many remembered.
const MAX_SUGGESTED_URN = 512;
const MAX_SUGGESTIONS = 10_000;

const fold = (urn: string): string => urn.trim().toLowerCase();

export class MessageJudge {
  /** Each unregistered URN's suggestion, worked out once: a stream repeats its URNs. */
  private readonly suggestions = new Map<string, string | undefined>();
  /** Registered URNs by their folded form (`fold`), made on the first unregistered URN. */
  private folded: Map<string, string> | undefined;
  /** Each deprecated URN's warning, worked out once (URNs are registered ones: bounded by the manifest). */
  private readonly deprecations = new Map<string, string>();
  /** Whether any message can carry a deprecation warning: most registries deprecate nothing, and this runs per message. */
  private readonly warnsDeprecation: boolean;

  constructor(
    readonly registry: Registry,
    private readonly options: JudgeOptions,
    /** Called after each look-up of a URN's schema, whether it loaded or not (the CLI prints the warnings loading it gave). */
    private readonly afterLookup: (urn: string) => void = () => {},
  ) {
    this.warnsDeprecation = options.deprecationWarnings !== false && registry.entries.some((e) => e.status === 'deprecated');
  }

  /** One parsed document: an envelope, or bare data when `urn` is given. */
  judge(value: unknown, file: string, line: number | undefined): Result {
    let urn: string;
    let data: unknown;
    let warnings: string[] | undefined;
    let dataAt = '';
    if (this.options.urn !== undefined) {
      urn = this.options.urn;
      data = value;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        const r = result(file, line, urn, 'invalid');
        r.violations = [{ instancePath: '', keyword: 'type', message: 'data must be a JSON object', at: '' }];
        return r;
      }
    } else {
      try {
        const envelope = readEnvelope(value);
        urn = envelope.urn;
        data = envelope.data;
        if (envelope.warnings.length > 0) warnings = envelope.warnings;
        dataAt = '/data';
      } catch (err) {
        if (!(err instanceof EnvelopeError)) throw err;
        const at = err.reason === 'data is not an object' ? '/data' : err.reason === 'unknown schema_version' ? '/meta/schema_version' : '';
        const r = result(file, line, err.urn, 'invalid');
        r.violations = [
          { instancePath: ENVELOPE, keyword: 'envelope', message: envelopeMessage(value, err.reason, err.message, file), at },
        ];
        if (err.warnings.length > 0) r.warnings = [...err.warnings];
        return r;
      }
    }
    let schema;
    try {
      schema = this.registry.compiled(urn);
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err;
      // A URN whose schema cannot be used fails each of its messages; the run goes on.
      const r = result(file, line, urn, 'error');
      r.error = err.message;
      r.errorLocation = this.registry.problemSite(urn, err);
      r.warnings = warnings;
      return r;
    } finally {
      this.afterLookup(urn);
    }
    if (schema === undefined) {
      // Under strict a URN with no schema is an error: the message cannot be judged, and fails the run.
      const strict = this.options.strict === true;
      const r = result(file, line, urn, strict ? 'error' : 'skipped');
      r.warnings = warnings;
      r.suggestion = this.suggestion(urn);
      if (strict) {
        r.unregistered = true;
        r.error = noSchemaMessage(r);
      }
      return r;
    }
    // With --urn, a whole envelope naming that very URN is a message given as data: its `data` was
    // never checked, so it must not pass as valid (an open schema accepts the envelope's keys).
    const envelopeHint = this.options.urn !== undefined ? envelopeAsData(data) : undefined;
    const namesUrn =
      envelopeHint !== undefined &&
      [(data as Record<string, unknown>).job, (data as Record<string, unknown>).urn].some((u) => typeof u === 'string' && u.trim() === urn);
    if (schema.isValid(data) && !namesUrn) {
      const r = result(file, line, urn, 'valid');
      r.warnings = warnings;
      if (this.warnsDeprecation) this.deprecated(r, urn);
      return r;
    }
    const r = result(file, line, urn, 'invalid');
    r.warnings = warnings;
    if (this.warnsDeprecation) this.deprecated(r, urn);
    // One more than is listed tells whether there are more; the walk stops there.
    const found = schema.validate(data, MAX_VIOLATIONS + 1);
    if (found.length > MAX_VIOLATIONS) {
      found.length = MAX_VIOLATIONS;
      r.moreViolations = true;
    }
    r.violations = found.map((v) => ({
      instancePath: v.instancePath,
      schemaPath: v.schemaPath,
      keyword: v.keyword,
      message: v.message,
      at: dataAt + v.instancePath,
    }));
    if (envelopeHint !== undefined) r.violations.unshift({ instancePath: ENVELOPE, keyword: 'envelope', message: envelopeHint, at: '' });
    return r;
  }

  /** Marks a judged message of a deprecated URN (unless deprecation warnings are off). */
  private deprecated(r: Result, urn: string): void {
    let said = this.deprecations.get(urn);
    if (said === undefined) {
      const entry = this.registry.entry(urn);
      if (entry?.status !== 'deprecated') return;
      said = deprecationText(urn, entry.deprecated);
      this.deprecations.set(urn, said);
    }
    r.deprecation = said;
  }

  /** The registered URN an unregistered one is likely a typo of. */
  private suggestion(urn: string): string | undefined {
    const known = this.suggestions.get(urn);
    if (known !== undefined || this.suggestions.has(urn)) return known;
    // Registered URNs are short: a long one is no typo of them, and is not worth the edit distance.
    let found: string | undefined;
    if (urn.length <= MAX_SUGGESTED_URN) {
      // Case and surrounding whitespace first (any number of them is one slip), then the edit distance.
      if (this.folded === undefined) {
        this.folded = new Map();
        for (const u of this.registry.urns()) if (!this.folded.has(fold(u))) this.folded.set(fold(u), u);
      }
      found = this.folded.get(fold(urn)) ?? closest(urn, this.registry.urns());
    }
    if (this.suggestions.size >= MAX_SUGGESTIONS) this.suggestions.clear(); // many distinct URNs: memory stays bounded
    this.suggestions.set(urn, found);
    return found;
  }
}
