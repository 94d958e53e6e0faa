export { sensitivePaths, type SensitivePath } from './inventory.js';
export { audit, parsePiiPattern, DEFAULT_PII_PATTERN, type UnmarkedField } from './audit.js';
export { mask } from './mask.js';
export { schemaPointer, sensitiveCategory } from './paths.js';
