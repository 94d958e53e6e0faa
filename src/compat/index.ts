export { compareSchemas } from './compare.js';
export type { Change, CompatMode, CompatOptions, CompatResult } from './compare.js';
export { RULES } from './rules.js';
export type { Breaks, CompatRule } from './rules.js';
export {
  compareRegistries, comparePair, malformedKeywords, nextUrn, remedyText, breakingFirst,
  type UrnReport, type UrnStatus, type Remedy, type SchemaProblem, type PairResult,
} from './registry.js';
