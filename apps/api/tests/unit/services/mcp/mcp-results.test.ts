import { describe, expect, test } from 'bun:test';
import { toToolResult } from '../../../../src/services/mcp/mcp-results';
import { ToolExecutionError } from '../../../../src/services/tools/errors';
import { createTestToolContext } from '../../../support/tool-context';

const context = createTestToolContext({ toolCallId: 'call_1' });

describe('an MCP answer as the model reads it', () => {
  test('text parts joined; resources as their text; links and blobs summarised', async () => {
    const result = await toToolResult(
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside a' } },
          {
            type: 'resource',
            resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/octet-stream' },
          },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        ],
      },
      context,
      { serverName: 'S' },
    );
    expect(result).toEqual({
      output:
        'first\n[resource file:///a.txt]\ninside a\n[resource file:///b.bin (application/octet-stream, 3 bytes) not shown]\n[resource link: c <file:///c>]\n[audio (audio/wav, 3 bytes) not shown]',
    });
  });

  test('structured content stands in only when there is no content', async () => {
    expect(
      await toToolResult({ content: [], structuredContent: { n: 1 } }, context, {
        serverName: 'S',
      }),
    ).toEqual({
      output: '{"n":1}',
    });
  });

  test('a long answer is capped with a visible marker', async () => {
    const result = (await toToolResult(
      { content: [{ type: 'text', text: 'z'.repeat(5_000) }] },
      context,
      { serverName: 'S', maxBytes: 1_000 },
    )) as { output: string; truncated: boolean; droppedBytes: number };
    expect(result.truncated).toBe(true);
    expect(result.droppedBytes).toBe(4_000);
    expect(result.output).toContain('4000 bytes of the result dropped');
    expect(result.output.length).toBeLessThan(1_200);
  });

  test('isError is an execution_failed error carrying the text', async () => {
    let thrown: unknown;
    try {
      await toToolResult(
        { isError: true, content: [{ type: 'text', text: 'no such issue' }] },
        context,
        {
          serverName: 'GitHub',
        },
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ToolExecutionError);
    expect((thrown as ToolExecutionError).code).toBe('execution_failed');
    expect((thrown as ToolExecutionError).message).toContain(
      'GitHub reported an error: no such issue',
    );
  });
});
