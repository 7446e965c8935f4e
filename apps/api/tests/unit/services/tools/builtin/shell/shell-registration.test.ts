import { describe, expect, test } from 'bun:test';
import {
  createToolRegistry,
  getDefaultToolSettings,
  listTools,
  registerAvailableShellTools,
} from '../../../../../../src/services/tools';
import { findShellInterpreter } from '../../../../../../src/services/tools/builtin/shell/shell-interpreters';

/** A lookup that knows only the given executables. */
function lookup(known: Record<string, string>) {
  return (command: string): string | null => known[command] ?? null;
}

function registeredNames(platform: NodeJS.Platform, known: Record<string, string>): string[] {
  const registry = createToolRegistry();
  registerAvailableShellTools(registry, { platform, which: lookup(known) });
  return listTools(registry).map((tool) => tool.definition.name);
}

describe('shell tool registration', () => {
  test('bash and zsh are registered when their interpreters are found', () => {
    expect(registeredNames('linux', { bash: '/bin/bash', zsh: '/bin/zsh' })).toEqual([
      'bash',
      'zsh',
    ]);
  });

  test('an absent zsh is never registered, so it never reaches listTools()', () => {
    expect(registeredNames('linux', { bash: '/bin/bash' })).toEqual(['bash']);
    expect(registeredNames('darwin', {})).toEqual([]);
  });

  test('powershell is never offered off Windows, even when pwsh is installed', () => {
    const names = registeredNames('linux', { bash: '/bin/bash', pwsh: '/usr/bin/pwsh' });
    expect(names).toEqual(['bash']);
  });

  test('on Windows powershell prefers pwsh, then Windows PowerShell', () => {
    const both = { pwsh: 'C:\\pwsh\\pwsh.exe', powershell: 'C:\\Windows\\powershell.exe' };
    expect(
      findShellInterpreter('powershell', { platform: 'win32', which: lookup(both) })?.executable,
    ).toBe('C:\\pwsh\\pwsh.exe');
    const legacy = { powershell: 'C:\\Windows\\powershell.exe' };
    expect(
      findShellInterpreter('powershell', { platform: 'win32', which: lookup(legacy) })?.executable,
    ).toBe('C:\\Windows\\powershell.exe');
    expect(registeredNames('win32', legacy)).toEqual(['powershell']);
    expect(registeredNames('win32', {})).toEqual([]);
  });

  test('interpreters are invoked as docs/tools/shell.md#shell-tools says', () => {
    const bash = findShellInterpreter('bash', { platform: 'linux', which: lookup({ bash: '/b' }) });
    expect(bash?.commandArguments('echo hi')).toEqual(['-c', 'echo hi']);
    const powershell = findShellInterpreter('powershell', {
      platform: 'win32',
      which: lookup({ pwsh: 'pwsh.exe' }),
    });
    expect(powershell?.commandArguments('Get-Date')).toEqual([
      '-NoProfile',
      '-NonInteractive',
      '-Command',
      'Get-Date',
    ]);
  });

  test('the default registry holds exactly the shells this machine has', () => {
    const names = listTools().map((tool) => tool.definition.name);
    expect(names.includes('bash')).toBe(Bun.which('bash') !== null);
    expect(names.includes('zsh')).toBe(Bun.which('zsh') !== null);
    expect(names.includes('powershell')).toBe(false);
  });

  test('shell tools are disabled by default with the documented settings', () => {
    const registry = createToolRegistry();
    registerAvailableShellTools(registry, {
      platform: 'linux',
      which: lookup({ bash: '/bin/bash' }),
    });
    const [tool] = listTools(registry);
    expect(tool?.settings.enabledByDefault).toBe(false);
    expect(tool?.settings.category).toBe('system');
    expect(getDefaultToolSettings(tool as NonNullable<typeof tool>)).toEqual({
      enabled: false,
      parameters: {
        timeoutSeconds: 30,
        maxOutputBytes: 102400,
        allowedEnvVars: [],
        deniedEnvVars: [],
        sandbox: true,
      },
    });
    const timeout = tool?.settings.parameterDescriptors.find(
      (item) => item.name === 'timeoutSeconds',
    );
    expect([timeout?.min, timeout?.max]).toEqual([5, 600]);
    const cap = tool?.settings.parameterDescriptors.find((item) => item.name === 'maxOutputBytes');
    expect([cap?.min, cap?.max]).toEqual([1024, 1048576]);
  });
});
