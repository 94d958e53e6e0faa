import { generateCsharp } from './csharp.js';
import { generateTypes, type TypesEntry } from './generate.js';
import { generateGo } from './go.js';
import { generateJava } from './java.js';
import type { Lang } from './languages.js';
import { generatePhp } from './php.js';
import { generatePython } from './python.js';

/** Each language's generator: the registry's entries, in manifest order, to one source file. */
export const GENERATORS: { readonly [L in Lang]: (entries: readonly TypesEntry[]) => string } = {
  ts: generateTypes,
  go: generateGo,
  python: generatePython,
  java: generateJava,
  csharp: generateCsharp,
  php: generatePhp,
};
