// Running objective functions: pure JavaScript over a frozen per-instance results table, in a
// separate Node process (a memory cap, killed after a wall-clock limit) confined like a solver run
// (isolation/: no files but Node's own, no network, a cleared environment), and there in a fresh VM
// context without require, process or code generation, with a per-call time limit. An objective
// that throws, loops, returns a non-number or blows up yields no score; it never takes the caller down.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { confine } from '../isolation/confinedCommand';
import { scriptConfinement } from '../isolation/confinement';
import { DEFAULT_ISOLATION, type IsolationSettings } from '../isolation/settings';

/** What an objective sees for one candidate: its perf results and the seed's (the baseline). */
export interface ObjectiveInput {
  candidate: string;
  timeout_s: number;
  instances: readonly {
    instance: string;
    family: string | null;
    expected: string | null;
    answer: string | null;
    status: string;
    time_s: number;
    mem_mb: number | null;
  }[];
  baseline: ObjectiveInput['instances'];
}

const CHILD = String.raw`
const vm = require('node:vm');
let raw = '';
process.stdin.setEncoding('utf8').on('data', (d) => (raw += d)).on('end', () => {
  const { objectives, inputs, callMs } = JSON.parse(raw);
  const freeze = (o) => { if (o && typeof o === 'object') { Object.freeze(o); for (const v of Object.values(o)) freeze(v); } return o; };
  const out = [];
  for (const obj of objectives) {
    const row = [];
    let fn = null;
    let error = null;
    try {
      const ctx = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false } });
      vm.runInContext('globalThis.Math = Math; globalThis.Number = Number; globalThis.Array = Array; globalThis.Object = Object; globalThis.JSON = JSON; globalThis.isFinite = isFinite;', ctx, { timeout: callMs });
      fn = vm.runInContext('(' + obj.code + ')', ctx, { timeout: callMs });
      if (typeof fn !== 'function') throw new Error('the code is not a function');
      for (const input of inputs) {
        try {
          // The data is parsed inside the context (its objects belong there) and the call itself runs
          // in runInContext, so the per-call time limit applies to the objective's own code.
          ctx.__json = JSON.stringify(input);
          freeze(vm.runInContext('globalThis.__d = JSON.parse(__json)', ctx, { timeout: callMs }));
          ctx.__f = fn;
          const v = vm.runInContext('__f(__d)', ctx, { timeout: callMs });
          row.push(typeof v === 'number' && Number.isFinite(v) ? v : null);
        } catch (e) { row.push(null); error = error || String(e && e.message || e); }
      }
    } catch (e) { error = String(e && e.message || e); while (row.length < inputs.length) row.push(null); }
    out.push({ scores: row, error });
  }
  process.stdout.write(JSON.stringify(out));
});`;

const Output = z.array(z.object({ scores: z.array(z.number().nullable()), error: z.string().nullable() }));
export type ObjectiveRun = z.infer<typeof Output>[number];

export interface SandboxLimits {
  callMs?: number;
  totalMs?: number;
  memMb?: number;
  /** The workspace's isolation (`sandbox`); default: bubblewrap. */
  isolation?: IsolationSettings;
}

/** Scores of every objective (code: a JS function expression) on every input; null where it failed. Each objective runs in its own process, so one that blows up costs only itself. */
export async function runObjectives(codes: readonly string[], inputs: readonly ObjectiveInput[], o: SandboxLimits = {}): Promise<ObjectiveRun[]> {
  const out: ObjectiveRun[] = [];
  for (const code of codes) out.push((await runBatch([code], inputs, o))[0]!);
  return out;
}

async function runBatch(codes: readonly string[], inputs: readonly ObjectiveInput[], o: SandboxLimits): Promise<ObjectiveRun[]> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'satlution-objective-'));
  try {
    // Node's whole installation (its prefix) is all the process may read.
    const c = scriptConfinement({ programDirs: [path.dirname(path.dirname(process.execPath))], scratch });
    // Electron (a desktop VS Code's execPath) runs as plain Node only when told to.
    c.env.ELECTRON_RUN_AS_NODE = '1';
    const boxed = await confine(o.isolation ?? DEFAULT_ISOLATION, c, process.execPath, [`--max-old-space-size=${o.memMb ?? 256}`, '-e', CHILD]);
    return await spawnBatch(boxed, codes, inputs, o);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

function spawnBatch(
  boxed: Awaited<ReturnType<typeof confine>>,
  codes: readonly string[],
  inputs: readonly ObjectiveInput[],
  o: SandboxLimits,
): Promise<ObjectiveRun[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(boxed.cmd, boxed.args, { cwd: boxed.cwd, stdio: ['pipe', 'pipe', 'pipe'], env: boxed.env });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.totalMs ?? 30000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const p = Output.safeParse(
        (() => {
          try {
            return JSON.parse(out);
          } catch {
            return undefined;
          }
        })(),
      );
      if (p.success && p.data.length === codes.length) return resolve(p.data);
      // The whole batch died (memory, the wall-clock limit): every objective is reported failed.
      const why =
        signal === 'SIGKILL' ? `stopped after ${(o.totalMs ?? 30000) / 1000} s` : `exited with ${code ?? signal}: ${err.trim().split('\n').pop() ?? ''}`;
      resolve(codes.map(() => ({ scores: inputs.map(() => null), error: `the objective sandbox ${why}` })));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify({ objectives: codes.map((code) => ({ code })), inputs, callMs: o.callMs ?? 1000 }));
  });
}
