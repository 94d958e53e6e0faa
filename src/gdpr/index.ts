export { summaryNotice } from './inventory.js';
export { sensitivePaths } from '../validator/sensitive-paths.js';
export { audit, type UnmarkedField } from './audit.js';
export { isPiiName, nameTokens, parsePiiPattern, piiMatcher, type PiiMatcher } from './pii.js';
export { mask } from '../validator/mask.js';
export { schemaPointer } from '../validator/sensitive-paths.js';
