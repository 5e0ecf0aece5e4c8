// `satlution benchmarks fetch` and `curate` against a local GBD server (gbdServer.ts) speaking the two
// routes over real HTTP: complete sets with answers from `result`, a file under another's hash refused,
// a dropped connection and a killed fetch resumed, the cache shared by workspaces; curate's split.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { curateSet, curationClock, curationMarkdown, type CurationDoc } from '../../src/core/benchmarks/curateSet';
import { FetchIncomplete, fetchLimits, fetchSet, familyOf, GbdSource, setFileName } from '../../src/core/benchmarks/fetchSet';
import { GbdCache } from '../../src/core/benchmarks/gbdCache';
import { heldOutFamilies, selectInstances, stratumOf, type CurateInstance } from '../../src/core/benchmarks/selection';
import { loadConfig } from '../../src/core/config/load';
import { GbdSchema } from '../../src/core/config/schema';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import { listSet } from '../../src/core/instances/instances';
import { InstanceResult } from '../../src/core/run/result';
import { CandidateStore } from '../../src/core/store/candidates';
import { tinysatCycleWorkspace } from './cycleWorkspace';
import { canonicalText, gbdDatabase, servedInstance, startGbdServer, type GbdTestServer, type ServedInstance } from '../fixtures/gbdServer';
import { databaseFamilies, GbdDatabaseError } from '../../src/core/benchmarks/gbdDatabase';
import { raceOrder } from '../../src/core/decide/race';
import { CLI, tempDir, WORKER } from './helpers';

/** A fetch's limits as satlution.yaml's defaults give them. */
const LIMITS = fetchLimits(GbdSchema.parse({}));

/** The CLI in a child process, asynchronously: the test's server runs in this process and must keep answering. */
function cli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120000): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status) => (clearTimeout(timer), resolve({ status, stdout, stderr })));
  });
}

/** `track=test_2026` of `server` fetched into the set `name` of `ws` (a cache of its own), with `extra` request fields. */
async function fetchTrack(server: GbdTestServer, ws: string, name: string, extra: Partial<Parameters<typeof fetchSet>[0]> = {}): Promise<string> {
  const dir = path.join(ws, 'benchmarks', name);
  await fetchSet({ server: server.url, query: 'track=test_2026', dir, cache: new GbdCache(tempDir('gbd-cache-')), jobs: 3, ...LIMITS, ...extra });
  return dir;
}

/** A track of 10: 5 planted SAT, 3 pigeonhole UNSAT, 2 of unknown result. */
function track(): ServedInstance[] {
  return [
    ...Array.from({ length: 5 }, (_, i) =>
      servedInstance(`planted-${i}.cnf.xz`, planted3Sat(40 + 5 * i, 4.0, 100 + i), { track: 'test_2026', result: 'sat', family: 'planted' }),
    ),
    ...Array.from({ length: 3 }, (_, i) =>
      servedInstance(`php-${i + 4}.cnf.xz`, pigeonhole(i + 4, i + 3), { track: 'test_2026', result: 'unsat', family: 'php' }),
    ),
    ...Array.from({ length: 2 }, (_, i) =>
      servedInstance(`open-${i}.cnf.xz`, planted3Sat(60, 4.1, 300 + i), { track: 'test_2026', result: 'unknown', family: 'planted' }),
    ),
  ];
}

