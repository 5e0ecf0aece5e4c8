// From a runner entry of satlution.yaml to a Runner. The CLI and any other front end resolve stage
// runners through here, so `stages.<s>.runner` and `--runner NAME` mean the same thing everywhere.
import type { RunnerConfig } from '../config/schema';
import { localRunner } from './local';
import type { Runner } from './runner';
import { sshRunner } from './sshRunner';

export interface RunnerEnv {
  /** dist/worker.js on this machine (remote runners copy it). */
  workerFile: string;
  /** Extra ssh options, e.g. ['-F', file]; the user's ~/.ssh/config applies without them. */
  sshArgs?: readonly string[];
}

export function makeRunner(cfg: RunnerConfig, env: RunnerEnv): Runner {
  switch (cfg.kind) {
    case 'local':
      return localRunner(cfg.name);
    case 'ssh':
      return sshRunner({ config: cfg, workerFile: env.workerFile, ...(env.sshArgs ? { sshArgs: env.sshArgs } : {}) });
    case 'slurm':
      throw new Error(`runner ${cfg.name} is a slurm runner; this version runs evaluations on local and ssh runners only`);
  }
  return cfg satisfies never;
}
