// The library entry: validator, providers and the runtime guard. It loads no CLI dependency.
export * from './validator/index.js';
export * from './providers/index.js';
export * from './guard/index.js';
