import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository root: virtual files live here, so `../src/…` imports resolve to the real sources. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2022.d.ts'],
  types: [],
  skipLibCheck: true,
  noUnusedLocals: false,
};

// Library and source files parse once per process; only the virtual files are new per program.
const parsed = new Map<string, ts.SourceFile>();

export interface Diagnostic {
  file: string;
  /** 1-based. */
  line: number;
  message: string;
}

/**
 * Type-checks virtual files (name relative to the repository root → text) in one program, the
 * way `tsc --strict` would, and returns every diagnostic in them.
 */
export function typeCheck(files: Record<string, string>): Diagnostic[] {
  const virtual = new Map(Object.entries(files).map(([name, text]) => [resolve(ROOT, name), text]));
  const host = ts.createCompilerHost(OPTIONS);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (f) => virtual.has(resolve(f)) || fileExists(f);
  host.readFile = (f) => virtual.get(resolve(f)) ?? readFile(f);
  host.getSourceFile = (f, language) => {
    const text = virtual.get(resolve(f));
    if (text !== undefined) return ts.createSourceFile(f, text, language, true);
    let sf = parsed.get(f);
    if (sf === undefined) {
      sf = getSourceFile(f, language);
      if (sf !== undefined) parsed.set(f, sf);
    }
    return sf;
  };
  const program = ts.createProgram([...virtual.keys()], OPTIONS, host);
  const out: Diagnostic[] = [];
  for (const name of virtual.keys()) {
    const sf = program.getSourceFile(name)!;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line + 1;
      out.push({ file: name, line, message: ts.flattenDiagnosticMessageText(d.messageText, ' ') });
    }
  }
  return out;
}

/** A JSON value as a TypeScript expression on one line (U+2028/U+2029 would start a new line for TypeScript). */
export function literal(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
