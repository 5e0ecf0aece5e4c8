// Starts a real VS Code (code-server's workbench + Node extension host) with an isolated profile,
// and headless Chromium to drive it. Shared by the integration runner and the e2e scripts.
// Extension tests are loaded through the workbench's `payload` query parameter, the mechanism VS
// Code uses for its own browser integration tests (code-server rejects --extensionDevelopmentPath).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export interface CodeServerOptions {
  codeServer: string;
  /** Directory with a Node >= 24 binary (code-server needs it). */
  nodeBin: string;
  settings?: Record<string, unknown>;
  /** A packaged extension to install first, as a user would. */
  installVsix?: string;
  verbose?: boolean;
  /**
   * Default true: VS Code's smoke-test driver, which the integration runner needs (a built workbench
   * honours the payload's extensionDevelopmentPath only with it) but which also hides every toast,
   * progress notifications included. false shows the workbench as a person sees it.
   */
  smokeTestDriver?: boolean;
  /** Variables of this process that code-server and its extension host must not see (a first run without the tools found). */
  unsetEnv?: readonly string[];
}

export interface CodeServer {
  port: number;
  /** URL that opens `folder` with the given extension-development payload. */
  url(folder: string, payload?: [string, string][]): string;
  remote(p: string): string;
  stop(): Promise<void>;
  output(): string;
  extensionLog(): string;
  env: NodeJS.ProcessEnv;
}

export const BASE_SETTINGS = {
  'chat.disableAIFeatures': true,
  'workbench.startupEditor': 'none',
  'remote.autoForwardPorts': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'workbench.enableExperiments': false,
  'workbench.tips.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function startCodeServer(o: CodeServerOptions): Promise<CodeServer> {
  const port = await freePort();
  // Short base: unix socket paths are limited to ~107 characters.
  const tmp = fs.mkdtempSync(path.join(process.env.CS_TMP ?? os.tmpdir(), 'cs-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${o.nodeBin}:${process.env.PATH ?? ''}`,
    HOME: path.join(tmp, 'home'),
    XDG_CONFIG_HOME: path.join(tmp, 'xc'),
    XDG_DATA_HOME: path.join(tmp, 'xd'),
    XDG_CACHE_HOME: path.join(tmp, 'xa'),
    TMPDIR: path.join(tmp, 't'),
  };
  for (const k of o.unsetEnv ?? []) delete env[k];
  for (const k of ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'TMPDIR'] as const) fs.mkdirSync(env[k]!, { recursive: true });
  fs.mkdirSync(path.join(tmp, 'ud', 'User'), { recursive: true });
  fs.writeFileSync(path.join(tmp, 'ud', 'User', 'settings.json'), JSON.stringify({ ...BASE_SETTINGS, ...o.settings }, null, 2));
  const common = ['--user-data-dir', path.join(tmp, 'ud'), '--extensions-dir', path.join(tmp, 'ext')];
  if (o.installVsix) {
    const r = spawnSync(o.codeServer, [...common, '--install-extension', o.installVsix], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`code-server --install-extension ${o.installVsix} failed:\n${r.stdout}${r.stderr}`);
    if (o.verbose) process.stdout.write(r.stdout);
  }
  const child: ChildProcess = spawn(
    o.codeServer,
    [
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      ...(o.smokeTestDriver === false ? [] : ['--vscode-option', 'enable-smoke-test-driver']),
      ...common,
      '--config',
      path.join(tmp, 'config.yaml'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env },
  );
  let out = '';
  const onData = (d: Buffer) => {
    out += d.toString();
    if (o.verbose) process.stdout.write(`[code-server] ${d}`);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  await new Promise<void>((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`code-server did not start in 60 s:\n${out}`)), 60000);
    const iv = setInterval(() => {
      if (/HTTP server listening/.test(out)) {
        clearInterval(iv);
        clearTimeout(deadline);
        resolve();
      }
    }, 100);
    child.on('exit', (c) => {
      clearInterval(iv);
      clearTimeout(deadline);
      reject(new Error(`code-server exited early (${c}):\n${out}`));
    });
  });
  const authority = `127.0.0.1:${port}`;
  const remote = (p: string) => `vscode-remote://${authority}${p}`;
  let stopped = false;
  return {
    port,
    env,
    remote,
    output: () => out,
    /** The extension's own output channel ("SATLUTION"), as code-server logged it: for failure reports. */
    extensionLog: () => {
      const files = (fs.readdirSync(path.join(tmp, 'ud', 'logs'), { recursive: true }) as string[]).filter((f) => /SATLUTION\.log$/.test(f));
      return files.map((f) => fs.readFileSync(path.join(tmp, 'ud', 'logs', f), 'utf8')).join('\n');
    },
    url: (folder, payload = []) =>
      `http://${authority}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify([...payload, ['skipWelcome', 'true']]))}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      const exited = new Promise((r) => child.once('exit', r));
      try {
        process.kill(-child.pid!, 'SIGTERM'); // code-server never exits by itself: end its whole group
      } catch {
        /* gone */
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      if (!process.env.KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(env: NodeJS.ProcessEnv): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    env,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-gpu',
      '--disable-quic',
    ],
  });
}

/** Messages the workbench logs that mean nothing offline. */
export const OFFLINE_NOISE =
  /AgentHost|ChatModelSelection|AccountPolicyGate|open-vsx\.org|authentication provider 'github'|Creating a socket|connection token|Service Worker|grace time|builtin extensions cache|vsda|ENOTFOUND|marketplace/i;

export async function newWorkbenchPage(browser: Browser): Promise<Page> {
  return browser.newPage({ viewport: { width: 1400, height: 860 } });
}
