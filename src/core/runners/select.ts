// From a runner entry of satlution.yaml to a Runner. The CLI, the extension and the cycle engine
// resolve stage runners through here, so `stages.<s>.runner` and `--runner NAME` mean the same
// thing everywhere.
import * as fs from 'node:fs';
import type { Config, RunnerConfig } from '../config/schema';
import { localRunner } from './local';
import type { Runner } from './runner';
import { slurmRunner } from './slurm/slurmRunner';
import { sshRunner } from './sshRunner';

export interface RunnerEnv {
  /** dist/worker.js on this machine (remote runners copy it). */
  workerFile: string;
  /** Extra ssh options, e.g. ['-F', file]; the user's ~/.ssh/config applies without them. */
  sshArgs?: readonly string[];
}

/** The environment's ssh options: SATLUTION_SSH_CONFIG=FILE means `ssh -F FILE`. */
export function sshArgsFromEnv(env: NodeJS.ProcessEnv = process.env): readonly string[] | undefined {
  return env.SATLUTION_SSH_CONFIG ? ['-F', env.SATLUTION_SSH_CONFIG] : undefined;
}

/** A runner from its entry; `scratchDir` (evaluation.scratch_dir) is where a local runner keeps its runs' proofs. */
export function makeRunner(cfg: RunnerConfig, env: RunnerEnv, scratchDir?: string): Runner {
  const ssh = env.sshArgs ? { sshArgs: env.sshArgs } : {};
  switch (cfg.kind) {
    case 'local':
      return localRunner(cfg.name, scratchDir ? { scratchDir } : {});
    case 'ssh':
      return sshRunner({ config: cfg, workerFile: env.workerFile, ...ssh });
    case 'slurm':
      return slurmRunner({ config: cfg, workerFile: env.workerFile, ...ssh });
  }
  return cfg satisfies never;
}

export class UnknownRunnerError extends Error {
  override name = 'UnknownRunnerError';
}

/** The runners the stages name, each made once; an unknown name or a missing worker bundle is an error up front. */
export function stageRunners(config: Config, names: readonly string[], env: RunnerEnv): (name: string) => Runner {
  const made = new Map<string, Runner>();
  for (const name of new Set(names)) {
    const cfg = config.runners.find((r) => r.name === name);
    if (!cfg) throw new UnknownRunnerError(`runner ${name}: no such runner in satlution.yaml (known: ${config.runners.map((r) => r.name).join(', ')})`);
    if (cfg.kind !== 'local' && !fs.existsSync(env.workerFile))
      throw new UnknownRunnerError(`runner ${name} needs the worker bundle ${env.workerFile}: build it (node esbuild.mjs)`);
    made.set(name, makeRunner(cfg, env, config.evaluation.scratch_dir));
  }
  return (name) => {
    const r = made.get(name);
    if (!r) throw new UnknownRunnerError(`runner ${name} was not prepared for this evaluation`);
    return r;
  };
}
