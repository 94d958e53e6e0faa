// ESLint (flat config): the recommended sets of ESLint and typescript-eslint, which catch mistakes
// rather than style (formatting is Prettier's: `npm run format:check`), plus the few rules below,
// each for a reason this project has. Run by `npm run lint`.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      '.bench-tmp/',
      // Generated: ajv standalone code (scripts/build-asyncapi-validator.js) and `bqschema types` output.
      'src/asyncapi/generated/',
      'examples/types/',
      // Data: vendored contract suites, fixtures and what the browser tests write.
      'test/vendor/',
      'test/fixtures/',
      'test/artifacts/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Own-property lookups only (product rule 5): `obj.hasOwnProperty(k)` reads whatever a
      // hostile `hasOwnProperty` key put there; use `hasOwn` / `Object.hasOwn`.
      'no-prototype-builtins': 'error',
      // `==` coerces; every comparison of input values must be exact. `== null` is the one idiom kept.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // An unused name is dead code or a mistake; `_`-prefixed ones are deliberate (a parameter kept
      // for its position, a rest sibling that drops a key).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Escaping what came from input means matching control characters on purpose (src/report/text.ts).
      'no-control-regex': 'off',
      // A user sees an error as one line (src/cli/errors.ts); a chained `cause` is never shown, and
      // where a caught error's words matter they are put in the new message.
      'preserve-caught-error': 'off',
      // Style: a regex that spells out its spaces matches the text it is written against.
      'no-regex-spaces': 'off',
    },
  },
  {
    // Code from strings only where the validator generates it and where it probes whether it may
    // (compile.ts, interpret.ts: each use says why in its disable comment): the library runs under a
    // CSP without 'unsafe-eval' (docs/library.md). Tests and benchmarks run generated code on purpose.
    files: ['src/**'],
    rules: { 'no-eval': 'error', 'no-implied-eval': 'error', 'no-new-func': 'error' },
  },
  {
    // bin/ is CommonJS (bin/package.json): require() is how it loads the bundle.
    files: ['bin/**/*.js', '**/*.cjs', '**/*.cts'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests and the scripts they run in browsers use the DOM's globals too.
    files: ['test/**/*.ts'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      // Tests read documents of any shape (SARIF, AsyncAPI, JSON output) and poke at them.
      '@typescript-eslint/no-explicit-any': 'off',
      // Literals past double precision (1e400) are how tests write Infinity as a schema would.
      'no-loss-of-precision': 'off',
    },
  },
);
