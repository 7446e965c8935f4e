import { describe, expect, test } from 'bun:test';
import {
  exposedToolName,
  exposedToolNames,
  slugFromName,
} from '../../../../src/services/mcp/mcp-tool-names';

const PORTABLE = /^[A-Za-z0-9_-]{1,64}$/;

describe('MCP tool names', () => {
  test('mcp__<slug>__<tool> when it fits', () => {
    expect(exposedToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
  });

  test('characters providers refuse are replaced', () => {
    expect(exposedToolName('fs', 'files.read')).toBe('mcp__fs__files_read');
    expect(exposedToolName('fs', 'läs fil')).toMatch(PORTABLE);
  });

  test('a name over 64 characters keeps its start and ends in a stable hash', () => {
    const long = `tool_${'x'.repeat(95)}`;
    const exposed = exposedToolName('server', long);
    expect(exposed).toHaveLength(64);
    expect(exposed).toMatch(PORTABLE);
    expect(exposed.startsWith('mcp__server__tool_xxx')).toBe(true);
    // The same on every listing, reconnect and restart; another tool gets another name.
    expect(exposedToolName('server', long)).toBe(exposed);
    expect(exposedToolName('server', `${long}y`)).not.toBe(exposed);
    expect(exposedToolName('other', long)).not.toBe(exposed);
  });

  test('two tools that sanitise alike are told apart, whatever the order', () => {
    const forward = exposedToolNames('s', ['a.b', 'a_b']);
    const backward = exposedToolNames('s', ['a_b', 'a.b']);
    expect(forward.get('a_b')).toBe('mcp__s__a_b');
    expect(forward.get('a.b')).not.toBe('mcp__s__a_b');
    expect(forward.get('a.b')).toMatch(PORTABLE);
    expect(backward).toEqual(forward);
  });

  test('slugs from names', () => {
    expect(slugFromName('GitHub Issues')).toBe('github-issues');
    expect(slugFromName('Café Notes!')).toBe('cafe-notes');
    expect(slugFromName('***')).toBe('server');
    expect(slugFromName('x'.repeat(80))).toHaveLength(40);
  });
});
