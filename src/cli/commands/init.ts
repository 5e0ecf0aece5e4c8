import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { initWorkspace } from '../../core/workspace/initWorkspace';
import { isGitUrl, parseSeedArg } from '../../core/workspace/seeds';
import { terminalApprover, terminalLogger } from '../terminal';
import { UsageError } from '../exit';

export const INIT_HELP = `satlution init [--dir D] --seed NAME=PATH_OR_GIT ... [--primary NAME] [--bench NAME=DIR ...]
                [--yes | --no-generate]

Creates a SATLUTION workspace in D (default: the current directory): imports each seed into
seeds/NAME/ (read-only baseline), copies the primary seed (the first unless --primary) to
SATLUTION_0/, copies the default rulebase to .rules/, creates benchmarks/{smoke,verify,perf}/ and
writes satlution.yaml. A git seed may name a ref: --seed kissat=https://host/kissat.git#rel-4.0.2.
Seeds without starexec_build / bin/starexec_run_default get generated ones (and you are told);
--no-generate leaves them out.`;

export async function initCommand(argv: string[], rulesDir: string): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dir: { type: 'string', default: '.' },
      seed: { type: 'string', multiple: true, default: [] },
      primary: { type: 'string' },
      bench: { type: 'string', multiple: true, default: [] },
      yes: { type: 'boolean', short: 'y', default: false },
      'no-generate': { type: 'boolean', default: false },
      verbose: { type: 'boolean', short: 'v', default: false },
    },
    strict: true,
  });
  if (values.seed.length === 0) throw new UsageError('init needs at least one --seed NAME=PATH_OR_GIT_URL\n\n' + INIT_HELP);
  if (values.yes && values['no-generate']) throw new UsageError('--yes and --no-generate contradict each other');
  const benchmarks: Record<string, string> = {};
  for (const b of values.bench) {
    const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)=(.+)$/.exec(b);
    if (!m) throw new UsageError(`--bench expects NAME=DIR, got "${b}"`);
    benchmarks[m[1]!] = m[2]!;
  }
  const log = terminalLogger(values.verbose);
  const generate = !values['no-generate'];
  const r = await initWorkspace({
    dir: path.resolve(values.dir),
    // Relative seed paths mean relative to where the command runs, not to --dir.
    seeds: values.seed.map(parseSeedArg).map((s) => (isGitUrl(s.source) ? s : { ...s, source: path.resolve(s.source) })),
    ...(values.primary ? { primary: values.primary } : {}),
    benchmarks,
    defaultRulesDir: rulesDir,
    approver: generate ? terminalApprover({ yes: values.yes, defaultAnswer: true, hint: 'use --yes or --no-generate' }) : { confirm: async () => false },
    log,
  });
  process.stdout.write(
    [
      `Initialized ${path.dirname(r.configFile)}`,
      ...r.seeds.map((s) => `  seed ${s.name}: ${s.files} files from ${s.source}${s.commit ? ` @ ${s.commit.slice(0, 12)}` : ''}`),
      `  champion: ${path.basename(r.candidateDir)}`,
      ...(r.generated.length ? [`  generated (review them): ${r.generated.join(', ')}`] : []),
      ...(r.checkpoint ? [`  git checkpoint: ${r.checkpoint.slice(0, 12)} on refs/satlution/checkpoints`] : []),
      'Next: put CNFs into benchmarks/smoke, verify and perf (with meta.csv), then `satlution status`.',
    ].join('\n') + '\n',
  );
  return 0;
}
