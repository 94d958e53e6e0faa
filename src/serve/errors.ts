/**
 * Error answers, in Confluent's shape `{error_code, message}`. The 404xx, 42201, 42202, 42205 and
 * 50001 codes are Confluent's own (core/…/rest/exceptions/Errors.java in confluentinc/schema-registry);
 * the rest follow its pattern (HTTP status + two digits) for the cases it leaves to its web framework.
 */
export const ERROR = {
  /** Malformed request: bad percent-encoding in the path, a body that is not a JSON object, bad HTTP. */
  badRequest: { status: 400, code: 40001 },
  /** No such endpoint. */
  routeNotFound: { status: 404, code: 40400 },
  subjectNotFound: { status: 404, code: 40401 },
  versionNotFound: { status: 404, code: 40402 },
  schemaNotFound: { status: 404, code: 40403 },
  /** A method the endpoint does not serve (nor Confluent's: `PATCH /subjects`, `GET /compatibility/…`). */
  methodNotAllowed: { status: 405, code: 40501 },
  requestTimeout: { status: 408, code: 40801 },
  /** The request body is over the size limit. */
  bodyTooLarge: { status: 413, code: 41301 },
  expectationFailed: { status: 417, code: 41701 },
  /** The posted schema is not JSON, not an object, not a JSON Schema the validator accepts, or not of type JSON. */
  invalidSchema: { status: 422, code: 42201 },
  /** A version that is not `latest`, `-1` or an integer from 1 to 2^31-1. */
  invalidVersion: { status: 422, code: 42202 },
  /**
   * A write Confluent serves (register a schema that is not the registered one, delete, change a
   * config or mode), answered as Confluent answers it in READONLY mode: "operation not permitted".
   * The registry is changed with a git commit.
   */
  readOnly: { status: 422, code: 42205 },
  headersTooLarge: { status: 431, code: 43101 },
  /** A registered schema that failed to load, or an unexpected failure. */
  backend: { status: 500, code: 50001 },
  /** The request bodies still arriving hold as many bytes as the server keeps (`--max-pending-bytes`). */
  busy: { status: 503, code: 50301 },
} as const;

export type ErrorKind = keyof typeof ERROR;

/** An error answer; thrown by a handler and written by the server. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: number;
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
    this.status = ERROR[kind].status;
    this.code = ERROR[kind].code;
  }

  body(): string {
    return JSON.stringify({ error_code: this.code, message: this.message });
  }
}
