import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load';
import { checkRunnerHealth, type HealthFinding } from '../../core/runners/health';
import { findWorkspace } from '../../core/workspace/snapshot';
import { EXIT, UsageError } from '../exit';
import { runnerEnv } from '../runnerEnv';

export const RUNNERS_HELP = `satlution runners [NAME ...] [--dir D] [--json]

Checks the runners of satlution.yaml (all, or those named) where they run: Node.js for the worker,
drat-trim when stages check proofs, cores and disk; for ssh runners the login, for slurm runners
sbatch/sinfo, the partition, accounting and jobs left queued by an earlier run; and for every runner how
its runs' CPU time is measured and their memory bounded (run there by the worker), or what to do to get
CPU time where it is missing. Each problem says how to fix it. Exit: 0 all usable, 1 a runner has an
error, 2 bad usage.`;

const MARK: Record<HealthFinding['level'], string> = { ok: '✓', warning: '!', error: '✗' };

export async function runnersCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { dir: { type: 'string', default: '.' }, json: { type: 'boolean', default: false } },
    strict: true,
  });
  const ws = await findWorkspace(values.dir);
  if (!ws) throw new UsageError(`no satlution.yaml in ${values.dir} or above; create a workspace with \`satlution init\``);
  const config = await loadConfig(ws);
  const unknown = positionals.filter((n) => !config.runners.some((r) => r.name === n));
  if (unknown.length) throw new UsageError(`no runner ${unknown.join(', ')} (known: ${config.runners.map((r) => r.name).join(', ')})`);
  const env = runnerEnv();
  const report: Record<string, HealthFinding[]> = {};
  for (const r of config.runners.filter((x) => !positionals.length || positionals.includes(x.name))) {
    report[r.name] = await checkRunnerHealth(r, config, ws, { workerFile: env.workerFile, ...(env.sshArgs ? { sshArgs: env.sshArgs } : {}) });
    if (!values.json) {
      process.stdout.write(`${r.name} (${r.kind})\n`);
      for (const f of report[r.name]!) process.stdout.write(`  ${MARK[f.level]} ${f.check.padEnd(12)} ${f.detail}\n`);
    }
  }
  if (values.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  return Object.values(report).some((fs) => fs.some((f) => f.level === 'error')) ? EXIT.gateFailed : EXIT.ok;
}
