// An esbuild plugin that fails the build when a file under the core directory imports `vscode` or
// reaches outside the core with a relative import (ARCHITECTURE.md, "Layers": src/core stays VS-Code-free).
import path from 'node:path';

export function layeringPlugin(coreDir) {
  const core = path.resolve(coreDir) + path.sep;
  return {
    name: 'layering',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (!args.importer.startsWith(core)) return undefined;
        const bad =
          args.path === 'vscode' || args.path.startsWith('vscode/')
            ? `imports 'vscode'`
            : args.path.startsWith('.') && !(path.resolve(args.resolveDir, args.path) + path.sep).startsWith(core)
              ? `imports '${args.path}' from outside src/core`
              : undefined;
        return bad ? { errors: [{ text: `${args.importer} ${bad}: the core must stay VS-Code-free (ARCHITECTURE.md, "Layers")` }] } : undefined;
      });
    },
  };
}
