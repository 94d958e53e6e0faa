export * from './validator/index.js';
