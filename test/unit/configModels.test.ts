// "Configure Models" writes models.<role> into satlution.yaml: the template's `models: {}` becomes a
// block, a role already set is replaced, every other byte stays, and an invalid result is refused.
import * as assert from 'node:assert/strict';
import { withModels } from '../../src/core/config/edit';
import { parseConfig } from '../../src/core/config/load';
import { renderConfig } from '../../src/core/config/template';

const template = renderConfig({
  seeds: [{ name: 'kissat', source: '/src/kissat', primary: false }],
  benchmarks: { smoke: 'benchmarks/smoke', verify: 'benchmarks/verify', perf: 'benchmarks/perf' },
  jobs: 2,
});
const parsed = (text: string) => {
  const r = parseConfig(text);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.issues));
  return r.config;
};

describe('configure models', () => {
  it("turns the template's models: {} into a block, and keeps every other line", () => {
    const out = withModels(template, ['planner', 'coder'], { provider: 'anthropic', model: 'claude-sonnet-4-5' });
    const c = parsed(out);
    assert.deepEqual(
      [c.models.planner?.provider, c.models.planner?.model, c.models.coder?.model, c.models.judge],
      ['anthropic', 'claude-sonnet-4-5', 'claude-sonnet-4-5', undefined],
    );
    assert.match(
      out,
      /^models:\n {2}planner: \{ provider: anthropic, model: claude-sonnet-4-5 \}\n {2}coder: \{ provider: anthropic, model: claude-sonnet-4-5 \}\n#/m,
    );
    // Only the models lines differ.
    const removed = template.split('\n').filter((l) => !out.split('\n').includes(l));
    assert.deepEqual(removed, ['models: {}']);
  });

  it('replaces a role already set, adds a missing one, and quotes what YAML needs quoted', () => {
    const once = withModels(template, ['planner'], { provider: 'openai', model: 'gpt-5' });
    const twice = withModels(once, ['planner', 'judge'], { provider: 'openai-compatible', model: 'qwen2.5-coder:32b', base_url: 'http://localhost:11434/v1' });
    const c = parsed(twice);
    assert.deepEqual(
      [c.models.planner?.provider, c.models.planner?.model, c.models.planner?.base_url, c.models.judge?.model],
      ['openai-compatible', 'qwen2.5-coder:32b', 'http://localhost:11434/v1', 'qwen2.5-coder:32b'],
    );
    assert.equal((twice.match(/^ {2}planner:/gm) ?? []).length, 1, 'the old planner line is replaced, not duplicated');
    const odd = withModels(template, ['coder'], { provider: 'anthropic', model: 'model with # hash' });
    assert.equal(parsed(odd).models.coder?.model, 'model with # hash');
  });

  it('refuses what would not be a valid config, and a YAML error', () => {
    assert.throws(() => withModels(template, ['coder'], { provider: 'openai-compatible', model: 'm' }), /base_url|would not be valid/);
    assert.throws(() => withModels('models: [\n', ['coder'], { provider: 'openai', model: 'm' }), /YAML error/);
  });
});
