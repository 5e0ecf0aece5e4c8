// The environment candidate code gets: an allow-list, never the caller's whole environment, so API
// keys, SSH_AUTH_SOCK, VS Code's variables and cloud credentials never reach a build or a solver.

/** Variables passed through when the person set them: locale, and for builds the toolchain's knobs. */
const PASS_ALWAYS = ['LANG', 'LC_ALL', 'TZ'] as const;
const PASS_BUILD = ['CC', 'CXX', 'CFLAGS', 'CXXFLAGS', 'CPPFLAGS', 'LDFLAGS', 'MAKEFLAGS'] as const;

/** A PATH that finds the system's tools (the caller's PATH may point into a home directory the sandbox hides). */
export const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin';

/** The environment of a build or a run: PATH, locale, a private HOME and TMPDIR, and the build knobs for builds. */
export function allowedEnvironment(o: { home: string; tmp: string; build: boolean; from?: NodeJS.ProcessEnv }): Record<string, string> {
  const from = o.from ?? process.env;
  const env: Record<string, string> = { PATH: SYSTEM_PATH, HOME: o.home, TMPDIR: o.tmp, LANG: 'C.UTF-8' };
  for (const k of [...PASS_ALWAYS, ...(o.build ? PASS_BUILD : [])]) {
    const v = from[k];
    if (v !== undefined && v !== '') env[k] = v;
  }
  return env;
}
