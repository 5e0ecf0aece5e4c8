// Notices changes to what the status shows (the config, the store's index, candidate directories and
// their documents) without watching whole solver trees: kissat alone has hundreds of files.
import * as path from 'node:path';
import { watch } from 'chokidar';
import { CONFIG_FILE, parseCandidateDir, STATE_DIR } from '../layout';

/** A running watch; changes before `ready` resolves may go unreported. */
export interface WorkspaceWatcher {
  /** Resolves once the watcher has scanned the workspace: from then on no change is missed. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export function watchWorkspace(dir: string, onChange: () => void, debounceMs = 250): WorkspaceWatcher {
  const relevant = (p: string): boolean => {
    const parts = path.relative(dir, p).split(path.sep);
    if (parts[0] === '') return true;
    if (parts.length === 1) return parts[0] === CONFIG_FILE || parts[0] === STATE_DIR || parseCandidateDir(parts[0]!) !== undefined;
    if (parts[0] === STATE_DIR) return parts.length === 2 && parts[1] === 'candidates.json';
    return parseCandidateDir(parts[0]!) !== undefined && parts.length === 2 && parts[1]!.endsWith('.md');
  };
  let timer: NodeJS.Timeout | undefined;
  const w = watch(dir, { ignoreInitial: true, depth: 1, ignored: (p) => !relevant(p) });
  w.on('all', () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs); // a cycle touches many files at once
  });
  const ready = new Promise<void>((resolve) => w.once('ready', () => resolve()));
  return {
    ready,
    async close() {
      clearTimeout(timer);
      await w.close();
    },
  };
}
