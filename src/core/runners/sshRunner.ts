// The SSH runner: checks the host (Node, drat-trim), syncs the worker, the built candidate and the
// instances (syncToRemote), then keeps N runs going on the host, one short ssh call per instance over
// the shared control connection. Each run's result is also kept in the remote workdir under its key,
// so a connection that drops while runs are in flight loses nothing: the next attempt waits for a run
// still going, or takes its stored result, instead of running it again.
import type { z } from 'zod';
import type { SshRunnerSchema } from '../config/schema';
import { InstanceResult } from '../run/result';
import { runPool } from './pool';
import type { RunBatch, Runner, RunTask } from './runner';
import { remoteDir, sshError, sshExec, type SshTarget } from './ssh';
import { nodeProblem, probeRemote } from './sshProbe';
import { syncToRemote, type Synced } from './sshSync';
import { sshDir } from './slurm/shared';
import { asTaskResult, checkArgs, CPU_SLOT_ENV, remoteKeptProof, workerArgs } from './remoteWorker';
import { shJoin, shq } from './shellQuote';
import { HOLD_NAME, PROOFS_DIR } from '../run/keptProof';
import { remoteCancelScript, remoteRunScript } from './runMarker';
import { timeLimitMinutes } from './slurm/script';
import { requireSandbox } from './sandboxCheck';

export type SshRunnerConfig = z.infer<typeof SshRunnerSchema>;

export interface SshRunnerOptions {
  config: SshRunnerConfig;
  /** dist/worker.js on this machine. */
  workerFile: string;
  /** Extra ssh options (e.g. ['-F', file]); the user's ~/.ssh/config applies without them. */
  sshArgs?: readonly string[];
}

export function sshTarget(o: Pick<SshRunnerOptions, 'config' | 'sshArgs'>): SshTarget {
  return { host: o.config.host, ...(o.sshArgs ? { sshArgs: o.sshArgs } : {}) };
}

