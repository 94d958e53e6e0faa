// `bqschema types`: TypeScript types for a registry's message data. Used by the CLI only.
export { generateTypes, schemaType, TYPES_HEADER, type TypesEntry } from './generate.js';
export { baseTypeName, typeNames, RESERVED_NAMES } from './names.js';
export { docBlock, docText, propertyKey, stringLiteral } from './text.js';
export { generateGo, goComment, goIdent, goString, GO_HEADER } from './go.js';
export { generatePython, pyComment, pyString, pyValue, PYTHON_HEADER } from './python.js';
export { generateJava, javaComment, javaString, JAVA_HEADER } from './java.js';
export { generatePhp, phpComment, phpString, PHP_HEADER } from './php.js';
export { generateCsharp, csComment, csString, CSHARP_HEADER } from './csharp.js';
