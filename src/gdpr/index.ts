export { summaryNotice, type UrnInventory } from './inventory.js';
export { sensitivePaths, type SensitivePath } from '../validator/sensitive-paths.js';
export { audit, type UnmarkedField } from './audit.js';
export { isPiiName, nameTokens, parsePiiPattern, piiMatcher, type PiiMatcher } from './pii.js';
export { mask } from '../validator/mask.js';
export { isReviewedNotSensitive, schemaPointer, sensitiveCategory } from '../validator/sensitive-paths.js';
