// The CLI's implementations of the core's ports: messages to stderr (stdout stays for results, so
// `--json` output can be piped), and questions answered by flags or a terminal prompt.
import * as readline from 'node:readline/promises';
import type { Approver, Logger } from '../core/ports';

export function terminalLogger(verbose: boolean): Logger {
  const w = (prefix: string) => (m: string) => process.stderr.write(`${prefix}${m}\n`);
  return { info: w(''), warn: w('warning: '), error: w('error: '), debug: verbose ? w('debug: ') : () => {} };
}

/** `--yes` answers yes; otherwise a terminal is asked, and with no terminal the default applies. */
export function terminalApprover(opts: { yes: boolean; defaultAnswer: boolean; hint?: string }): Approver {
  return {
    async confirm(question, detail) {
      if (opts.yes) return true;
      if (!process.stdin.isTTY) {
        process.stderr.write(`${question} ${opts.defaultAnswer ? 'yes' : 'no'} (no terminal to ask; ${opts.hint ?? 'pass --yes'})\n`);
        return opts.defaultAnswer;
      }
      const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
      try {
        if (detail) process.stderr.write(`${detail}\n`);
        const a = (await rl.question(`${question} [${opts.defaultAnswer ? 'Y/n' : 'y/N'}] `)).trim().toLowerCase();
        return a === '' ? opts.defaultAnswer : a.startsWith('y');
      } finally {
        rl.close();
      }
    },
  };
}

/** Red on a terminal (for warnings shown with a verdict); plain on a pipe or a file, or when NO_COLOR is set. */
export function red(text: string, stream: NodeJS.WriteStream = process.stdout): string {
  return stream.isTTY && !process.env.NO_COLOR ? `\x1b[31m${text}\x1b[0m` : text;
}
