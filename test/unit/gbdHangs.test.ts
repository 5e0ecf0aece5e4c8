// A GBD server that tries to make a fetch hang or blow up, against `satlution benchmarks fetch`: a
// redirect to another port of its own host, a gzip-encoded body that would decode past every bound, an
// xz file whose header asks for a 1.5 GiB dictionary, locks held by what is no fetch (a reused pid, a
// dead host's heartbeat) and by a live fetch, the files a killed fetch leaves in the cache, and a server
// that stalls every file. Each is refused or made harmless, with a message that says what happened.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FetchIncomplete } from '../../src/core/benchmarks/fetchSet';
import { GbdCache } from '../../src/core/benchmarks/gbdCache';
import { STALE_MS } from '../../src/core/benchmarks/gbdLock';
import { GbdSchema } from '../../src/core/config/schema';
import { planted3Sat } from '../../src/core/instances/generators';
import { procStart } from '../../src/core/run/owner';
import { servedInstance, startGbdServer, xz, type GbdTestServer } from '../fixtures/gbdServer';
import { fetchInChild, fetchInto } from './gbdFetch';
import { tempDir } from './helpers';

/** The error a promise rejects with (it must reject). */
const failure = (p: Promise<unknown>): Promise<Error> =>
  p.then(
    () => assert.fail('it succeeded'),
    (e: Error) => e,
  );

/** CRC-32 (IEEE), as xz's block headers carry it. */
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

/** A variable-length integer of the xz format at `at`: its value and where the next field starts. */
function varint(buf: Buffer, at: number): [number, number] {
  let v = 0;
  for (let i = 0; ; i++) {
    const b = buf[at + i]!;
    v += (b & 0x7f) * 2 ** (7 * i);
    if (!(b & 0x80)) return [v, at + i + 1];
  }
}

/**
 * `text` as xz whose first block header asks for a dictionary of 1.5 GiB (LZMA2 property 37) while its
 * data needs a few KB, the header's CRC made right: a valid file that makes an unbounded decoder take
 * 1.5 GiB. As a hostile server would craft it.
 */
function xzDictionaryBomb(text: string): Buffer {
  const out = Buffer.from(xz(text));
  const start = 12; // after the stream header
  const size = (out[start]! + 1) * 4;
  const flags = out[start + 1]!;
  assert.equal(flags & 3, 0, 'one filter');
  let at = start + 2;
  if (flags & 0x40) at = varint(out, at)[1];
  if (flags & 0x80) at = varint(out, at)[1];
  const [id, afterId] = varint(out, at);
  assert.equal(id, 0x21, 'LZMA2');
  const [propsSize, afterSize] = varint(out, afterId);
  assert.equal(propsSize, 1);
  out[afterSize] = 37; // (2 | 1) << (37 / 2 + 11) = 1.5 GiB
  out.writeUInt32LE(crc32(out.subarray(start, start + size - 4)), start + size - 4);
  return out;
}

