import { expect, test } from 'bun:test';
import { openDatabase } from '../../../../src/db/database';
import { createToolRegistry } from '../../../../src/services/tools/registry';
import { createBuiltinToolSource } from '../../../../src/services/tools/sources/builtin-tool-source';
import { createToolCatalog } from '../../../../src/services/tools/sources/tool-catalog';
import { createToolSettingsRepository } from '../../../../src/services/tools/tool-settings-repository';
import { createToolSettingsService } from '../../../../src/services/tools/tool-settings-service';
import type { HostAccess, RegisteredTool } from '../../../../src/services/tools/types';
import { alwaysOnProbeTool, switchableProbeTool } from '../../../support/probe-tools';
import { createEchoTool } from '../../../support/static-tool-source';
import { describeEachDatabase } from '../../../support/test-databases';
import { insertTestUser } from '../../../support/test-rows';
import { waitUntil } from '../../../support/wait-until';

const registry = createToolRegistry();
registry.register(switchableProbeTool);
registry.register(alwaysOnProbeTool);

describeEachDatabase('tool settings service', (_kind, current) => {
  const serviceFor = (database = current().database) =>
    createToolSettingsService({
      catalog: createToolCatalog([createBuiltinToolSource(registry)]),
      repository: createToolSettingsRepository(database),
      changes: database.changes,
    });

  test('an unchanged list is served as the same array; a change gives a new one', async () => {
    const userId = await insertTestUser(current().database);
    const service = serviceFor();
    const first = await service.listToolSettings(userId);
    expect(await service.listToolSettings(userId)).toBe(first);
    await service.updateToolSettings(userId, 'switchable_probe', { parameters: { limit: 3 } });
    const after = await service.listToolSettings(userId);
    expect(after).not.toBe(first);
    expect(after.find((tool) => tool.name === 'switchable_probe')?.parameters.limit).toBe(3);
  });

  test("requests that miss a user's list together share one read of the rows", async () => {
    const { database } = current();
    const userId = await insertTestUser(database);
    await serviceFor().updateToolSettings(userId, 'switchable_probe', { parameters: { limit: 4 } });
    const repository = createToolSettingsRepository(database);
    let reads = 0;
    const service = createToolSettingsService({
      catalog: createToolCatalog([createBuiltinToolSource(registry)]),
      repository: {
        ...repository,
        listForUser: (id) => {
          reads += 1;
          return repository.listForUser(id);
        },
      },
      changes: database.changes,
    });
    expect(await waitUntil(() => database.changes.isLive(), 5_000)).toBe(true);
    const lists = await Promise.all(
      Array.from({ length: 20 }, () => service.listToolSettings(userId)),
    );
    expect(reads).toBe(1);
    expect(lists[0]?.find((tool) => tool.name === 'switchable_probe')?.parameters.limit).toBe(4);
    // All of them the same array, so its JSON is made once.
    expect(new Set(lists).size).toBe(1);
  });

  test('a change made through another instance is seen by this one', async () => {
    const { config, database } = current();
    const userId = await insertTestUser(database);
    const here = serviceFor();
    const otherDatabase = openDatabase(config);
    try {
      const there = serviceFor(otherDatabase);
      expect(
        await waitUntil(
          async () => database.changes.isLive() && otherDatabase.changes.isLive(),
          5_000,
        ),
      ).toBe(true);
      const limitHere = async () =>
        (await here.listToolSettings(userId)).find((tool) => tool.name === 'switchable_probe')
          ?.parameters.limit;
      expect(await limitHere()).toBe(10);
      expect(await limitHere()).toBe(10);
      await there.updateToolSettings(userId, 'switchable_probe', { parameters: { limit: 77 } });
      expect(await waitUntil(async () => (await limitHere()) === 77, 5_000)).toBe(true);
      await there.updateToolSettings(userId, 'switchable_probe', { enabled: false });
      expect(
        await waitUntil(
          async () =>
            (await here.listToolSettings(userId)).some(
              (tool) => tool.name === 'switchable_probe' && !tool.enabled,
            ),
          5_000,
        ),
      ).toBe(true);
    } finally {
      await otherDatabase.close();
    }
  });

  test('getEnabledToolRuntime reads the user settings from the database', async () => {
    const userId = await insertTestUser(current().database);
    const service = serviceFor();
    await service.updateToolSettings(userId, 'switchable_probe', { enabled: false });
    const runtime = await service.getEnabledToolRuntime(userId);
    expect(runtime.definitions.map((definition) => definition.name)).toEqual(['always_on_probe']);
    expect(runtime.settings.get('switchable_probe')).toEqual({
      enabled: false,
      parameters: { limit: 10, mode: 'fast' },
    });
  });

  test('the host access known in memory is used without asking for it; otherwise it is read', async () => {
    const userId = await insertTestUser(current().database);
    const hostProbe: RegisteredTool = {
      ...createEchoTool('host_probe'),
      unavailableReason: (scope) =>
        scope.hostAccess?.kind === 'granted' ? 'Only for the admin.' : undefined,
    };
    const withHostProbe = createToolRegistry();
    withHostProbe.register(hostProbe);
    let reads = 0;
    let inMemory: HostAccess | undefined;
    const service = createToolSettingsService({
      catalog: createToolCatalog([createBuiltinToolSource(withHostProbe)]),
      repository: createToolSettingsRepository(current().database),
      changes: current().database.changes,
      hostAccess: async () => {
        reads += 1;
        return { kind: 'granted', roots: [] };
      },
      knownHostAccess: () => inMemory,
    });
    const reasonOf = async () => (await service.listToolSettings(userId))[0]?.unavailableReason;
    expect(await reasonOf()).toBe('Only for the admin.');
    expect(reads).toBe(1);
    inMemory = { kind: 'admin' };
    expect(await reasonOf()).toBeUndefined();
    expect(await reasonOf()).toBeUndefined();
    expect(reads).toBe(1);
    inMemory = undefined;
    expect(await reasonOf()).toBe('Only for the admin.');
    expect(reads).toBe(2);
  });
});
