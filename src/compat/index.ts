export { compareSchemas } from './compare.js';
export type { Change, CompatMode, CompatOptions, CompatResult } from './compare.js';
export { RULES, isRuleId, listRules, rulesMarkdown } from './rules.js';
export type { Breaks, CompatPolicy, CompatRule, RuleId } from './rules.js';
export { assessChange, rolloutOrder } from './rollout.js';
export type { Assessment, Rollout, RolloutOrder } from './rollout.js';
export { previewPayload, previewWitness } from './witness.js';
export type { Witness, WitnessReason } from './witness.js';
export { COMPAT_LEVELS, COMPAT_POLICIES, CompatNameError, parseCompatLevel, parseCompatPolicy } from './levels.js';
export type { CompatLevel } from './levels.js';
export { ExceptionsError, applyExceptions, exceptionPath, parseExceptions, schemaFingerprint } from './exceptions.js';
export type { ApplyOptions, CompatException, ExceptionNotice, ExceptionsOutcome } from './exceptions.js';
export {
  compareRegistries, comparePair, malformedKeywords, unknownKeywords, nextUrn, remedyText, breakingFirst,
  type UrnReport, type UrnStatus, type Remedy, type SchemaProblem, type PairResult,
} from './registry.js';
export {
  CORPUS_EXAMPLES, DEFAULT_EXCEPTIONS, corpusSentence, corpusWhere, exceptedText, judgeCorpus, readExceptions, weighExceptions,
  type CorpusDocument, type CorpusRejection, type CorpusReport, type CorpusTarget, type CorpusUrn,
  type ExceptionsState, type LoadedExceptions, type PositionOf,
} from './evidence.js';
