export { sensitivePaths, summaryNotice, type SensitivePath } from './inventory.js';
export { audit, type UnmarkedField } from './audit.js';
export { isPiiName, nameTokens, parsePiiPattern, piiMatcher, type PiiMatcher } from './pii.js';
export { mask } from './mask.js';
export { schemaPointer, sensitiveCategory } from './paths.js';