describe('benchmarks from a GBD server (fetch, curate)', function () {
  this.timeout(300000);
  let server: GbdTestServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('fetches a query completely: every file verified, answers from result, provenance kept, the set made in one step', async () => {
    const inst = track();
    server = await startGbdServer(inst);
    const ws = tempDir('gbd-ws-');
    const cache = new GbdCache(tempDir('gbd-cache-'));
    const seen: number[] = [];
    const out = await fetchSet({
      server: server.url,
      query: 'track=test_2026',
      dir: path.join(ws, 'benchmarks', 'comp'),
      cache,
      jobs: 3,
      ...LIMITS,
      onProgress: (p) => seen.push(p.done),
    });
    assert.equal(out.instances, 10);
    assert.deepEqual(out.answers, { sat: 5, unsat: 3, unknown: 2 });
    assert.equal(out.downloaded, 10);
    assert.equal(Math.max(...seen), 10);
    const specs = await listSet(path.join(ws, 'benchmarks', 'comp'));
    assert.equal(specs.length, 10);
    for (const i of inst) {
      const s = specs.find((x) => x.name.startsWith(i.hash))!;
      assert.ok(s, `${i.hash} in the set`);
      assert.equal(s.name, `${i.hash}-${i.name.replace(/\.cnf\.xz$/, '')}.cnf`, 'named <hash>-<the server name>, in the canonical form');
      assert.equal(s.expected, i.attrs.result === 'sat' ? 'SAT' : i.attrs.result === 'unsat' ? 'UNSAT' : null);
      assert.equal(s.proved, null, "the server's result is a claim");
      assert.equal(fs.readFileSync(s.file, 'utf8'), canonicalText(i.cnf));
    }
    const source = GbdSource.parse(JSON.parse(fs.readFileSync(path.join(ws, 'benchmarks', 'comp', 'gbd-source.json'), 'utf8')));
    assert.equal(source.query, 'track=test_2026');
    assert.equal(source.server, server.url);
    assert.equal(source.instances.length, 10);
    assert.ok(!fs.existsSync(path.join(ws, 'benchmarks', '.comp.fetching')), 'no staging left');
    // The answers were asked with the two routes alone, and the families of the database gbd.families_database names (none here).
    assert.ok(server.requests.every((r) => r.path === '/getinstances' || r.path.startsWith('/file/') || r.path === '/getdatabase/meta'));
    assert.match(source.families ?? '', /^none from a database: .* has no database meta$/);
    assert.ok(
      specs.every((s) => s.family === null),
      'no family: none from the database, none in the query',
    );
    assert.equal(server.requests.filter((r) => r.path === '/getinstances').length, 3);
    // Again under the same name: refused, nothing changes.
    await assert.rejects(
      fetchSet({ server: server.url, query: 'track=test_2026', dir: path.join(ws, 'benchmarks', 'comp'), cache, jobs: 1, ...LIMITS }),
      /the set comp is already there/,
    );
    // A family named by the query goes into meta.csv.
    const fam = await fetchSet({
      server: server.url,
      query: 'track=test_2026 and family=php',
      dir: path.join(ws, 'benchmarks', 'php'),
      cache,
      jobs: 2,
      ...LIMITS,
    });
    assert.equal(fam.instances, 3);
    assert.equal(fam.fromCache, 3, 'taken from the cache');
    assert.ok((await listSet(path.join(ws, 'benchmarks', 'php'))).every((s) => s.family === 'php' && s.expected === 'UNSAT'));
  });

  it("takes each instance's family from the server's GBD database; curate's strata and the race's order use them", async () => {
    const inst = track();
    const rows = inst.map((i) => ({ hash: i.hash, family: i.attrs.family! }));
    server = await startGbdServer(inst, {}, { databases: { meta: await gbdDatabase(rows) } });
    const ws = tempDir('gbd-ws-');
    const dir = await fetchTrack(server, ws, 'comp');
    const specs = await listSet(dir);
    for (const i of inst) assert.equal(specs.find((x) => x.name.startsWith(i.hash))!.family, i.attrs.family, i.name);
    const source = GbdSource.parse(JSON.parse(fs.readFileSync(path.join(dir, 'gbd-source.json'), 'utf8')));
    assert.equal(source.families, `from ${server.url}/getdatabase/meta (features.family): 10 of 10 instances`);
    // The race interleaves the families (raceOrder) and curate stratifies by them (stratumOf).
    const order = raceOrder(specs, new Map());
    assert.deepEqual(
      order
        .slice(0, 2)
        .map((x) => x.family)
        .sort(),
      ['php', 'planted'],
      'both families among the first two',
    );
    assert.deepEqual([...new Set(specs.map((x) => stratumOf({ family: x.family, answer: x.expected })))].sort(), [
      'php/UNSAT',
      'planted/SAT',
      'planted/unknown',
    ]);
    // Many-valued layout (a family table), and a local database file the user names instead of the server's.
    const file = path.join(tempDir('gbd-db-'), 'meta.db');
    fs.writeFileSync(
      file,
      await gbdDatabase(
        rows.map((r) => ({ ...r, family: `${r.family}-local` })),
        'table',
      ),
    );
    const local = await fetchTrack(server, ws, 'local', { familiesFile: file });
    assert.ok((await listSet(local)).every((x) => x.family === 'planted-local' || x.family === 'php-local'));
    // --family still names one family for all.
    const given = await fetchTrack(server, ws, 'given', { family: 'mine' });
    assert.ok((await listSet(given)).every((x) => x.family === 'mine'));
  });

  it('reads a hostile GBD database as untrusted input: garbage, oversized, a view in place of the table, bad names and two families per instance', async () => {
    const inst = track().slice(0, 4);
    const wanted = new Set(inst.map((i) => i.hash));
    await assert.rejects(databaseFamilies(Buffer.from('<html>not a database</html>'.padEnd(200)), wanted), GbdDatabaseError);
    const truncated = (await gbdDatabase(inst.map((i) => ({ hash: i.hash, family: 'x' })))).subarray(0, 2048);
    await assert.rejects(databaseFamilies(truncated, wanted), GbdDatabaseError);
    // A view that never ends where the table would be is not read: tables only.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- sql.js's inline build, as the code under test loads it
    const SQL = await (require('sql.js/dist/sql-wasm-inline.js') as () => Promise<import('sql.js').SqlJsStatic>)();
    const v = new SQL.Database();
    v.run('CREATE VIEW features AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x AS hash, x AS family FROM n');
    const view = Buffer.from(v.export());
    v.close();
    assert.deepEqual(await databaseFamilies(view, wanted), { families: new Map(), refused: 0, from: 'none' });
    // Names that are no family names are refused; an instance given two families gets neither; 'empty' is no family.
    const read = await databaseFamilies(
      await gbdDatabase(
        [
          { hash: inst[0]!.hash, family: '../../etc' },
          { hash: inst[1]!.hash, family: 'x'.repeat(101) },
          { hash: inst[2]!.hash, family: 'crypto' },
          { hash: inst[2]!.hash, family: 'graph' },
          { hash: inst[3]!.hash, family: 'empty' },
          { hash: 'f'.repeat(32), family: 'not-asked' },
        ],
        'table',
      ),
      wanted,
    );
    assert.deepEqual([read.families.size, read.refused, read.from], [0, 3, 'family table']);
    // Over gbd.max_db_mb, or garbage from the server: the fetch goes on without families and says why.
    server = await startGbdServer(
      inst,
      {},
      { databases: { meta: await gbdDatabase(inst.map((i) => ({ hash: i.hash, family: 'big' }))), junk: Buffer.from('x'.repeat(5000)) } },
    );
    const logs: string[] = [];
    const ws = tempDir('gbd-ws-');
    const small = await fetchTrack(server, ws, 'small', { maxDbBytes: 1000, log: (l) => logs.push(l) });
    assert.ok((await listSet(small)).every((x) => x.family === null));
    assert.ok(
      logs.some((l) => /no families from a database: the database meta is [\d.]+ MB, over the 0\.0 MB a database may have \(gbd\.max_db_mb\)/.test(l)),
      logs.join('\n'),
    );
    await fetchTrack(server, ws, 'junk', { familiesDatabase: 'junk', log: (l) => logs.push(l) });
    assert.ok(
      logs.some((l) => /no families from a database: not an SQLite database/.test(l)),
      logs.join('\n'),
    );
  });

  it("refuses a file served under another instance's hash, by both hashes, and makes no set", async () => {
    const inst = track();
    const [victim, other] = [inst[1]!, inst[6]!];
    server = await startGbdServer(inst, { swap: new Map([[victim.hash, other.hash]]) });
    const ws = tempDir('gbd-ws-');
    const cache = new GbdCache(tempDir('gbd-cache-'));
    const err = await fetchSet({ server: server.url, query: 'track=test_2026', dir: path.join(ws, 'benchmarks', 'comp'), cache, jobs: 2, ...LIMITS }).then(
      () => assert.fail('fetched'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof FetchIncomplete, String(err));
    assert.match(
      err.message,
      new RegExp(
        `refused ${victim.hash} \\(${victim.hash}-${victim.name.replace(/\./g, '\\.')}\\): the file .* has the GBD hash ${other.hash}, not ${victim.hash}`,
      ),
    );
    assert.match(err.message, /1 of 10 instances could not be fetched, so the set comp was not made/);
    assert.ok(!fs.existsSync(path.join(ws, 'benchmarks', 'comp')));
    assert.equal(await cache.lookup(victim.hash), undefined, "nothing under the victim's hash in the cache");
    assert.ok(!fs.readdirSync(path.join(cache.dir, 'partial')).some((f) => f.endsWith('.part')), 'no part file kept');
    assert.ok(await cache.lookup(other.hash), 'the others are kept, verified');
  });

  it('resumes a download dropped halfway with a Range request, to a complete set', async () => {
    const inst = track();
    const victim = inst[2]!;
    server = await startGbdServer(inst, { dropOnce: new Set([victim.hash]) });
    const ws = tempDir('gbd-ws-');
    const out = await fetchSet({
      server: server.url,
      query: 'track=test_2026',
      dir: path.join(ws, 'benchmarks', 'comp'),
      cache: new GbdCache(tempDir('gbd-cache-')),
      jobs: 2,
      ...LIMITS,
    });
    assert.equal(out.instances, 10);
    assert.equal(out.resumed, 1);
    const asks = server.requests.filter((r) => r.path === `/file/${victim.hash}`);
    assert.equal(asks.length, 2);
    assert.equal(asks[0]!.range, null);
    assert.equal(asks[1]!.range, `bytes=${Math.floor(victim.xz.length / 2)}-`, 'the second request asks for the rest only');
    assert.equal(fs.readFileSync((await listSet(out.dir)).find((s) => s.name.startsWith(victim.hash))!.file, 'utf8'), canonicalText(victim.cnf));
  });

  it('a killed fetch leaves no set; run again, it resumes the partial file and takes the finished ones from the cache; a second workspace downloads nothing', async () => {
    // Three large instances on a slow link: the fetch is killed while one is half downloaded.
    const big = Array.from({ length: 3 }, (_, i) => servedInstance(`big-${i}.cnf.xz`, planted3Sat(20000, 4.2, 900 + i), { track: 'big', result: 'sat' }));
    assert.ok(
      big.every((b) => b.xz.length > 64 * 1024),
      'large enough to be caught halfway',
    );
    server = await startGbdServer(big, { chunkDelayMs: 15 });
    const cacheDir = tempDir('gbd-cache-');
    const env = { ...process.env, SATLUTION_GBD_CACHE: cacheDir };
    const ws = await tinysatCycleWorkspace({ approval: 'auto', perf: 1, perfSeed: 1 });
    const args = ['benchmarks', 'fetch', 'track=big', '--set', 'big', '--server', server.url, '--jobs', '1', '--dir', ws];
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: 'ignore' });
    const partial = path.join(cacheDir, 'partial');
    const deadline = Date.now() + 60000;
    // Wait until the first instance is in the cache and the second is on its way.
    for (;;) {
      const parts = fs.existsSync(partial) ? fs.readdirSync(partial).filter((f) => f.endsWith('.part')) : [];
      // An instance is in the cache once its note is written (the last step of storing it).
      const cached = fs
        .readdirSync(cacheDir)
        .filter((d) => /^[0-9a-f]{2}$/.test(d))
        .flatMap((d) => fs.readdirSync(path.join(cacheDir, d)).filter((f) => f.endsWith('.json'))).length;
      if (cached >= 1 && parts.length && fs.statSync(path.join(partial, parts[0]!)).size > 8192) break;
      if (Date.now() > deadline) assert.fail('the fetch never got halfway');
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    assert.ok(!fs.existsSync(path.join(ws, 'benchmarks', 'big')), 'no set after a kill');
    const before = server.requests.length;
    const again = await cli(args, env);
    assert.equal(again.status, 0, again.stderr + again.stdout);
    assert.match(again.stdout, /set big: 3 instances \(3 SAT, 0 UNSAT, 0 unknown\).*2 downloaded \(1 resumed\), 1 from the cache/);
    const later = server.requests.slice(before).filter((r) => r.path.startsWith('/file/'));
    assert.equal(later.length, 2, 'the cached one is not asked for again');
    assert.ok(
      later.some((r) => r.range !== null),
      'the partial one resumed with a range',
    );
    assert.equal((await listSet(path.join(ws, 'benchmarks', 'big'))).length, 3);
    assert.equal((await loadConfig(ws)).benchmarks.big, 'benchmarks/big', 'named in satlution.yaml');
    // Another workspace, the same cache: no download at all.
    const ws2 = await tinysatCycleWorkspace({ approval: 'auto', perf: 1, perfSeed: 1 });
    const n = server.requests.length;
    const other = await cli([...args.slice(0, -1), ws2], env);
    assert.equal(other.status, 0, other.stderr);
    assert.match(other.stdout, /0 downloaded \(0 resumed\), 3 from the cache/);
    assert.equal(server.requests.slice(n).filter((r) => r.path.startsWith('/file/')).length, 0);
  });

  it('names files safely whatever the server calls them, and takes a family only from a plain conjunction', () => {
    const h = 'a'.repeat(32);
    assert.equal(setFileName(h, `${h}-../../etc/passwd`, 'xz'), `${h}-passwd.cnf.xz`);
    assert.equal(setFileName(h, 'sub/dir/x y;rm.cnf.xz', 'xz'), `${h}-x_y_rm.cnf.xz`);
    assert.equal(setFileName(h, null, 'gz'), `${h}.cnf.gz`);
    assert.equal(setFileName(h, '...', 'xz'), `${h}.cnf.xz`);
    assert.equal(familyOf('track=main_2024 and family=crypto'), 'crypto');
    assert.equal(familyOf('family=a or family=b'), null);
    assert.equal(familyOf('(family=a) and track=x'), null);
  });

  it('a curation is on one clock: CPU time when every run has it, else wall time for all, and every label says which', () => {
    const base = InstanceResult.parse({
      ...{ instance: 'i', family: null, expected: null, answer: 'SAT', status: 'solved', time_s: 4, cpu_s: 3 },
      ...{ mem_mb: null, exit_code: 0, signal: null, check: { kind: 'none', ok: null, time_s: 0, detail: '' }, detail: '' },
    });
    const cpu = curationClock([base, { ...base, time_s: 8, cpu_s: 6 }]);
    assert.deepEqual([cpu.on, cpu.time({ ...base, time_s: 8, cpu_s: 6 })], ['cpu', 6]);
    // One run without CPU time (no cgroup counted it): wall time for every run, none of it called CPU.
    const runs = [base, { ...base, time_s: 8, cpu_s: null }];
    const wall = curationClock(runs);
    assert.deepEqual([wall.on, runs.map(wall.time)], ['wall', [4, 8]]);
    const doc: CurationDoc = {
      ...{
        from: 'all',
        champion: 'SATLUTION_0',
        at: '2026-01-01T00:00:00Z',
        budget_s: 60,
        timeout_s: 20,
        heldout_share: 0.3,
        min_s: 0.5,
        on: 'wall',
        spent_s: 12,
      },
      train: { set: 'c-train', instances: 1, time_s: 4 },
      heldout: { set: 'c-heldout', instances: 1, time_s: 8, budget_s: 25.7 },
      decisions: [{ name: 'i', stratum: 'a/SAT', time_s: 4, set: 'train', reason: 'training' }],
    };
    const md = curationMarkdown(doc);
    assert.doesNotMatch(md, /CPU/);
    assert.match(md, /12 wall s/);
    assert.match(md, /4 of 60 wall s per evaluation/);
    assert.match(curationMarkdown({ ...doc, on: 'cpu' }), /4 of 60 CPU s per evaluation/);
  });

  it('selects a training set within the budget and a disjoint held-out set, stratified by family and answer, with a reason for each', () => {
    const inst: CurateInstance[] = [];
    for (const [family, answer, n] of [
      ['a', 'SAT', 20],
      ['a', 'UNSAT', 10],
      ['b', 'SAT', 10],
    ] as const)
      for (let k = 0; k < n; k++) inst.push({ name: `${family}-${answer}-${k}`, family, answer, solved: true, timeS: 1 + ((k * 7) % 20), status: 'solved' });
    inst.push(
      { name: 'hard', family: 'a', answer: null, solved: false, timeS: 100, status: 'timeout' },
      { name: 'easy', family: 'b', answer: 'SAT', solved: true, timeS: 0.1, status: 'solved' },
    );
    const sel = selectInstances(inst, { budgetS: 200, heldoutShare: 0.3, minS: 0.5, timeoutS: 100 });
    const of = (set: string) => sel.decisions.filter((d) => d.set === set);
    assert.ok(sel.train.timeS <= 200 && sel.train.timeS > 150, `train ${sel.train.timeS}`);
    assert.ok(sel.heldout.timeS <= sel.heldout.budgetS, `held-out ${sel.heldout.timeS} of ${sel.heldout.budgetS}`);
    assert.ok(Math.abs(sel.heldout.budgetS - (200 * 0.3) / 0.7) < 1e-9);
    const train = new Set(of('train').map((d) => d.name));
    assert.ok(
      of('heldout').every((d) => !train.has(d.name)),
      'disjoint',
    );
    assert.equal(sel.decisions.length, inst.length, 'a decision for every instance');
    assert.match(sel.decisions.find((d) => d.name === 'hard')!.reason, /not solved by the champion within 100 s \(timeout\)/);
    assert.match(sel.decisions.find((d) => d.name === 'easy')!.reason, /solved in 0\.10 s, under 0\.50 s/);
    // Every stratum in both sets, in about the proportion of the pool.
    for (const set of ['train', 'heldout']) {
      const count = (s: string) => of(set).filter((d) => d.stratum === s).length;
      const [aSat, aUnsat, bSat] = [count('a/SAT'), count('a/UNSAT'), count('b/SAT')];
      assert.ok(aUnsat >= 1 && bSat >= 1, `${set}: ${aSat}/${aUnsat}/${bSat}`);
      assert.ok(aSat >= aUnsat && aSat >= bSat, `${set}: the largest stratum the most (${aSat}/${aUnsat}/${bSat})`);
    }
    assert.ok(
      of('out').some((d) => /budget .* was spent/.test(d.reason)),
      'over-budget instances say so',
    );
    assert.equal(stratumOf({ family: null, answer: null }), 'no family/unknown');
  });

  it('holds out whole families, by name or by count (chosen by their names, never trained on), and refuses what cannot be held out', () => {
    const inst: CurateInstance[] = [];
    for (const [family, n] of [
      ['crypto', 8],
      ['graph', 6],
      ['php', 5],
      ['tiny', 2],
    ] as const)
      for (let k = 0; k < n; k++) inst.push({ name: `${family}-${k}`, family, answer: 'SAT', solved: true, timeS: 1 + k, status: 'solved' });
    const lim = { budgetS: 1000, heldoutShare: 0.3, minS: 0.5, timeoutS: 100 };
    const sel = selectInstances(inst, { ...lim, heldoutFamilies: { names: ['graph'] } });
    const familyIn = (set: string) => new Set(sel.decisions.filter((d) => d.set === set).map((d) => d.name.split('-')[0]));
    assert.deepEqual([...familyIn('heldout')], ['graph']);
    assert.deepEqual([...familyIn('train')].sort(), ['crypto', 'php', 'tiny'], 'every other family trains, whole');
    assert.match(sel.decisions.find((d) => d.name === 'graph-0')!.reason, /^held-out \(the family graph is held out whole\)/);
    // By count: among families with 4 or more informative instances, in an order fixed by their names' hashes.
    const one = selectInstances(inst, { ...lim, heldoutFamilies: { count: 1 } });
    const held = [...new Set(one.decisions.filter((d) => d.set === 'heldout').map((d) => d.name.split('-')[0]))];
    assert.equal(held.length, 1);
    assert.ok(['crypto', 'graph', 'php'].includes(held[0]!), `${held[0]} has 4 or more instances`);
    assert.deepEqual(heldOutFamilies(inst, { count: 1 }), new Set(held), 'the same choice every time');
    assert.throws(
      () => heldOutFamilies(inst, { names: ['nosuch'] }),
      /no informative instance of the family nosuch to hold out \(families here: crypto, graph, php, tiny\)/,
    );
    assert.throws(() => heldOutFamilies(inst, { count: 4 }), /cannot hold out 4 whole families: 3 of the 4 families have 4 or more/);
    assert.equal(heldOutFamilies(inst, { count: 3 }).size, 3, 'the small family is left to train on');
    assert.throws(() => heldOutFamilies(inst, { names: ['crypto', 'graph', 'php', 'tiny'] }), /leaves no family to train on/);
    assert.ok(heldOutFamilies(inst, { count: 2 }).size === 2);
  });

  it('curates a fetched set: the champion runs it once, the two sets are written and named in satlution.yaml', async () => {
    const inst = [
      ...Array.from({ length: 12 }, (_, i) =>
        servedInstance(`p-${i}.cnf.xz`, planted3Sat(40 + 10 * (i % 4), 4.2, 500 + i), { track: 'c', result: 'sat', family: 'planted' }),
      ),
      ...Array.from({ length: 4 }, (_, i) => servedInstance(`php-${i}.cnf.xz`, pigeonhole(4 + i, 3 + i), { track: 'c', result: 'unsat', family: 'php' })),
    ];
    server = await startGbdServer(inst, {}, { databases: { meta: await gbdDatabase(inst.map((i) => ({ hash: i.hash, family: i.attrs.family! }))) } });
    const ws = await tinysatCycleWorkspace({ approval: 'auto', perf: 1, perfSeed: 1 });
    const env = { ...process.env, SATLUTION_GBD_CACHE: tempDir('gbd-cache-') };
    const f = await cli(['benchmarks', 'fetch', 'track=c', '--set', 'comp', '--server', server.url, '--dir', ws], env);
    assert.equal(f.status, 0, f.stderr);
    // The CLI (the bundle, with SQLite inside) read each instance's family from the server's database.
    const fetched = await listSet(path.join(ws, 'benchmarks', 'comp'));
    assert.deepEqual(
      inst.map((i) => fetched.find((x) => x.name.startsWith(i.hash))!.family),
      inst.map((i) => i.attrs.family),
    );
    assert.notEqual((await new CandidateStore(ws).load()).index.champion, null, 'the seed is the champion');
    // The champion's times decide; min 0 s so tinysat's fast runs count. First with room for all, to
    // learn the times; then with half of that budget (the champion's runs are kept: not run again).
    const curate = async (budgetS: number) =>
      curateSet({
        ws,
        config: await loadConfig(ws),
        championDir: path.join(ws, 'SATLUTION_0'),
        from: 'comp',
        name: 'comp',
        budgetS,
        timeoutS: 10,
        heldoutShare: 0.25,
        minS: 0,
        replace: true,
        runnerEnv: { workerFile: WORKER },
      });
    const all = await curate(1e6);
    const solved = all.doc.decisions.filter((x) => x.set !== 'out');
    assert.ok(solved.length >= 12, `tinysat solved ${solved.length} of 16`);
    assert.ok(all.doc.decisions.filter((x) => x.set === 'out').every((x) => /not solved by the champion/.test(x.reason)));
    const trainable = all.doc.train.time_s;
    const out = await curate(trainable / 2);
    const d = out.doc;
    assert.equal(d.decisions.length, 16);
    assert.ok(d.train.time_s <= trainable / 2 + 1e-9, `train ${d.train.time_s} of ${trainable / 2}`);
    assert.ok(
      d.decisions.some((x) => x.set === 'out' && /training budget .* was spent/.test(x.reason)),
      'some left out for the budget',
    );
    const train = await listSet(out.trainDir);
    const held = await listSet(out.heldoutDir);
    assert.equal(train.length, d.train.instances);
    assert.ok(train.length >= 1 && held.length >= 1, `${train.length} / ${held.length}`);
    assert.ok(!train.some((t) => held.some((h) => h.name === t.name)), 'disjoint');
    assert.ok(
      train.every((t) => t.expected !== null),
      'meta.csv rows carried over',
    );
    const yaml = parseYaml(fs.readFileSync(path.join(ws, 'satlution.yaml'), 'utf8')) as {
      stages: { perf: { set: string; holdout: string; timeout_s: number } };
      benchmarks: Record<string, string>;
    };
    assert.deepEqual([yaml.stages.perf.set, yaml.stages.perf.holdout, yaml.stages.perf.timeout_s], ['comp-train', 'comp-heldout', 10]);
    assert.equal(yaml.benchmarks['comp-train'], 'benchmarks/comp-train');
    const md = fs.readFileSync(path.join(ws, 'benchmarks', 'comp', 'CURATION.md'), 'utf8');
    assert.match(md, /## Training[\s\S]*## Held-out[\s\S]*## Left out/);
    assert.equal(md.split('\n').filter((l) => /^\| [0-9a-f]{32}-/.test(l)).length, 16, 'a row for every instance');
    // The CLI holds out the pigeonhole family whole: the held-out set is its instances alone, and none of them trains.
    const c = await cli(
      [
        'benchmarks',
        'curate',
        '--from',
        'comp',
        '--budget-cpu-minutes',
        '60',
        '--timeout',
        '10',
        '--min-s',
        '0',
        '--heldout-families',
        'php',
        '--replace',
        '--dir',
        ws,
      ],
      env,
    );
    assert.equal(c.status, 0, c.stderr + c.stdout);
    assert.match(c.stdout, /held out whole: php \(never in training\)/);
    const [t2, h2] = await Promise.all([listSet(path.join(ws, 'benchmarks', 'comp-train')), listSet(path.join(ws, 'benchmarks', 'comp-heldout'))]);
    assert.ok(h2.length >= 1 && h2.every((x) => x.family === 'php'), h2.map((x) => x.family).join(','));
    assert.ok(t2.length >= 1 && t2.every((x) => x.family === 'planted'));
    const bad = await cli(
      ['benchmarks', 'curate', '--from', 'comp', '--budget-cpu-minutes', '60', '--timeout', '10', '--heldout-families', 'nosuch', '--replace', '--dir', ws],
      env,
    );
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /no informative instance of the family nosuch to hold out/);
  });
});
