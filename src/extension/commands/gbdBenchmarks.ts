// "SATLUTION: Fetch Benchmarks from GBD…" and "SATLUTION: Curate Benchmark Set…": the CLI's `benchmarks
// fetch` and `benchmarks curate` (core/benchmarks) with a query box, progress with cancel, the set in
// the Overview when done, and curate offered after a fetch.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { clockName, curateSet, type CurationDoc } from '../../core/benchmarks/curateSet';
import { FetchIncomplete, fetchLimits, fetchSet } from '../../core/benchmarks/fetchSet';
import { GbdCache, defaultGbdCacheDir } from '../../core/benchmarks/gbdCache';
import { writeValues } from '../../core/config/edit';
import { loadConfig } from '../../core/config/load';
import { BENCH_DIR, candidateDirName } from '../../core/layout';
import { extensionRunnerEnv } from '../extensionRunnerEnv';
import type { WorkspaceModel } from '../workspaceModel';

const SET_NAME = /^[A-Za-z0-9_-]+$/;

/** The command's arguments when called by another extension, a keybinding or a test: no input boxes then, and no offer to curate. */
export const FetchBenchmarksArgs = z.object({ query: z.string().min(1), set: z.string().regex(SET_NAME), server: z.string().url().optional() }).strict();

/** Curate's arguments, likewise. */
export const CurateBenchmarksArgs = z
  .object({
    from: z.string().min(1),
    budgetMinutes: z.number().positive(),
    timeoutS: z.number().positive(),
    heldoutShare: z.number().min(0).max(0.9).default(0.3),
    /** Families held out whole: names, or how many (chosen by their names' hashes). */
    heldoutFamilies: z.union([z.array(z.string().min(1)).min(1), z.number().int().positive()]).optional(),
    minS: z.number().nonnegative().optional(),
  })
  .strict();

/** What a fetch made, for a caller with arguments. */
export interface FetchSummary {
  set: string;
  instances: number;
  downloaded: number;
  fromCache: number;
}

/** Fetches a set: from the arguments, else asking for a GBD query and a set name (and then offering to curate it). */
export async function fetchBenchmarks(arg: unknown, model: WorkspaceModel, log: vscode.LogOutputChannel): Promise<FetchSummary | undefined> {
  const ws = model.workspaceRoot;
  if (!ws) return void vscode.window.showWarningMessage('SATLUTION: initialize a workspace first.');
  const given = arg === undefined ? undefined : FetchBenchmarksArgs.safeParse(arg);
  if (given && !given.success)
    return void vscode.window.showErrorMessage(`SATLUTION: Fetch Benchmarks got malformed arguments: ${given.error.issues[0]?.message ?? ''}`);
  const config = await loadConfig(ws).catch((e: Error) => void vscode.window.showErrorMessage(`SATLUTION: ${e.message.split('\n')[0]}`));
  if (!config) return;
  const server = given?.data.server ?? config.gbd.server;
  const query =
    given?.data.query ??
    (await vscode.window.showInputBox({
      title: `Fetch benchmarks from ${server}`,
      prompt: "A query in GBD's attribute language",
      placeHolder: 'track=main_2024 and result=unsat',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'a query, e.g. track=main_2024'),
    }));
  if (!query) return;
  const set =
    given?.data.set ??
    (await vscode.window.showInputBox({
      title: 'The benchmark set to make',
      prompt: `benchmarks/<name> in ${path.basename(ws)}`,
      value: /track\s*=\s*([A-Za-z0-9_-]+)/.exec(query)?.[1] ?? 'gbd',
      ignoreFocusOut: true,
      validateInput: (v) => (!SET_NAME.test(v) ? 'letters, digits, _ and -' : v in config.benchmarks ? `${v} is already a set of satlution.yaml` : undefined),
    }));
  if (!set) return;
  const cache = new GbdCache(config.gbd.cache ? path.resolve(ws, config.gbd.cache) : defaultGbdCacheDir());
  log.info(`benchmarks fetch "${query}" --set ${set} from ${server} (cache ${cache.dir})`);
  try {
    const out = await withCancel(`SATLUTION: fetching ${set}`, (signal, report) =>
      fetchSet({
        server,
        query,
        dir: path.join(ws, BENCH_DIR, set),
        cache,
        jobs: config.gbd.jobs,
        ...fetchLimits(config.gbd),
        signal,
        log: (line) => log.warn(line),
        onProgress: (p) => report(p.done / p.of, p.waiting ?? `${p.done}/${p.of} (${p.fromCache} from the cache), ${(p.bytes / 1e6).toFixed(1)} MB`),
      }),
    );
    await writeValues(ws, [{ path: ['benchmarks', set], value: `${BENCH_DIR}/${set}` }]);
    await model.refresh();
    const line = `${set}: ${out.instances} instances (${out.answers.sat} SAT, ${out.answers.unsat} UNSAT, ${out.answers.unknown} unknown), ${out.downloaded} downloaded, ${out.fromCache} from the cache, ${(out.bytes / 1e6).toFixed(1)} MB in ${out.seconds.toFixed(0)} s`;
    log.info(line);
    const curate = 'Curate…';
    const summary = { set, instances: out.instances, downloaded: out.downloaded, fromCache: out.fromCache };
    if (given) return (void vscode.window.showInformationMessage(`SATLUTION: fetched ${line}.`), summary);
    void vscode.window
      .showInformationMessage(`SATLUTION: fetched ${line}.`, curate)
      .then((a) => a === curate && vscode.commands.executeCommand('satlution.curateBenchmarks', { preset: set }));
    return summary;
  } catch (e) {
    const message = (e as Error).message;
    log.error(message);
    const show = 'Show Output';
    const why =
      e instanceof FetchIncomplete
        ? `${e.failures.length} instances could not be fetched; no set was made (the verified ones are cached: fetch again to retry)`
        : message.split('\n')[0]!;
    void vscode.window.showErrorMessage(`SATLUTION: ${why}`, show).then((a) => a === show && log.show());
    return undefined;
  }
}

