/*
 * `bqschema completion <shell>`: a shell completion script for the program as the command table
 * builds it (commands, each command's options, the values an option's choices allow). Pure: the
 * CLI reads the program's commands into a CompletionSpec, this writes the script's text.
 *
 * The script completes a command after `bqschema`, an option after `-`, and the value of an option
 * with choices (`--format <TAB>`); elsewhere it answers nothing, so the shell completes file names
 * (`complete -o default`): positional arguments and most option values are paths.
 */

/** An option as completion sees it: its spellings, whether it takes a value, and the values allowed. */
export interface CompletionOption {
  /** `-f`, `--format`: the short and long spellings. */
  flags: readonly string[];
  takesValue: boolean;
  /** The values an option with choices takes (commander's `.choices()`). */
  choices?: readonly string[];
}

interface CompletionCommand {
  name: string;
  options: readonly CompletionOption[];
}

export interface CompletionSpec {
  /** The program's name: `bqschema`. */
  program: string;
  commands: readonly CompletionCommand[];
  /** The options given before a command (`--version`, `--help`). */
  options: readonly CompletionOption[];
}

/** The shells a script is written for, the first the default. */
export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

/** A word as the shell reads it back unchanged: bare when it is safe, else single-quoted. */
function quote(word: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A shell function name from the program's: letters, digits and underscores. */
const functionName = (program: string): string => `_${program.replace(/[^A-Za-z0-9_]/g, '_')}`;

/** The words `compgen -W` offers, as one quoted argument. */
const wordList = (words: readonly string[]): string => quote(words.join(' '));

/** The `case "$prev"` arms of one command: an option with choices offers them; any other value option, files. */
function valueArms(options: readonly CompletionOption[], indent: string): string[] {
  const arms: string[] = [];
  const free: string[] = [];
  for (const o of options) {
    if (!o.takesValue) continue;
    if (o.choices !== undefined && o.choices.length > 0) {
      arms.push(`${indent}${o.flags.map(quote).join('|')}) COMPREPLY=($(compgen -W ${wordList(o.choices)} -- "$cur")); return ;;`);
    } else {
      free.push(...o.flags);
    }
  }
  // A value with no choices: a path or a free word; answering nothing lets the shell complete files.
  if (free.length > 0) arms.push(`${indent}${free.map(quote).join('|')}) return ;;`);
  return arms;
}

function bash(spec: CompletionSpec): string {
  const fn = functionName(spec.program);
  const first = [...spec.commands.map((c) => c.name), ...spec.options.flatMap((o) => o.flags)];
  const lines = [
    `# ${spec.program} completion for bash (and zsh through bashcompinit), written by \`${spec.program} completion\`.`,
    `${fn}() {`,
    '  local cur prev cmd i',
    '  cur="${COMP_WORDS[COMP_CWORD]}"',
    '  i=$((COMP_CWORD - 1))',
    '  prev="${COMP_WORDS[i]}"',
    // `--format=js`: bash splits the word at `=` (COMP_WORDBREAKS), so the option is two words back.
    '  if [[ "$cur" == "=" ]]; then cur=""; prev="${COMP_WORDS[i]}"; elif [[ "$prev" == "=" && $i -gt 0 ]]; then prev="${COMP_WORDS[i - 1]}"; fi',
    '  COMPREPLY=()',
    '  if [[ $COMP_CWORD -le 1 ]]; then',
    `    COMPREPLY=($(compgen -W ${wordList(first)} -- "$cur"))`,
    '    return',
    '  fi',
    '  cmd="${COMP_WORDS[1]}"',
    '  case "$cmd" in',
  ];
  for (const c of spec.commands) {
    const flags = c.options.flatMap((o) => o.flags.filter((f) => f.startsWith('--')));
    lines.push(`    ${quote(c.name)})`);
    const arms = valueArms(c.options, '        ');
    if (arms.length > 0) lines.push('      case "$prev" in', ...arms, '      esac');
    lines.push(`      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W ${wordList(flags)} -- "$cur")); fi`, '      ;;');
  }
  lines.push('  esac', '}', `complete -o default -F ${fn} ${quote(spec.program)}`, '');
  return lines.join('\n');
}

function zsh(spec: CompletionSpec): string {
  // zsh runs bash's completion functions through bashcompinit: one script, one behaviour.
  return [
    `#compdef ${spec.program}`,
    `# ${spec.program} completion for zsh, written by \`${spec.program} completion zsh\`.`,
    'autoload -U +X bashcompinit && bashcompinit',
    bash(spec),
  ].join('\n');
}

const WRITERS: Record<Shell, (spec: CompletionSpec) => string> = { bash, zsh };

/** The completion script for `shell`. */
export function completionScript(shell: Shell, spec: CompletionSpec): string {
  return WRITERS[shell](spec);
}
