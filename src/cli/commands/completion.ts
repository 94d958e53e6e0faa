import type { Command, Option } from 'commander';
import { completionScript, SHELLS, type CompletionOption, type CompletionSpec, type Shell } from '../../completion/index.js';
import { UsageError } from '../errors.js';
import { printDocument } from '../output.js';

/*
 * completion: reads the program's commands and options (the program the command table builds, so a
 * new command or option completes with no edit here), writes the script with src/completion.
 */

/** What commander adds to every command and the program without listing it among their options. */
const HELP: CompletionOption = { flags: ['-h', '--help'], takesValue: false };

/** The values completion offers for an option's value (program.ts: its choices, or those its command checks). */
type Offered = (option: Option) => readonly string[] | undefined;

function optionOf(o: Option, offered: Offered): CompletionOption {
  const choices = offered(o);
  return {
    flags: [o.short, o.long].filter((f): f is string => f !== undefined),
    takesValue: o.required || o.optional,
    ...(choices === undefined ? {} : { choices }),
  };
}

/** The program as completion sees it: each command's options (hidden ones left out), and the program's own. */
function completionSpec(program: Command, offered: Offered): CompletionSpec {
  const visible = (options: readonly Option[]): CompletionOption[] => [
    ...options.filter((o) => !o.hidden).map((o) => optionOf(o, offered)),
    HELP,
  ];
  return {
    program: program.name(),
    commands: program.commands.map((c) => ({ name: c.name(), options: visible(c.options) })),
    options: visible(program.options),
  };
}

export async function run(shell: string | undefined, program: Command, offered: Offered): Promise<number> {
  const chosen = shell ?? SHELLS[0];
  if (!(SHELLS as readonly string[]).includes(chosen)) {
    throw new UsageError(`completion is written for ${SHELLS.join(' or ')}, not ${JSON.stringify(chosen)}: bqschema completion bash`);
  }
  return printDocument(completionScript(chosen as Shell, completionSpec(program, offered)));
}
