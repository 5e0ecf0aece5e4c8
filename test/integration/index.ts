// Entry point the extension host loads (extensionTestsPath): runs every *.test.js beside this file
// with mocha and prints the plain `N passed, N failed` line the runner reads.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60000, color: false, reporter: 'spec' });
  for (const f of fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort())
    mocha.addFile(path.join(__dirname, f));
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const passed = runner.stats?.passes ?? 0;
      console.log(`${passed} passed, ${failures} failed`);
      // Runners that cannot read the extension host's console (desktop VS Code) read this file.
      const out = process.env.SATLUTION_TEST_RESULTS;
      if (out) fs.writeFileSync(out, JSON.stringify({ passed, failed: failures }));
      if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    });
  });
}
