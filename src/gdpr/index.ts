export { sensitivePaths, summaryNotice, type SensitivePath, type UrnInventory } from './inventory.js';
export { audit, type UnmarkedField } from './audit.js';
export { isPiiName, nameTokens, parsePiiPattern, piiMatcher, type PiiMatcher } from './pii.js';
export { mask } from './mask.js';
export { isReviewedNotSensitive, schemaPointer, sensitiveCategory } from './paths.js';
