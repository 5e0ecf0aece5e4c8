#!/usr/bin/env node
// `satlution`: the headless face of the engine (same core as the VS Code extension).
import * as path from 'node:path';
import { ConfigError } from '../core/config/load';
import { configJsonSchema } from '../core/config/schema';
import { EXIT, UsageError } from './exit';
import { INIT_HELP, initCommand } from './commands/init';
import { STATUS_HELP, statusCommand } from './commands/status';
import { NEW_HELP, newCommand } from './commands/new';
import { CYCLE_HELP, cycleCommand } from './commands/cycle';
import { EVAL_HELP, evalCommand } from './commands/eval';
import { COMPARE_HELP, compareCommand } from './commands/compare';
import { CALIBRATE_HELP, calibrateCommand } from './commands/calibrate';
import { GENERATE_HELP, generateCommand } from './commands/generate';
import { BENCHMARKS_HELP, benchmarksCommand } from './commands/benchmarks';
import { RULES_HELP, rulesCommand } from './commands/rules';
import { RUNNERS_HELP, runnersCommand } from './commands/runners';
import { EXPORT_HELP, exportCommand } from './commands/export';
import { OBJECTIVES_HELP, objectivesCommand } from './commands/objectives';
import { ABANDON_HELP, abandonCommand } from './commands/abandon';
import { RESTORE_CONFIG_HELP, restoreConfigCommand } from './commands/restoreConfig';

const HELP = `satlution — evolve SAT solvers with LLM agents under correctness gates

Usage:
  ${INIT_HELP.split('\n')[0]}
  ${STATUS_HELP.split('\n')[0]}
  ${NEW_HELP.split('\n')[0]}
  ${CYCLE_HELP.split('\n')[0]}
  ${ABANDON_HELP.split('\n')[0]}
  ${EVAL_HELP.split('\n').slice(0, 3).join('\n  ')}
  ${COMPARE_HELP.split('\n')[0]}
  ${CALIBRATE_HELP.split('\n')[0]}
  ${RULES_HELP.split('\n')[0]}
  ${RUNNERS_HELP.split('\n')[0]}
  ${EXPORT_HELP.split('\n')[0]}
  ${OBJECTIVES_HELP.split('\n')[0]}
  ${RESTORE_CONFIG_HELP.split('\n')[0]}
  ${GENERATE_HELP.split('\n').slice(0, 2).join('\n  ')}
  ${BENCHMARKS_HELP.split('\n')[0]}
  ${BENCHMARKS_HELP.split('\n')[2]}
  satlution schema               print the JSON Schema of satlution.yaml
  satlution help [COMMAND]

Exit codes: 0 success, 1 a candidate failed a gate, 2 bad usage, config or input, 130 interrupted.`;

const COMMANDS: Record<string, { help: string; run: (argv: string[]) => Promise<number> }> = {
  init: { help: INIT_HELP, run: (a) => initCommand(a, defaultRulesDir()) },
  status: { help: STATUS_HELP, run: statusCommand },
  new: { help: NEW_HELP, run: newCommand },
  cycle: { help: CYCLE_HELP, run: cycleCommand },
  abandon: { help: ABANDON_HELP, run: abandonCommand },
  'restore-config': { help: RESTORE_CONFIG_HELP, run: restoreConfigCommand },
  eval: { help: EVAL_HELP, run: evalCommand },
  compare: { help: COMPARE_HELP, run: compareCommand },
  calibrate: { help: CALIBRATE_HELP, run: calibrateCommand },
  generate: { help: GENERATE_HELP, run: generateCommand },
  benchmarks: { help: BENCHMARKS_HELP, run: benchmarksCommand },
  rules: { help: RULES_HELP, run: rulesCommand },
  runners: { help: RUNNERS_HELP, run: runnersCommand },
  export: { help: EXPORT_HELP, run: exportCommand },
  objectives: { help: OBJECTIVES_HELP, run: objectivesCommand },
  schema: {
    help: 'satlution schema\n\nPrints the JSON Schema of satlution.yaml (for editors and other tools).',
    run: async () => {
      process.stdout.write(JSON.stringify(configJsonSchema(), null, 2) + '\n');
      return EXIT.ok;
    },
  },
};

/** The rulebase shipped beside the bundle (dist/cli.js -> rules/). */
function defaultRulesDir(): string {
  return process.env.SATLUTION_RULES_DIR ?? path.join(__dirname, '..', 'rules');
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === 'help' || cmd === '--help' || cmd === '-h') {
    const sub = rest[0] && COMMANDS[rest[0]];
    process.stdout.write((sub ? sub.help : HELP) + '\n');
    return cmd ? EXIT.ok : EXIT.usage;
  }
  if (cmd === '--version') {
    process.stdout.write(`${process.env.SATLUTION_VERSION ?? 'dev'}\n`);
    return EXIT.ok;
  }
  const c = COMMANDS[cmd];
  if (!c) {
    process.stderr.write(`satlution: unknown command "${cmd}"\n\n${HELP}\n`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(c.help + '\n');
    return EXIT.ok;
  }
  try {
    return await c.run(rest);
  } catch (e) {
    const err = e as Error & { code?: string };
    const expected = e instanceof ConfigError || e instanceof UsageError || err.code?.startsWith('ERR_PARSE_ARGS');
    const more = expected ? '' : process.env.SATLUTION_DEBUG ? `\n${err.stack ?? ''}` : ' (SATLUTION_DEBUG=1 shows where)';
    process.stderr.write(`satlution ${cmd}: ${err.message}${more}\n`);
    return EXIT.usage;
  }
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
