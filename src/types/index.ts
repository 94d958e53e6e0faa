// `bqschema types`: TypeScript types for a registry's message data. Used by the CLI only.
export { generateTypes, schemaType, TYPES_HEADER, type TypesEntry } from './generate.js';
export { baseTypeName, typeNames } from './names.js';
export { docBlock, docText } from './text.js';
export { generateGo, goString } from './go.js';
export { generatePython, pyString, pyValue } from './python.js';
export { generateJava, javaString } from './java.js';
export { generatePhp, phpString } from './php.js';
export { generateCsharp, csString } from './csharp.js';
