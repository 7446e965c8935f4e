/** Starts the API server with the production dependencies. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureWebBuild } from '@mango/web/build';
import { type AppDependencies, createApp, createAppServices } from './app';
import { resolveAuthSecret } from './auth/auth-secret';
import { createAuth } from './auth/create-auth';
import { ConfigError, loadServerConfig } from './config';
import { openDatabase } from './db/database';
import { migrateToLatest } from './db/migrate';
import { createLogger } from './logger';
import { protectServerProcess } from './process-protection';
import { withWebUi } from './routes/web-ui';
import { startServer } from './server';
import { createDatabaseRunningTurns } from './services/chat/running-turns';
import { createDatabaseImageStore } from './services/images/database-image-store';
import { createDirectoryImageBytes } from './services/images/directory-image-bytes';
import {
  createImageModelRegistry,
  type ImageModelName,
  imageModelEntries,
  loadImageModelNames,
} from './services/providers/image-model-registry';
import { createModelCatalog } from './services/providers/model-catalog';
import {
  loadConfiguredModels,
  loadProvidersConfig,
  ProviderConfigError,
} from './services/providers/provider-config';
import { createProviderRegistry, prepareProviders } from './services/providers/provider-registry';
import {
  createBuiltinToolSource,
  createGenerateImageTool,
  createToolCatalog,
  defaultToolRegistry,
} from './services/tools';
import {
  isSecretShapedName,
  isServerConfigurationName,
} from './services/tools/builtin/shell/shell-environment';
import { sweepOrphanedShellProcesses } from './services/tools/builtin/shell/shell-guard';

/** How often a running server looks for shell processes of servers that are gone. */
const ORPHAN_SWEEP_INTERVAL_MS = 60_000;

/**
 * The UI is built into apps/web/dist; when the checkout cannot be written (a read-only install),
 * into the data directory instead.
 */
async function buildWebUi(dataDir: string, logger: ReturnType<typeof createLogger>) {
  try {
    return await ensureWebBuild();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM') throw error;
    logger.warn('the web UI cannot be built in the checkout; building it in the data directory', {
      code,
    });
    return ensureWebBuild({ directory: join(dataDir, 'web-ui') });
  }
}

