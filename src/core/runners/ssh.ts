// Talking to an SSH host through the system OpenSSH client, so the user's host aliases and
// ~/.ssh/config (ProxyJump, keys, agent) apply unchanged. Every call reuses one control connection
// (ControlMaster=auto): hundreds of short runs cost one handshake. Local processes are spawned with
// argument arrays; the remote command is one string in which every word is quoted with shq.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { shq } from './shellQuote';

export interface SshTarget {
  /** Host alias or user@host, as OpenSSH understands it. */
  host: string;
  /** Extra ssh options before the host, e.g. ['-F', configFile]. */
  sshArgs?: readonly string[];
}

export interface SshResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** ssh's own failures (cannot connect, connection lost) exit with 255; the remote command's codes pass through. */
export const SSH_FAILED = 255;

/**
 * The directory of the control sockets: every command and result of a host passes through its socket,
 * so it lives where only this user can create one (XDG_RUNTIME_DIR, else a per-user folder in the
 * temp directory). A folder there that another user owns, others can write, or that is a link is
 * refused rather than used: a foreign "master" socket would see and answer everything.
 */
export function controlDir(base: string = process.env.XDG_RUNTIME_DIR || os.tmpdir()): string {
  const uid = process.getuid?.() ?? 0;
  const dir = path.join(base, `satlution-ssh-${uid}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new Error(`cannot create the ssh control directory ${dir}: ${(e as Error).message}`, { cause: e });
  }
  const st = fs.lstatSync(dir);
  const problem = !st.isDirectory()
    ? 'it is not a directory (a link?)'
    : st.uid !== uid
      ? `it belongs to another user (uid ${st.uid})`
      : st.mode & 0o077
        ? `others can use it (mode ${(st.mode & 0o777).toString(8)})`
        : '';
  if (problem) throw new Error(`refusing the ssh control directory ${dir}: ${problem}; remove it, and SATLUTION makes a private one`);
  return dir;
}

export function sshBaseArgs(t: SshTarget): string[] {
  // A host starting with '-' would be read as an option.
  if (!t.host || t.host.startsWith('-')) throw new Error(`invalid ssh host "${t.host}"`);
  return [
    '-o',
    'BatchMode=yes', // never hang on a password or host-key prompt: fail with a message instead
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${path.join(controlDir(), '%C')}`,
    '-o',
    'ControlPersist=60',
    '-o',
    'ServerAliveInterval=5', // notice a dead connection within ~15 s, not at the TCP timeout
    '-o',
    'ServerAliveCountMax=3',
    ...(t.sshArgs ?? []),
    t.host,
  ];
}

/** Runs a POSIX shell script on the host (through `sh -c`, whatever the login shell is). */
export function sshExec(t: SshTarget, script: string, opts: { stdin?: Readable; signal?: AbortSignal } = {}): Promise<SshResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('ssh', [...sshBaseArgs(t), `sh -c ${shq(script)}`], { stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    if (opts.stdin && child.stdin) {
      child.stdin.on('error', () => undefined); // the exit code and stderr tell what went wrong
      opts.stdin.pipe(child.stdin);
    }
    const onAbort = () => child.kill('SIGTERM');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      opts.signal?.removeEventListener('abort', onAbort);
      reject(new Error(`cannot run ssh: ${e.message} (is the OpenSSH client installed?)`));
    });
    child.on('close', (code) => {
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A failed ssh call as one sentence a person can act on. */
export function sshError(host: string, r: SshResult, during: string): Error {
  const e = r.stderr;
  const last = e.trim().split('\n').pop()?.trim() ?? '';
  if (/No space left on device|Disk quota exceeded/i.test(e))
    return new Error(`the remote disk is full on ${host} (${during}): free space in the runner's workdir there`);
  if (r.code === SSH_FAILED || r.code === null) {
    // Refused in the middle of an evaluation: the host went away between two calls, which is a drop to resume from, not a setup error.
    if (/Connection refused/i.test(e) && /^running /.test(during))
      return new Error(
        `the connection to ${host} dropped (${during}: sshd refused a new connection): finished results are stored; run the evaluation again to resume`,
      );
    if (/Connection refused/i.test(e))
      return new Error(`cannot connect to ${host}: connection refused (is sshd running there, and are the host alias and port in your ssh config right?)`);
    if (/Could not resolve hostname/i.test(e)) return new Error(`cannot connect to ${host}: unknown host name (${last})`);
    if (/Permission denied|Host key verification failed/i.test(e))
      return new Error(`cannot log in to ${host}: ${last} (ssh runs with BatchMode: use a key or agent, and accept the host key once with a plain ssh)`);
    // A session multiplexed over a control connection that dies exits 255 without a word.
    if (/closed|reset|broken pipe|timed out|timeout|lost|not responding|mux|control socket/i.test(e) || r.code === null || !e.trim())
      return new Error(
        `the connection to ${host} dropped (${during}): finished results are stored; run the evaluation again to resume (${last || 'no message from ssh'})`,
      );
    return new Error(`ssh ${host} failed (${during}): ${last}`);
  }
  return new Error(`on ${host}, ${during} failed with exit code ${r.code}${last ? `: ${last}` : ''}`);
}

/** The runner's workdir as a shell word: relative to the remote home, `~/x` allowed. */
export function remoteDir(workdir: string): string {
  return shq(workdir.replace(/^~\/?/, '') || '.');
}
