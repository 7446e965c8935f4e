import { describe, expect, test } from 'bun:test';
import { buildSystemPrompt } from '../../../../src/services/chat/system-prompt';

describe('system prompt', () => {
  test('agent mode announces the directory and the restriction; chat mode does not', () => {
    const agent = buildSystemPrompt({
      mode: 'agent',
      workingDirectory: '/srv/app',
      restrictToWorkingDirectory: true,
    });
    expect(agent).toContain('/srv/app');
    expect(agent).toContain('restricted to this directory');
    const open = buildSystemPrompt({
      mode: 'agent',
      workingDirectory: '/srv/app',
      restrictToWorkingDirectory: false,
    });
    expect(open).toContain('not restricted');
    expect(
      buildSystemPrompt({
        mode: 'chat',
        workingDirectory: '/srv/app',
        restrictToWorkingDirectory: true,
      }),
    ).toBeUndefined();
    expect(buildSystemPrompt({ mode: 'agent', restrictToWorkingDirectory: true })).toContain(
      'No working directory',
    );
  });
});
