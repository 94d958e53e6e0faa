export { readEnvelope, EnvelopeError, type Envelope, type EnvelopeProblem } from './envelope.js';
export { check, validate, validateEnvelope, wrap, InvalidPayloadError } from './guard.js';
export { typed, UnknownUrnError, type TypedGuard, type TypedEnvelope, type UrnOf } from './typed.js';
