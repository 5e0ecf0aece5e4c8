// A hostile or broken GBD server (gbdServer.ts with a `hostile` route of its own) against `satlution
// benchmarks fetch`: each attack is refused with a message naming the server and what it did, or made
// harmless, and nothing it sends poisons another workspace, outgrows its bounds, or fails an honest
// solver: a comment bomb, a rewritten header through the shared cache, a `%` line, a lying `result`,
// an endless list, a giant clause, a trickling body, 50,000 hashes, redirects to another host and from
// https to http.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { FetchIncomplete } from '../../src/core/benchmarks/fetchSet';
import { GbdCache } from '../../src/core/benchmarks/gbdCache';
import { queryHashes } from '../../src/core/benchmarks/gbdRoutes';
import { fetchBounds } from '../../src/core/benchmarks/requestBounds';
import { ConfigSchema, GbdSchema } from '../../src/core/config/schema';
import { evaluateSolver } from '../../src/core/eval/service';
import { GbdHasher } from '../../src/core/instances/gbdHash';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import { listSet } from '../../src/core/instances/instances';
import { canonicalText, endlessList, servedInstance, startGbdServer, xzBomb, type GbdTestServer, type ServedInstance } from '../fixtures/gbdServer';
import { fetchInChild, fetchInto } from './gbdFetch';
import { tempDir, write } from './helpers';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;

/** The GBD hash of a text given in parts (one part repeated), without ever holding it whole. */
function hashOfParts(head: string, unit: string, repeat: number, tail: string): string {
  const h = new GbdHasher();
  h.update(Buffer.from(head));
  const u = Buffer.from(unit);
  for (let i = 0; i < repeat; i++) h.update(u);
  h.update(Buffer.from(tail));
  return h.digest();
}

/** A honest instance and the same under a hostile body (same GBD hash). */
function twin(name: string, cnf: string, body: Buffer, attrs: Record<string, string> = { track: 't' }): { honest: ServedInstance; hostile: ServedInstance } {
  return { honest: servedInstance(name, cnf, attrs), hostile: servedInstance(name, cnf, attrs, body) };
}

const text = (file: string) => fs.readFileSync(file, 'utf8');

