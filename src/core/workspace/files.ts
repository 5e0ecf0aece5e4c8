// Walking a candidate's tree: every regular file below it, as sorted '/'-separated relative paths,
// without version-control, dependency and SATLUTION state folders.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

const SKIP_DIRS = new Set(['.git', 'node_modules', '.satlution']);

export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(path.join(d, e.name));
      } else if (e.isFile()) out.push(path.relative(dir, path.join(d, e.name)).split(path.sep).join('/'));
    }
  };
  await walk(dir);
  return out.sort();
}
