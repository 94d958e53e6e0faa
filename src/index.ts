// The library entry: only the names docs/library.md documents (test/package/api-surface.e2e.test.ts locks
// the list). It loads no CLI dependency. The CLI and other layers import src/internal.ts instead.
export {
  compile, lintSchema, SchemaError, warningMessage, WARNING_CODE, jsonEqual, codePointLength, lengthBound, minimumBound,
  type CompiledSchema, type CompileOptions, type LintIssue, type SchemaWarning, type Violation,
} from './validator/index.js';
export {
  MapProvider, DirProvider, HttpProvider, RegistryError,
  type Provider, type AsyncProvider, type SchemaAnswer, type ProviderOptions, type DirProviderOptions, type HttpProviderOptions,
  type ManifestEntry, type RegistryErrorKind,
} from './providers/index.js';
export {
  check, checkAsync, validate, validateAsync, validateSchema, validateEnvelope, validateEnvelopeAsync, wrap, readEnvelope,
  InvalidPayloadError, EnvelopeError, IDENTITY_WARNING_CODE, typed, UnknownUrnError,
  type Envelope, type ReadEnvelope, type EnvelopeProblem, type GuardOptions, type CheckOptions, type Deprecation, type TypedGuard, type TypedEnvelope, type UrnOf,
  mask, maskAsync, maskWith, sensitivePaths, type SensitivePath,
} from './guard/index.js';