export function sshRunner(o: SshRunnerOptions): Runner {
  const t = sshTarget(o);
  const { host, workdir, node } = o.config;
  return {
    name: o.config.name,
    async run(batch, onResult) {
      if (batch.tasks.length === 0) return;
      const sig = batch.signal ? { signal: batch.signal } : {};
      const facts = await probeRemote(t, workdir, node, batch.signal);
      const bad = nodeProblem(facts, host, node);
      if (bad) throw new Error(bad);
      requireSandbox(batch.settings.isolation, facts.sandbox);
      if (batch.settings.checkProofs && !facts.dratTrim)
        throw new Error(
          `drat-trim is not installed on ${host}, and this stage checks UNSAT proofs: build it there (scripts/setup-sat-tools.sh) or put it on the PATH of non-interactive ssh sessions`,
        );
      if (o.config.build === 'remote') batch.onStatus?.(`building on ${host} (once per candidate)`);
      const synced = await syncToRemote(t, {
        workdir,
        workerFile: o.workerFile,
        solverDir: batch.settings.solverDir,
        solverHash: batch.solverHash,
        instances: batch.tasks.map((x) => ({ hash: x.instanceHash, file: x.cnf })),
        ...sig,
        ...(o.config.build === 'remote' ? { build: { timeoutS: batch.buildTimeoutS ?? 600, node: o.config.node, isolation: batch.settings.isolation } } : {}),
      });
      // Results kept on the host from an earlier attempt come back in one round trip, not one call each.
      const kept = await sshDir(t, workdir.replace(/^~\/?/, '') || '.').readMany(batch.tasks.map((x) => `results/${x.key}.json`));
      const todo: RunTask[] = [];
      for (const task of batch.tasks) {
        const text = kept.get(`results/${task.key}.json`);
        const r = text ? InstanceResult.safeParse(lastJson(text)) : undefined;
        if (r?.success) await onResult(task, asTaskResult(r.data, task));
        else todo.push(task);
      }
      const inFlight = new Set<string>();
      // Stop means stop on the host too: the worker ends its solver's process group on SIGTERM.
      const cancel = () => {
        const keys = [...inFlight];
        if (keys.length) void sshExec(t, remoteCancelScript(workdir, keys, runLimitS(batch)));
      };
      batch.signal?.addEventListener('abort', cancel, { once: true });
      try {
        await runPool(
          todo,
          o.config.jobs,
          async (task, slot) => {
            inFlight.add(task.key);
            try {
              const r = await sshExec(t, runScript(batch, task, synced, workdir, node, facts.dratTrim, { slot, slots: o.config.jobs }), sig);
              if (batch.signal?.aborted) return;
              if (r.code !== 0) throw sshError(host, r, `running ${task.name}`);
              let result: InstanceResult;
              try {
                result = parseResult(r.stdout, task, host);
              } catch (e) {
                // Do not keep what is not a result: the next attempt runs this instance again.
                await sshExec(t, `rm -f ${remoteDir(workdir)}/results/${task.key}.json`);
                throw e;
              }
              await onResult(task, result);
            } finally {
              inFlight.delete(task.key);
            }
          },
          batch.signal,
        );
      } finally {
        batch.signal?.removeEventListener('abort', cancel);
      }
    },
    async checkKept(batch, onResult) {
      if (batch.tasks.length === 0) return;
      const sig = batch.signal ? { signal: batch.signal } : {};
      const facts = await probeRemote(t, workdir, node, batch.signal);
      const bad = nodeProblem(facts, host, node);
      if (bad) throw new Error(bad);
      if (!facts.dratTrim)
        throw new Error(
          `drat-trim is not installed on ${host}, where the proofs of its runs are kept: build it there (scripts/setup-sat-tools.sh) or put it on the PATH of non-interactive ssh sessions`,
        );
      // The instances are there from the runs; a workdir emptied meanwhile gets them again.
      const synced = await syncToRemote(t, {
        workdir,
        workerFile: o.workerFile,
        instances: batch.tasks.map((x) => ({ hash: x.instanceHash, file: x.cnf })),
        ...sig,
      });
      batch.onStatus?.(`checking ${batch.tasks.length} kept proof${batch.tasks.length === 1 ? '' : 's'} on ${host}`);
      await runPool(
        batch.tasks,
        o.config.jobs,
        async (task) => {
          const args = checkArgs(batch, task, { cnf: synced.instance(task.instanceHash), dratTrim: facts.dratTrim });
          const r = await sshExec(t, `cd ${remoteDir(workdir)} || exit 3\n${shJoin([node, synced.worker, ...args])}`, sig);
          if (batch.signal?.aborted) return;
          if (r.code !== 0) throw sshError(host, r, `checking the kept proof of ${task.name}`);
          await onResult(
            task,
            parseResult(
              r.stdout,
              { name: task.name, family: task.result.family, expected: task.result.expected, expectedFrom: task.result.expected_from },
              host,
            ),
          );
        },
        batch.signal,
      );
      batch.signal?.throwIfAborted();
    },
    async release(hold, keys) {
      if (!HOLD_NAME.test(hold)) return;
      const paths = keys ? keys.map((k) => remoteKeptProof(hold, k)) : [`${PROOFS_DIR}/${hold}`];
      for (let i = 0; i < paths.length; i += 500) {
        const r = await sshExec(
          t,
          `cd ${remoteDir(workdir)} 2>/dev/null || exit 0\nrm -rf -- ${paths
            .slice(i, i + 500)
            .map(shq)
            .join(' ')}`,
        );
        if (r.code !== 0) throw sshError(host, r, `removing the proofs kept in ${hold}`);
      }
    },
  };
}

/** A run is surely over after Slurm's backstop for it: an older run marker is stale (runMarker.ts). */
const runLimitS = (batch: RunBatch) => timeLimitMinutes(batch.settings.timeoutS, batch.settings.checkProofs) * 60;

/** The remote side of one run: reuse a stored result, wait for a run still going, or start one (in its slot: the worker pins it to that slot's core, as the local runner does). */
function runScript(batch: RunBatch, task: RunTask, s: Synced, workdir: string, node: string, dratTrim: string, at: { slot: number; slots: number }): string {
  const worker = [node, s.worker, ...workerArgs(batch.settings, task, { solver: s.solver, cnf: s.instance(task.instanceHash), dratTrim })];
  return remoteRunScript({ workdir, key: task.key, worker, limitS: runLimitS(batch), env: { [CPU_SLOT_ENV]: `${at.slot}/${at.slots}` } });
}

function lastJson(text: string): unknown {
  try {
    return JSON.parse(text.trim().split('\n').pop() ?? '');
  } catch {
    return undefined;
  }
}

/** The worker's one line, checked: anything else is an error, never a made-up result. */
function parseResult(stdout: string, task: Pick<RunTask, 'name' | 'family' | 'expected' | 'expectedFrom'>, host: string): InstanceResult {
  const line = stdout.trim().split('\n').pop() ?? '';
  const json = lastJson(line);
  const p = InstanceResult.safeParse(json);
  if (!p.success)
    throw new Error(
      `the worker on ${host} did not return a result for ${task.name}: ${line ? `"${line.slice(0, 200)}"` : 'no output'}${json === undefined ? '' : ` (${p.error.issues[0]?.path.join('.')}: ${p.error.issues[0]?.message})`}`,
    );
  return asTaskResult(p.data, task);
}
