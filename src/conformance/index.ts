// `bqschema/conformance`: the kit any Provider (and, through `bqschema conformance --impl`, any SDK)
// must pass. Not loaded by the main entry.
export {
  providerScenarios,
  runProviderSuite,
  ConformanceError,
  SCENARIOS,
  type ProviderCapabilities,
  type ProviderFactory,
  type ProviderFixture,
  type ProviderHandle,
  type ProviderScenario,
  type ProviderSuiteOptions,
  type ProviderSuiteReport,
} from './provider-suite.js';
