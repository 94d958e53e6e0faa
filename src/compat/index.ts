export { compareSchemas } from './compare.js';
export type { Change, CompatMode,    } from './compare.js';
export { RULES, isRuleId, listRules, rulesMarkdown } from './rules.js';
export type {  CompatPolicy, CompatRule, RuleId } from './rules.js';
export { assessChange, rolloutOrder } from './rollout.js';
;
export { previewPayload, previewWitness } from './witness.js';
;
export { COMPAT_LEVELS,  CompatNameError, parseCompatLevel, parseCompatPolicy } from './levels.js';
export type { CompatLevel } from './levels.js';
export { ExceptionsError, applyExceptions, exceptionPath, parseExceptions, schemaFingerprint } from './exceptions.js';
export type {  CompatException,   } from './exceptions.js';
export {
  compareRegistries, comparePair,  unknownKeywords, nextUrn, remedyText, 
  type UrnReport,   type SchemaProblem, 
} from './registry.js';
export {
   DEFAULT_EXCEPTIONS,     readExceptions, 
  type CorpusDocument,    
   type LoadedExceptions, type PositionOf,
} from './evidence.js';
