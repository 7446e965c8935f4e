/**
 * The "Adding a tool" recipe (docs/adding-a-tool.md) must work as written: its
 * example file is copied into a throw-away built-in, imported in a separate Bun
 * process next to the real tool layer, and called through executeTool.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docSection, REPO_ROOT } from '../support/markdown-docs';

const repoRoot = REPO_ROOT;
const toolsDir = join(repoRoot, 'apps/api/src/services/tools');
const scratch = mkdtempSync(join(tmpdir(), 'mango-readme-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function readmeExample(): string {
  const section = docSection('docs/adding-a-tool.md', '## The example');
  const match = section.match(/```ts\n([\s\S]*?)```/);
  if (!match?.[1]) throw new Error('docs/adding-a-tool.md "The example" has no ts code block');
  return match[1];
}

describe('README: Adding a tool', () => {
  test('the example registers a tool that runs through executeTool', async () => {
    const source = readmeExample().replaceAll("from '../", `from '${toolsDir}/`);
    writeFileSync(join(scratch, 'word-count.ts'), source);
    writeFileSync(
      join(scratch, 'run.ts'),
      `import '${toolsDir}/index.ts';
import './word-count.ts';
import { executeTool, getTool, createMemoryFreshnessLedger, ToolError } from '${toolsDir}/index.ts';
const context = { userId: 'u', chatId: 'c', mode: 'chat' as const, restrictToWorkingDirectory: false, freshness: createMemoryFreshnessLedger() };
const ok = await executeTool('word_count', { text: 'one two three', minWordLength: null }, context, { parameters: { maxWords: 2 } });
let rejected: unknown;
try { await executeTool('word_count', { text: 7 }, context); } catch (error) { rejected = error instanceof ToolError ? error.code : String(error); }
console.log(JSON.stringify({ ok, rejected, category: getTool('word_count')?.settings.category }));
`,
    );
    const child = Bun.spawn([process.execPath, 'run', join(scratch, 'run.ts')], {
      cwd: repoRoot,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect(stderr).toBe('');
    expect(exitCode).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      ok: { words: 2, capped: true },
      rejected: 'validation_failed',
      category: 'interaction',
    });
  });
});