/** Curates a set (from the arguments, else asking for the set, budget, timeout and held-out share): the champion runs it once, and the two sets are written. */
export async function curateBenchmarks(arg: unknown, model: WorkspaceModel, log: vscode.LogOutputChannel): Promise<CurationDoc | undefined> {
  const preset = z.object({ preset: z.string() }).safeParse(arg).data?.preset;
  const given = arg === undefined || preset !== undefined ? undefined : CurateBenchmarksArgs.safeParse(arg);
  if (given && !given.success)
    return void vscode.window.showErrorMessage(`SATLUTION: Curate Benchmark Set got malformed arguments: ${given.error.issues[0]?.message ?? ''}`);
  const ws = model.workspaceRoot;
  const champion = model.snapshot?.champion;
  if (!ws) return void vscode.window.showWarningMessage('SATLUTION: initialize a workspace first.');
  if (champion === null || champion === undefined)
    return void vscode.window.showWarningMessage('SATLUTION: evaluate the seed first: curating runs the champion over the set.');
  const config = await loadConfig(ws).catch((e: Error) => void vscode.window.showErrorMessage(`SATLUTION: ${e.message.split('\n')[0]}`));
  if (!config) return;
  const from =
    given?.data.from ??
    preset ??
    (await vscode.window.showQuickPick(Object.keys(config.benchmarks), { title: 'The benchmark set to curate', ignoreFocusOut: true }));
  if (!from) return;
  const number = (title: string, value: string, ok: (n: number) => boolean, hint: string) =>
    vscode.window
      .showInputBox({ title, value, ignoreFocusOut: true, validateInput: (v) => (ok(Number(v)) ? undefined : hint) })
      .then((v) => (v === undefined ? undefined : Number(v)));
  const minutes =
    given?.data.budgetMinutes ??
    (await number(`CPU minutes one evaluation of the champion on the training set may take`, '60', (n) => n > 0, 'a positive number of minutes'));
  if (minutes === undefined) return;
  const timeoutS =
    given?.data.timeoutS ??
    (await number(
      'The timeout per run, seconds (the champion runs the whole set once with it)',
      String(config.stages.perf.timeout_s),
      (n) => n > 0,
      'a positive number of seconds',
    ));
  if (timeoutS === undefined) return;
  const share =
    given?.data.heldoutShare ??
    (await number('The share of the informative instances kept for the held-out set', '0.3', (n) => n >= 0 && n <= 0.9, 'from 0 to 0.9'));
  if (share === undefined) return;
  // Whole families held out measure what evolution never saw (empty: a share of every family).
  const whole = given
    ? given.data.heldoutFamilies
    : await vscode.window
        .showInputBox({
          title: 'Hold out whole families? A count, or family names separated by commas; empty for a share of every family',
          value: '',
          ignoreFocusOut: true,
          validateInput: (v) =>
            v.trim() === '' || /^\d+$/.test(v.trim())
              ? v.trim() === '0'
                ? 'at least 1, or empty'
                : undefined
              : /^[\w.+-]+(\s*,\s*[\w.+-]+)*$/.test(v.trim())
                ? undefined
                : 'a count, or names separated by commas',
        })
        .then((v) => (v === undefined ? null : v.trim() === '' ? undefined : /^\d+$/.test(v.trim()) ? Number(v.trim()) : v.split(',').map((x) => x.trim())));
  if (whole === null) return;
  try {
    const out = await withCancel(`SATLUTION: curating ${from} (the champion runs it once)`, (signal, report) =>
      curateSet({
        ws,
        config,
        championDir: path.join(ws, candidateDirName(champion)),
        from,
        name: from,
        budgetS: minutes * 60,
        timeoutS,
        heldoutShare: share,
        ...(whole !== undefined ? { heldoutFamilies: typeof whole === 'number' ? { count: whole } : { names: whole } } : {}),
        minS: given?.data.minS ?? Math.max(0.5, timeoutS / 1000),
        replace: true,
        runnerEnv: extensionRunnerEnv(),
        signal,
        log: (line) => log.info(line),
        onResult: (done, total) => report(done / total, `${done}/${total} runs`),
      }),
    );
    await model.refresh();
    const d = out.doc;
    const clock = clockName(d.on);
    const line = `${d.train.set}: ${d.train.instances} instances, ${(d.train.time_s / 60).toFixed(1)} of ${minutes} ${clock} minutes; ${d.heldout.set}: ${d.heldout.instances} held out${d.heldout_families ? ` (the families ${d.heldout_families.join(', ')}, whole)` : ''}. The champion's run cost ${(d.spent_s / 60).toFixed(1)} ${clock} minutes. satlution.yaml now evolves on ${d.train.set}.`;
    log.info(line);
    const open = 'Open CURATION.md';
    void vscode.window
      .showInformationMessage(`SATLUTION: curated ${line}`, open)
      .then((a) => a === open && vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.file(out.curationFile)));
    return d;
  } catch (e) {
    log.error((e as Error).message);
    void vscode.window.showErrorMessage(`SATLUTION: curating ${from} failed: ${(e as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/** A notification with progress and Cancel: `task` gets the cancel as an AbortSignal and reports its share done (0-1) with a message. */
function withCancel<T>(title: string, task: (signal: AbortSignal, report: (share: number, message: string) => void) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled')));
    let reported = 0;
    try {
      return await task(abort.signal, (share, message) => {
        progress.report({ message, increment: 100 * share - reported });
        reported = 100 * share;
      });
    } finally {
      sub.dispose();
    }
  });
}