describe('a hostile GBD server', function () {
  this.timeout(300000);
  const servers: GbdTestServer[] = [];
  const start = async (...a: Parameters<typeof startGbdServer>) => {
    const s = await startGbdServer(...a);
    servers.push(s);
    return s;
  };
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.stop();
  });

  it('a 300 MB comment verifies but only the canonical formula enters the cache and the set: a few KB, no comment', async () => {
    const cnf = planted3Sat(60, 4.2, 1);
    const unit = 'x'.repeat(1 << 20);
    const bomb = xzBomb('c ', unit, 300, `\n${cnf}`);
    const { hostile } = twin('bomb.cnf.xz', cnf, bomb);
    assert.equal(hashOfParts('c ', unit, 300, `\n${cnf}`), hostile.hash, 'GBD hashes the clauses only: the bomb has the honest hash');
    const server = await start([hostile]);
    const cache = new GbdCache(tempDir('gbd-cache-'));
    const out = await fetchInto(server.url, 'track=t', cache);
    const file = (await listSet(out.dir))[0]!.file;
    const kept = text(file);
    assert.equal(kept, canonicalText(cnf));
    assert.ok(fs.statSync(file).size < 20000, `${fs.statSync(file).size} bytes kept`);
    assert.doesNotMatch(kept, /^c/m);
  });

  it('a rewritten header cannot reach another workspace through the shared cache, nor can an entry kept as a server sent it', async () => {
    const cnf = pigeonhole(5, 4);
    const rewritten = cnf.replace(/^p cnf \d+ (\d+)$/m, 'p cnf 2147483647 $1');
    assert.notEqual(rewritten, cnf);
    const { honest, hostile } = twin('php-5-4.cnf.xz', cnf, zlib.gzipSync(rewritten));
    const [bad, good] = [await start([hostile]), await start([honest])];
    const cache = new GbdCache(tempDir('gbd-cache-'));
    // Workspace A from the hostile server, then B from the honest one: B downloads nothing and gets the canonical formula.
    const a = await fetchInto(bad.url, 'track=t', cache);
    const b = await fetchInto(good.url, 'track=t', cache);
    assert.equal(good.requests.filter((r) => r.path.startsWith('/file/')).length, 0, 'B took it from the cache');
    for (const set of [a, b]) assert.equal(text((await listSet(set.dir))[0]!.file), canonicalText(cnf));
    assert.match(text((await listSet(b.dir))[0]!.file), /^p cnf 20 \d+\n/, 'the header computed from the clauses');
    // The honest seed solves what B got (it crashed on the rewritten header).
    const solved = spawnSync('cadical', ['-q', (await listSet(b.dir))[0]!.file]);
    if (spawnSync('cadical', ['--version']).status === 0) assert.equal(solved.status, 20, String(solved.stdout));
    // A cache entry from before the cache was canonical (the server's file as sent, noted without `canonical`): made canonical on its first use, without a download.
    const old = new GbdCache(tempDir('gbd-cache-old-'));
    const sent = path.join(old.dir, hostile.hash.slice(0, 2), `${hostile.hash}.cnf.gz`);
    write(sent, '');
    fs.writeFileSync(sent, hostile.xz);
    fs.writeFileSync(
      path.join(path.dirname(sent), `${hostile.hash}.json`),
      JSON.stringify({ hash: hostile.hash, name: hostile.name, kind: 'gz', bytes: hostile.xz.length, server: bad.url, fetched_at: new Date().toISOString() }),
    );
    const before = good.requests.length;
    const c = await fetchInto(good.url, 'track=t', old);
    assert.equal(good.requests.slice(before).filter((r) => r.path.startsWith('/file/')).length, 0);
    assert.equal(text((await listSet(c.dir))[0]!.file), canonicalText(cnf));
    assert.ok((await old.lookup(hostile.hash))?.canonical, 'the entry is canonical now');
  });

  it("refuses a '%' line that does not end the file, and one whose header disagrees with its clauses, with the reason; no set, nothing cached", async () => {
    const cnf = planted3Sat(40, 4.2, 2);
    const lines = cnf.trimEnd().split('\n');
    const percent = [...lines.slice(0, 5), '%', ...lines.slice(5)].join('\n') + '\n';
    const counted = cnf.replace(/^p cnf (\d+) (\d+)$/m, (_m, v: string, c: string) => `p cnf ${v} ${Number(c) + 3}`);
    for (const [body, reason] of [
      [percent, /line 7: a '%' line before the end of the file/],
      [counted, /line \d+: the header declares \d+ clauses but the file has \d+/],
    ] as const) {
      const { hostile } = twin('odd.cnf.xz', cnf, zlib.gzipSync(body));
      const server = await start([hostile]);
      const cache = new GbdCache(tempDir('gbd-cache-'));
      const err = await fetchInto(server.url, 'track=t', cache).then(
        () => assert.fail('fetched'),
        (e: Error) => e,
      );
      assert.ok(err instanceof FetchIncomplete, err.message);
      assert.match(
        err.message,
        new RegExp(`refused ${hostile.hash} \\(${hostile.hash}-odd\\.cnf\\.xz\\) from ${server.url.replace(/\./g, '\\.')}: ${reason.source}`),
      );
      assert.equal(await cache.lookup(hostile.hash), undefined);
    }
  });

  it("a lying result does not fail an honest solver: its UNSAT answer's proof is checked, the claim marked disputed in meta.csv; a liar is still failed", async function () {
    if (!DRAT_TRIM || spawnSync('cadical', ['--version']).status !== 0) {
      if (process.env.CI) throw new Error('cadical and drat-trim are required (scripts/setup-sat-tools.sh)');
      this.skip();
    }
    // php-6-5 is UNSAT by construction; the server says sat. The planted ones are honest claims.
    const served = [
      servedInstance('php-6-5.cnf.xz', pigeonhole(6, 5), { track: 't', result: 'sat' }),
      ...[1, 2].map((s) => servedInstance(`planted-${s}.cnf.xz`, planted3Sat(60, 4.2, 40 + s), { track: 't', result: 'sat' })),
    ];
    const server = await start(served);
    const set = await fetchInto(server.url, 'track=t', new GbdCache(tempDir('gbd-cache-')));
    const php = `${served[0]!.hash}-php-6-5.cnf`;
    assert.equal((await listSet(set.dir)).find((s) => s.name === php)!.expected, 'SAT', 'the claim as the server made it');
    const config = ConfigSchema.parse({ seeds: [{ name: 'none', source: '.' }], evaluation: { drat_trim: DRAT_TRIM } });
    const perf = async (body: string) => {
      const solver = tempDir('gbd-solver-');
      write(path.join(solver, 'bin', 'starexec_run_default'), `#!/usr/bin/env bash\n${body}\n`);
      fs.chmodSync(path.join(solver, 'bin', 'starexec_run_default'), 0o755);
      return evaluateSolver({
        ws: undefined,
        config,
        solverDir: solver,
        build: false,
        overrides: { stage: 'perf', bench: set.dir, jobs: 2 },
        runnerEnv: { workerFile: '' },
      });
    };
    const honest = await perf('exec cadical -q "$1" "$2/proof.out"');
    const r = honest.gates.find((g) => g.gate === 'perf')!.results!.find((x) => x.instance === php)!;
    assert.equal(honest.verdict, 'pass', JSON.stringify(honest.gates.map((g) => g.failures)));
    assert.deepEqual([r.status, r.answer, r.check.kind, r.check.ok], ['solved', 'UNSAT', 'drat', true], r.detail);
    assert.deepEqual(r.disputed, { claim: 'SAT', by: 'drat' });
    const meta = fs.readFileSync(path.join(set.dir, 'meta.csv'), 'utf8');
    assert.match(meta, new RegExp(`^${php},,UNSAT,drat,SAT claimed$`, 'm'));
    assert.match(meta, /^instance,family,expected,proved,disputed$/m);
    // A liar: UNSAT everywhere, with a proof that proves nothing. Where it contradicts a claim its proof is checked, and rejected.
    const liar = await perf('printf "1 0\\n" > "$2/proof.out"\necho "s UNSATISFIABLE"\nexit 20');
    assert.equal(liar.verdict, 'fail');
    const lies = liar.gates.find((g) => g.gate === 'perf')!.results!.filter((x) => x.instance.includes('planted'));
    assert.deepEqual(
      lies.map((x) => x.status),
      ['invalid_proof', 'invalid_proof'],
      lies.map((x) => x.detail).join('\n'),
    );
  });

  it('an endless list is cut at its bounds (size, count) with a message naming the server; the fetch ends', async () => {
    let closed = 0;
    const hex = (i: number) => i.toString(16).padStart(32, '0');
    const byCount = await start([], {
      hostile: endlessList(
        (i) => `http://x/file/${hex(i)}\n`,
        () => closed++,
      ),
    });
    await assert.rejects(fetchInto(byCount.url, 'track=t', new GbdCache(tempDir('gbd-cache-')), { max_instances: 1000 }), (e: Error) => {
      assert.match(
        e.message,
        new RegExp(`^${byCount.url.replace(/\./g, '\\.')} lists more than 1000 instances for the query "track=t" \\(gbd\\.max_instances\\)`),
      );
      return true;
    });
    const bySize = await start([], {
      hostile: endlessList(
        () => `# ${'-'.repeat(1000)}\n`,
        () => closed++,
      ),
    });
    await assert.rejects(
      fetchInto(bySize.url, 'track=t', new GbdCache(tempDir('gbd-cache-')), { max_list_mb: 2 }),
      /sent more than 2\.0 MB in answer to the query "track=t" \(gbd\.max_list_mb\): refused/,
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(closed, 2, 'both replies were cut off');
  });

  it('a giant clause (150 million literals in a 0.3 MB download) is read with flat memory into its canonical form', async () => {
    const unit = '1 '.repeat(1 << 19);
    const [head, tail] = ['p cnf 1 1\n', '0\n'];
    const hash = hashOfParts(head, unit, 300, tail);
    const served: ServedInstance = { hash, name: 'giant.cnf.xz', xz: xzBomb(head, unit, 300, tail), cnf: '', plainBytes: 0, attrs: { track: 't' } };
    const server = await start([served]);
    const cache = tempDir('gbd-cache-');
    const dir = path.join(tempDir('gbd-ws-'), 'benchmarks', 'giant');
    const out = await fetchInChild({ server: server.url, query: 'track=t', dir, cache });
    assert.equal(out.ok, true, out.error);
    assert.ok(out.maxRssMb < 300, `the fetch peaked at ${out.maxRssMb} MB`);
    const file = (await listSet(dir))[0]!.file;
    // Within gbd.max_cnf_mb: the clause as text, every literal once, under its header.
    assert.equal(fs.statSync(file).size, 'p cnf 1 1\n'.length + 300 * unit.length + '0\n'.length);
    const fd = fs.openSync(file, 'r');
    const first = Buffer.alloc(20);
    fs.readSync(fd, first, 0, 20, 0);
    fs.closeSync(fd);
    assert.equal(first.toString(), 'p cnf 1 1\n1 1 1 1 1 ');
  });

  it('a trickling body is given up by the idle bound, a slow endless one by the overall bound; each names the server', async () => {
    const cnf = planted3Sat(200, 4.2, 3);
    const inst = servedInstance('slow.cnf.xz', cnf, { track: 't' });
    const trickle = (every: number, bytes: number) => (_req: http.IncomingMessage, res: http.ServerResponse, u: URL) => {
      if (!u.pathname.startsWith('/file/')) return false;
      res.writeHead(200, { 'content-type': 'application/x-xz', 'content-length': String(10 * 1024 * 1024) });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(Buffer.alloc(bytes, 0x41))), every);
      res.on('close', () => clearInterval(timer));
      return true;
    };
    const idle = await start([inst], { hostile: trickle(200, 1) });
    const e1 = await fetchInto(idle.url, 'track=t', new GbdCache(tempDir('gbd-cache-')), { idle_timeout_s: 1 }, { retries: 1 }).then(
      () => assert.fail('fetched'),
      (e: Error) => e,
    );
    assert.match(
      e1.message,
      new RegExp(`${idle.url.replace(/\./g, '\\.')} sent less than 1024 bytes in 1 s over ${inst.hash} \\(gbd\\.idle_timeout_s\\): given up`),
    );
    assert.equal(idle.requests.filter((r) => r.path.startsWith('/file/')).length, 2, 'tried again once, then given up');
    const slow = await start([inst], { hostile: trickle(50, 4096) });
    const e2 = await fetchInto(slow.url, 'track=t', new GbdCache(tempDir('gbd-cache-')), { idle_timeout_s: 1, timeout_s: 2 }).then(
      () => assert.fail('fetched'),
      (e: Error) => e,
    );
    assert.match(e2.message, new RegExp(`${slow.url.replace(/\./g, '\\.')} took more than 2 s over ${inst.hash} \\(gbd\\.timeout_s\\): given up`));
    assert.equal(slow.requests.filter((r) => r.path.startsWith('/file/')).length, 1, 'the overall bound is not tried again');
  });

  it('50,000 listed hashes (each twice) are read in their order, each once, in linear time', async function () {
    this.timeout(30000); // the quadratic de-duplication this replaces took 90 s for one query
    const hex = (i: number) => (i * 2654435761).toString(16).padStart(32, '0').slice(-32);
    const list = Array.from({ length: 50000 }, (_, i) => `http://x/file/${hex(i)}\n`).join('');
    const server = await start([], {
      hostile: (_req, res, u) => (u.pathname === '/getinstances' ? (res.writeHead(200).end(list + list), true) : false),
    });
    const got = await queryHashes(server.url, 'track=t', fetchBounds(GbdSchema.parse({})));
    assert.equal(got.length, 50000);
    assert.deepEqual(got.slice(0, 3), [hex(0), hex(1), hex(2)]);
  });

  it('follows a redirect to its own host, refuses one to another host and one from https to http', async () => {
    const cnf = planted3Sat(40, 4.2, 4);
    const inst = servedInstance('r.cnf.xz', cnf, { track: 't' });
    // Same host: /file/<hash> -> /file/<hash>?via=redirect, served.
    const own = await start([inst], {
      hostile: (_req, res, u) =>
        u.pathname.startsWith('/file/') && !u.search ? (res.writeHead(302, { location: `${u.pathname}?via=redirect` }).end(), true) : false,
    });
    const ok = await fetchInto(own.url, 'track=t', new GbdCache(tempDir('gbd-cache-')));
    assert.equal(ok.instances, 1);
    // Another host: 127.0.0.1 -> localhost.
    const other = await start([inst]);
    const port = new URL(other.url).port;
    const away = await start([inst], {
      hostile: (_req, res, u) =>
        u.pathname === '/getinstances' ? (res.writeHead(302, { location: `http://localhost:${port}/getinstances${u.search}` }).end(), true) : false,
    });
    await assert.rejects(
      fetchInto(away.url, 'track=t', new GbdCache(tempDir('gbd-cache-'))),
      /redirected the query "track=t" to another host \(localhost:\d+\): refused/,
    );
    assert.equal(other.requests.length, 0, 'the other host was never asked');
    // https -> http on the same host, through a child that trusts the test's certificate.
    const tls = tempDir('gbd-tls-');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        path.join(tls, 'key.pem'),
        '-out',
        path.join(tls, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const plain = await start([inst]);
    const secure = https.createServer({ key: fs.readFileSync(path.join(tls, 'key.pem')), cert: fs.readFileSync(path.join(tls, 'cert.pem')) }, (req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${new URL(plain.url).port}${req.url}` }).end(),
    );
    await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
    try {
      const out = await fetchInChild(
        {
          server: `https://127.0.0.1:${(secure.address() as AddressInfo).port}`,
          query: 'track=t',
          dir: path.join(tempDir('gbd-ws-'), 'benchmarks', 's'),
          cache: tempDir('gbd-cache-'),
        },
        { NODE_EXTRA_CA_CERTS: path.join(tls, 'cert.pem') },
      );
      assert.equal(out.ok, false);
      assert.match(
        out.error ?? '',
        /redirected the query "track=t" from https to http \(http:\/\/127\.0\.0\.1:\d+\/getinstances\?query=track%3Dt&context=cnf\): refused/,
      );
      assert.equal(plain.requests.length, 0, 'nothing was asked over http');
    } finally {
      await new Promise((r) => secure.close(r));
    }
  });
});
