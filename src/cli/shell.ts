import { shellWord } from '../validate/diagnose.js';

/** What a command that writes a file was given: what its `--check` hint repeats. */
export interface RerunOptions {
  lang?: string;
  registry?: string;
  allowOutsidePaths?: boolean;
  output: string;
}

/**
 * The command that writes the file `--check` compared, as it was run (its `--lang` unless the
 * default, its `--registry` and `--allow-outside-paths` when given, `-o`), each word quoted for the
 * shell: running it writes what `--check` expected.
 */
export function rerunCommand(command: string, options: RerunOptions, defaultLang?: string): string {
  const words = ['bqschema', command];
  if (options.lang !== undefined && options.lang !== defaultLang) words.push('--lang', options.lang);
  if (options.registry !== undefined) words.push('--registry', options.registry);
  if (options.allowOutsidePaths) words.push('--allow-outside-paths');
  words.push('-o', options.output);
  return words.map(shellWord).join(' ');
}
