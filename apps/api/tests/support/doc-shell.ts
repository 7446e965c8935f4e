/**
 * Runs a doc's `sh` block as a reader would paste it (test support): the first
 * block under a heading, in bash with `-euo pipefail`, against a server whose
 * URL is in `$MANGO`.
 */
import { docSection } from './markdown-docs';

export function docShellBlock(doc: string, heading: string): string {
  const block = docSection(doc, heading).match(/```sh\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error(`No sh block under "${heading}" in ${doc}.`);
  return block;
}

export async function runDocShellBlock(
  block: string,
  options: { cwd: string; serverUrl: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = Bun.spawn(['bash', '-euo', 'pipefail', '-c', block], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', MANGO: options.serverUrl },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ]);
  return { code, stdout, stderr };
}
