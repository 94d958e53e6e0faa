import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// The wire-envelope types are a compile-time promise: tsc must accept test/guard/envelope-types.ts,
// including each `@ts-expect-error` (an unused one is an error too, so a too-loose type fails here).
// Its own diagnostics (with the options' and the global ones): src/ is checked whole by tsc (npm run
// build), and checking it again here doubled the time.
it('test/guard/envelope-types.ts type-checks with the project options', () => {
  const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile).config;
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const file = path.join(root, 'test', 'guard', 'envelope-types.ts');
  const program = ts.createProgram([file], { ...options, noEmit: true, rootDir: root });
  const messages = ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => {
    const where =
      d.file && d.start !== undefined
        ? `${path.relative(root, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}`
        : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  expect(messages).toEqual([]);
});
