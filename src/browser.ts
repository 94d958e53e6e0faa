// The library entry for browsers and other runtimes without Node's modules (the "browser"
// condition of the package's exports): everything src/index.ts exports that needs no `node:`
// module. Left out: DirProvider (it reads files). HttpProvider needs only fetch, TextDecoder and btoa.
// test/package/browser-entry.e2e.test.ts proves its module graph has no `node:` import, and
// test/guard/browser-csp.e2e.test.ts runs it in Chromium under a CSP that forbids 'unsafe-eval'.
export {
  compile,
  lintSchema,
  SchemaError,
  warningMessage,
  WARNING_CODE,
  jsonEqual,
  codePointLength,
  lengthBound,
  minimumBound,
  type CompiledSchema,
  type CompileOptions,
  type LintIssue,
  type SchemaWarning,
  type Violation,
} from './validator/index.js';
export { MapProvider, type ProviderOptions } from './providers/map-provider.js';
export { HttpProvider, type HttpProviderOptions } from './providers/http-provider.js';
export type { AsyncProvider, Provider, SchemaAnswer } from './providers/provider.js';
export { RegistryError, type RegistryErrorKind } from './registry/errors.js';
// The guard's whole surface, as src/index.ts lists it name by name (test/package/browser-entry.e2e.test.ts
// compares the two entries' exports).
export * from './guard/index.js';
