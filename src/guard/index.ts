export { readEnvelope, EnvelopeError, type Envelope, type EnvelopeProblem, type ReadEnvelope } from './envelope.js';
export {
  check,
  checkAsync,
  validate,
  validateAsync,
  validateSchema,
  validateEnvelope,
  validateEnvelopeAsync,
  wrap,
  InvalidPayloadError,
  UnknownUrnError,
  IDENTITY_WARNING_CODE,
  type GuardOptions,
  type CheckOptions,
} from './guard.js';
export { typed, type TypedGuard, type TypedEnvelope, type UrnOf } from './typed.js';
export { mask, maskAsync, maskWith, sensitivePaths, type SensitivePath } from './mask.js';
export type { Deprecation } from '../registry/deprecation.js';