async function main(): Promise<void> {
  let config: ReturnType<typeof loadServerConfig>;
  let authSecret: string;
  let providersConfig: ReturnType<typeof loadProvidersConfig>;
  let configuredModels: ReturnType<typeof loadConfiguredModels>;
  let imageModelNames: ImageModelName[];
  try {
    config = loadServerConfig();
    providersConfig = loadProvidersConfig();
    configuredModels = loadConfiguredModels(providersConfig);
    imageModelNames = loadImageModelNames();
    authSecret = resolveAuthSecret(config.authSecret, config.dataDir);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ProviderConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel });
  // The configuration is read: the start-up environment's secrets leave the server's
  // environment block, and the process becomes non-dumpable (docs/security.md#the-servers-secrets).
  const protection = await protectServerProcess(
    (name) => isServerConfigurationName(name) || isSecretShapedName(name),
  );
  if (protection.problems.length > 0)
    logger.warn('the start-up environment is not fully protected', {
      problems: protection.problems,
    });
  else
    logger.info('start-up environment protected', {
      scrubbed: protection.scrubbed,
      nonDumpable: protection.nonDumpable,
    });
  const database = openDatabase(config.database, { logger, checkpointInBackground: true });
  const applied = await migrateToLatest(database);
  logger.info('database ready', {
    database: database.kind,
    ...(database.kind === 'sqlite' && config.database.kind === 'sqlite'
      ? { file: config.database.path }
      : {}),
    migrationsApplied: applied,
  });
  const auth = createAuth({
    database,
    secret: authSecret,
    allowSignup: config.allowSignup,
    attemptsPerMinute: config.authAttemptsPerMinute,
    trustedProxies: config.trustedProxies,
    ...(config.publicUrl ? { baseURL: config.publicUrl } : {}),
    logger,
  });
  const providers = createProviderRegistry(providersConfig);
  logger.info('model providers', { offered: providers.offered() });
  const imageModels = createImageModelRegistry(imageModelNames, providersConfig);
  const models = createModelCatalog({
    providers,
    // Image models are listed with kind `image` beside the chat models.
    additional: [...configuredModels, ...imageModelEntries(imageModels)],
    logger,
  });
  // Shell processes of a server that died (killed, crashed) die now, and whatever another
  // server on this machine leaves when it dies, within a minute (docs/tools/shell.md#when-the-server-dies).
  const sweepOrphans = () => {
    const orphans = sweepOrphanedShellProcesses();
    if (orphans.length > 0)
      logger.warn('killed the shell processes a server that is gone left running', {
        pids: orphans,
      });
  };
  sweepOrphans();
  setInterval(sweepOrphans, ORPHAN_SWEEP_INTERVAL_MS).unref();
  const runningTurns = createDatabaseRunningTurns(database, { instanceId: config.instanceId });
  // Chats this instance held when it last stopped without freeing them (a crash) are free now.
  const released = await runningTurns.releaseLeftovers();
  if (released > 0)
    logger.warn('released the turn claims of an earlier run that did not stop cleanly', {
      instanceId: config.instanceId,
      chats: released,
    });
  logger.info('image models', {
    offered: imageModels.list().map((model) => model.name),
    ...(imageModels.unconfigured().length > 0
      ? { notOffered: imageModels.unconfigured().map((model) => model.name) }
      : {}),
  });
  const images = createDatabaseImageStore(database, Date.now, {
    ...(config.imageStore === 'directory'
      ? { bytes: createDirectoryImageBytes(join(config.dataDir, 'images')) }
      : {}),
  });
  if (config.imageStore === 'directory') {
    const swept = await images.sweep?.();
    logger.info('images kept in the data directory', {
      directory: join(config.dataDir, 'images'),
      swept,
    });
  }
  // The built-ins registered themselves into the default registry on import (services/tools);
  // generate_image needs the image models and the images store, so it is built here.
  defaultToolRegistry.register(createGenerateImageTool({ models: imageModels, images }));
  const tools = createToolCatalog([createBuiltinToolSource(defaultToolRegistry)]);
  const deps: AppDependencies = {
    database,
    auth,
    tools,
    providers,
    models,
    runningTurns,
    turnLimits: config.turnLimits,
    trustedOrigins: [...(config.publicUrl ? [config.publicUrl] : []), ...config.trustedOrigins],
    images,
    // No tool may read or change the server's own files (database, auth secret, images, .env).
    protectedPaths: [config.dataDir, ...(existsSync(resolve('.env')) ? [resolve('.env')] : [])],
    turnTimeLimits: {
      turnTimeoutMs: config.turnTimeoutSeconds * 1000,
      providerIdleTimeoutMs: config.providerIdleTimeoutSeconds * 1000,
    },
    mcp: config.mcp,
    logger,
  };
  const services = createAppServices(deps);
  const app = createApp(deps, services);
  // The web UI is built here when its sources changed (a few ms when they did not); a failed
  // build stops the start with the bundler's messages rather than serving a stale UI.
  const web = await buildWebUi(config.dataDir, logger);
  logger.info(web.built ? 'web UI built' : 'web UI up to date', {
    directory: web.directory,
    durationMs: Math.round(web.durationMs),
  });
  const server = startServer({
    app: withWebUi(app, web.directory),
    database,
    logger,
    host: config.host,
    port: config.port,
  });
  const shutdown = async (signal: string) => {
    logger.info('shutting down: finishing requests in flight, then closing the database', {
      signal,
    });
    // Running turns end now (stored, with `done: cancelled`) rather than being cut at the grace period.
    const cancelled = await services.turns.shutdown();
    if (cancelled > 0) logger.info('cancelled running chat turns', { turns: cancelled });
    // MCP servers are stopped (stdio) and their sessions ended (http).
    await services.mcpConnections.closeAll();
    await server.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  // Announced only once a stop signal is handled: whoever waits for this line may stop us at once.
  logger.info(`MangoStudio API listening on ${server.url}`, { url: server.url });
  // The offered providers' SDKs load once the server answers (not before: a start is quicker
  // without them), so the first turn does not wait; those of other providers never load.
  void prepareProviders(providers).then((failed) => {
    if (failed.length > 0)
      logger.warn('could not load the SDK of some providers; their first turn tries again', {
        providers: failed,
      });
  });
}

main().catch((error: unknown) => {
  console.error(
    `MangoStudio could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
