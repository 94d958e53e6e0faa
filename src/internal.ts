// Every name of the validator, providers and guard layers, documented or not, for the CLI and the
// other layers. Not a package export: library users import src/index.ts (the documented surface).
export * from './validator/index.js';
export * from './providers/index.js';
export * from './guard/index.js';