/** The pid of a process that has exited (a pid no process has now). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

describe('a GBD server that tries to hang or blow up a fetch', function () {
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

  it('a redirect to another port of its own host is refused: the other port is never asked', async () => {
    const inst = servedInstance('p.cnf.xz', planted3Sat(40, 4.2, 1), { track: 't' });
    const local = await start([inst]);
    const away = await start([inst], {
      hostile: (_req, res, u) =>
        u.pathname === '/getinstances' ? (res.writeHead(307, { location: `${local.url}/getinstances${u.search}` }).end(), true) : false,
    });
    assert.equal(new URL(local.url).hostname, new URL(away.url).hostname, 'the same host');
    const e = await failure(fetchInto(away.url, 'track=t', new GbdCache(tempDir('gbd-cache-'))));
    assert.match(e.message, /redirected the query "track=t" to another origin \(http:\/\/127\.0\.0\.1:\d+, not http:\/\/127\.0\.0\.1:\d+\): refused/);
    assert.equal(local.requests.length, 0, 'the other port was never asked');
  });

  it('asks for the identity encoding and refuses a gzip body unread: nothing lands in partial/, nothing is decoded', async () => {
    const cnf = planted3Sat(60, 4.2, 2);
    const inst = servedInstance('g.cnf.xz', cnf, { track: 't' });
    // 1 MB of gzip that would decode to 1 GB of zeros, sent whatever was asked (made by gzip: 1 GB never sits in this process).
    const bomb = execFileSync('sh', ['-c', 'head -c 1073741824 /dev/zero | gzip -9 -c'], { maxBuffer: 1 << 24 });
    assert.ok(bomb.length < 1.1e6);
    const asked: (string | undefined)[] = [];
    const server = await start([inst], {
      hostile: (req, res, u) => {
        asked.push(req.headers['accept-encoding'] as string | undefined);
        if (!u.pathname.startsWith('/file/')) return false;
        res.writeHead(200, { 'content-type': 'application/x-xz', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
        res.end(bomb);
        return true;
      },
    });
    const cache = new GbdCache(tempDir('gbd-cache-'));
    const e = await failure(fetchInto(server.url, 'track=t', cache));
    assert.match(e.message, new RegExp(`${inst.hash}: .*sent ${inst.hash} encoded as gzip though only identity was asked: refused, nothing of it kept`));
    assert.ok(asked.length >= 2 && asked.every((a) => a === 'identity'), `every request asked for identity: ${JSON.stringify(asked)}`);
    const partial = path.join(cache.dir, 'partial');
    const left = fs.existsSync(partial) ? fs.readdirSync(partial).map((f) => [f, fs.statSync(path.join(partial, f)).size]) : [];
    assert.deepEqual(
      left.filter(([, size]) => (size as number) > 0),
      [],
      'no byte of it was written',
    );
    assert.equal(server.requests.filter((r) => r.path.startsWith('/file/')).length, 1, 'a refusal is not retried');
  });

  it("an xz file whose header asks for a 1.5 GiB dictionary is refused with the reason by the decoder's memory limit", async () => {
    const cnf = planted3Sat(80, 4.2, 3);
    const bomb = xzDictionaryBomb(cnf);
    // The crafted file is valid xz: read without a limit, it is the formula.
    const dir = tempDir('gbd-xz-');
    fs.writeFileSync(path.join(dir, 'bomb.cnf.xz'), bomb);
    const info = spawnSync('xz', ['--robot', '--list', '-vv', path.join(dir, 'bomb.cnf.xz')], { encoding: 'utf8' });
    const needMiB = Number(/^summary\t(\d+)/m.exec(info.stdout)?.[1]) / 2 ** 20;
    assert.ok(needMiB >= 1536, `xz says it needs ${needMiB} MiB`);
    const inst = servedInstance('bomb.cnf.xz', cnf, { track: 't' }, bomb);
    const server = await start([inst]);
    const out = await fetchInChild({
      server: server.url,
      query: 'track=t',
      dir: path.join(tempDir('gbd-ws-'), 'benchmarks', 's'),
      cache: tempDir('gbd-cache-'),
    });
    assert.equal(out.ok, false);
    assert.match(
      out.error ?? '',
      new RegExp(
        `refused ${inst.hash} \\(${inst.hash}-bomb\\.cnf\\.xz\\) from ${server.url.replace(/\./g, '\\.')}: xz needs more than the 256 MiB of memory allowed to decompress it \\(gbd\\.xz_mem_mb\\): its headers ask for a dictionary that large`,
      ),
    );
    // xz refuses from the headers, before allocating the dictionary (the message is xz's memory limit, not a failed allocation).
    // A limit above what it asks lets it through: the limit is what refused it.
    const roomy = await fetchInChild({
      server: server.url,
      query: 'track=t',
      dir: path.join(tempDir('gbd-ws-'), 'benchmarks', 's'),
      cache: tempDir('gbd-cache-'),
      gbd: { xz_mem_mb: 2048 },
    });
    assert.equal(roomy.ok, true, roomy.error);
  });

  it('a lock naming a live process that is no fetch (a reused pid), or a holder whose heartbeat stopped, is taken over', async () => {
    const insts = [1, 2].map((s) => servedInstance(`l${s}.cnf.xz`, planted3Sat(50, 4.2, 10 + s), { track: 't' }));
    const server = await start(insts);
    const cache = new GbdCache(tempDir('gbd-cache-'));
    const partial = path.join(cache.dir, 'partial');
    fs.mkdirSync(partial, { recursive: true });
    // A live process that is not a fetch, named with a start time that is not its own: what a pid reused after a reboot looks like.
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const start0 = procStart(sleeper.pid!);
      assert.ok(start0, 'this test needs /proc');
      fs.writeFileSync(
        path.join(partial, `${insts[0]!.hash}.lock`),
        JSON.stringify({ pid: sleeper.pid, start: String(Number(start0) - 1000), host: os.hostname(), since: '2026-01-01T00:00:00Z' }),
      );
      // Another host's lock, untouched for longer than a heartbeat allows: a holder that died there.
      const other = path.join(partial, `${insts[1]!.hash}.lock`);
      fs.writeFileSync(other, JSON.stringify({ pid: 4242, host: 'elsewhere.example', since: '2026-01-01T00:00:00Z' }));
      const old = new Date(Date.now() - STALE_MS - 5000);
      fs.utimesSync(other, old, old);
      const t0 = Date.now();
      const out = await fetchInto(server.url, 'track=t', cache);
      assert.equal(out.instances, 2);
      assert.equal(out.downloaded, 2);
      assert.ok(Date.now() - t0 < 30000, 'no wait on either');
      assert.deepEqual(
        fs.readdirSync(partial).filter((f) => f.endsWith('.lock')),
        [],
        'both released',
      );
    } finally {
      sleeper.kill();
    }
  });

  it('a lock held by a live fetch: the fetch says it waits, naming the holder, and gives up after gbd.lock_wait_s, naming the lock', async () => {
    const inst = servedInstance('w.cnf.xz', planted3Sat(50, 4.2, 21), { track: 't' });
    const server = await start([inst]);
    const cache = new GbdCache(tempDir('gbd-cache-'));
    const lock = path.join(cache.dir, 'partial', `${inst.hash}.lock`);
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    // This test's own process holds it, as a fetch would (live pid, its start time, touched now).
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, start: procStart(process.pid), host: os.hostname(), since: '2026-12-07T00:00:00Z' }));
    const said: string[] = [];
    const waits: (string | null)[] = [];
    const t0 = Date.now();
    const e = await failure(
      fetchInto(server.url, 'track=t', cache, { lock_wait_s: 2 }, { log: (l) => said.push(l), onProgress: (p) => waits.push(p.waiting) }),
    );
    assert.ok(e instanceof FetchIncomplete);
    assert.ok(Date.now() - t0 < 20000);
    assert.ok(
      said.some((l) =>
        l.includes(
          `${inst.hash}: waiting for another fetch of this cache to finish it (pid ${process.pid} on ${os.hostname()} since 2026-12-07T00:00:00Z; lock ${lock}`,
        ),
      ),
      said.join('\n'),
    );
    assert.ok(
      waits.some((w) => w?.includes('waiting for another fetch')),
      'the progress says it waits',
    );
    assert.match(e.message, new RegExp(`gave up after waiting 2 s for ${lock.replace(/[.]/g, '\\.')}, held by pid ${process.pid} .*\\(gbd\\.lock_wait_s\\)`));
    assert.equal(server.requests.filter((r) => r.path.startsWith('/file/')).length, 0, 'nothing downloaded under a live lock');
    assert.ok(fs.existsSync(lock), "the live holder's lock is left alone");
  });

  it('the next fetch removes what a killed fetch left in partial/, and resumes the partial download it asks for', async () => {
    const insts = [1, 2].map((s) => servedInstance(`k${s}.cnf.xz`, planted3Sat(300, 4.2, 30 + s), { track: 't' }));
    const server = await start(insts);
    const cache = new GbdCache(tempDir('gbd-cache-'));
    const partial = path.join(cache.dir, 'partial');
    fs.mkdirSync(partial, { recursive: true });
    const dead = deadPid();
    const gone = 'f'.repeat(32);
    // As a fetch killed while reading a file leaves them: a canonical copy half written (old and new naming),
    // a partial download of an instance this fetch does not ask for, and one of an instance it does.
    fs.writeFileSync(path.join(partial, `${insts[0]!.hash}.${dead}.canonical.cnf`), 'p cnf 3 1\n1 2');
    fs.writeFileSync(path.join(partial, `${insts[1]!.hash}.${dead}-12345.canonical.cnf`), 'p cnf 3 1\n1 2');
    fs.writeFileSync(path.join(partial, `${gone}.part`), Buffer.alloc(5000, 1));
    fs.writeFileSync(path.join(partial, `${insts[0]!.hash}.part`), insts[0]!.xz.subarray(0, 100));
    // A live process's temporary file is a read in progress: kept.
    const mine = path.join(partial, `${gone}.${process.pid}-${procStart(process.pid)}.canonical.cnf`);
    fs.writeFileSync(mine, 'p cnf 1 1\n1 0\n');
    const said: string[] = [];
    const out = await fetchInto(server.url, 'track=t', cache, {}, { log: (l) => said.push(l) });
    assert.equal(out.instances, 2);
    assert.equal(out.resumed, 1, 'the partial download it asked for was resumed');
    assert.ok(
      said.some((l) => /^removed 3 file\(s\) that killed fetches left in /.test(l)),
      said.join('\n'),
    );
    assert.deepEqual(fs.readdirSync(partial), [path.basename(mine)]);
    const ranged = server.requests.filter((r) => r.range);
    assert.deepEqual(
      ranged.map((r) => r.range),
      ['bytes=100-'],
    );
  });

  it('a server that stalls every file ends the whole fetch within 3 minutes at the default settings, with one message', async () => {
    const insts = [1, 2, 3].map((s) => servedInstance(`s${s}.cnf.xz`, planted3Sat(60, 4.2, 40 + s), { track: 't' }));
    // Headers and a few bytes, then nothing: each download stalls.
    const server = await start(insts, {
      hostile: (_req, res, u) => {
        if (!u.pathname.startsWith('/file/')) return false;
        res.writeHead(200, { 'content-type': 'application/x-xz', 'content-length': '100000' });
        res.write(Buffer.alloc(10, 0xfd));
        return true;
      },
    });
    const defaults = GbdSchema.parse({});
    assert.equal(defaults.idle_timeout_s, 60);
    const t0 = Date.now();
    const e = await failure(fetchInto(server.url, 'track=t', new GbdCache(tempDir('gbd-cache-')), {}, { jobs: defaults.jobs }));
    const took = (Date.now() - t0) / 1000;
    assert.ok(took < 180, `ended after ${took.toFixed(0)} s`);
    assert.ok(e instanceof FetchIncomplete);
    assert.match(
      e.message,
      /stalled or failed 3 download attempts in a row \(gbd\.max_stalls\), the last: .* sent less than 1024 bytes in 60 s over [0-9a-f]{32} \(gbd\.idle_timeout_s\): given up: the fetch was given up after \d of 3 instances/,
    );
    assert.equal(e.message.split('\n').length, 1, 'one message');
    // Each asked once, or twice where its stall was seen a tick (15 s) before the others' (a busy machine): never retried to its end (6 times).
    const asked = server.requests.filter((r) => r.path.startsWith('/file/')).map((r) => r.path);
    assert.deepEqual([...new Set(asked)].sort(), insts.map((i) => `/file/${i.hash}`).sort());
    assert.ok(
      insts.every((i) => asked.filter((p) => p === `/file/${i.hash}`).length <= 2),
      asked.join(' '),
    );
  });
});
