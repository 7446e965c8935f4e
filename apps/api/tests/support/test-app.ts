/**
 * A real server for route tests: `createApp` with real accounts (better-auth)
 * on a test database, listening on a free loopback port, plus helpers to sign
 * users up and call routes as them.
 */
import {
  type AppDependencies,
  type AppServices,
  createApp,
  createAppServices,
} from '../../src/app';
import { type AuthService, createAuth } from '../../src/auth/create-auth';
import type { AppDatabase } from '../../src/db/database';
import { type Logger, silentLogger } from '../../src/logger';
import { withWebUi } from '../../src/routes/web-ui';
import { type RunningServer, startServer } from '../../src/server';
import {
  createDatabaseRunningTurns,
  type RunningTurns,
} from '../../src/services/chat/running-turns';
import type { TurnLimits } from '../../src/services/chat/turn-rate-limit';
import { createDatabaseImageStore } from '../../src/services/images/database-image-store';
import { createDirectoryImageBytes } from '../../src/services/images/directory-image-bytes';
import {
  type ImageModelRegistry,
  imageModelEntries,
} from '../../src/services/providers/image-model-registry';
import { createModelCatalog, type ModelCatalog } from '../../src/services/providers/model-catalog';
import {
  createProviderRegistry,
  type ProviderRegistry,
} from '../../src/services/providers/provider-registry';
import {
  createBuiltinToolSource,
  createGenerateImageTool,
  createToolCatalog,
  createToolRegistry,
  defaultToolRegistry,
  type RegisteredTool,
  type ToolRegistry,
  type ToolSource,
} from '../../src/services/tools';

export const TEST_AUTH_SECRET = 'test-secret-test-secret-test-secret-0123';
export const TEST_PASSWORD = 'correct horse battery staple';

export interface TestUser {
  id: string;
  email: string;
  /** `Cookie` header value carrying the session. */
  cookie: string;
}

export interface TestApp {
  url: string;
  auth: AuthService;
  services: AppServices;
  server: RunningServer;
  /** Signs up (and so signs in) a new user. */
  signUp(email?: string): Promise<TestUser>;
  /** Calls a route, as `user` when given (session cookie) or with the given headers. */
  fetch(path: string, init?: RequestInit & { user?: TestUser }): Promise<Response>;
  stop(): Promise<void>;
}

export interface TestAppOptions {
  allowSignup?: boolean;
  /** The built-in tools offered (default: the server's built-ins). */
  toolRegistry?: ToolRegistry;
  /** Tool sources offered after the built-ins (as MCP servers are). */
  toolSources?: ToolSource[];
  protectedPaths?: readonly string[];
  /** Where the app logs (nowhere by default). */
  logger?: Logger;
  /** The server's idle timeout for ordinary requests (production's by default). */
  idleTimeoutSeconds?: number;
  providers?: ProviderRegistry;
  /**
   * The image models offered; when given (and no `toolRegistry`), the built-ins
   * are offered with generate_image on them, as the production server does.
   */
  imageModels?: ImageModelRegistry;
  /** Tools offered after the built-ins (and generate_image), when no `toolRegistry` is given. */
  extraTools?: RegisteredTool[];
  /** Keep image bytes in this directory instead of the database (`MANGO_IMAGE_STORE=directory`). */
  imageDirectory?: string;
  /** The model catalog (default: the providers' own lists, nothing configured). */
  models?: ModelCatalog;
  runningTurns?: RunningTurns;
  /** A turn's time limits (production's defaults without). */
  turnTimeLimits?: AppDependencies['turnTimeLimits'];
  /** Per-user turn limits (none by default). */
  turnLimits?: TurnLimits;
  /** Sign-in and sign-up attempts per address and minute (default: high enough never to trip). */
  authAttemptsPerMinute?: number;
  trustedProxies?: readonly string[];
  /** Serve the built web UI from this directory beside the API (`ensureWebBuild()` first). */
  webDirectory?: string;
  /** MCP rules and budgets (production's defaults without; tests usually allow private URLs). */
  mcp?: AppDependencies['mcp'];
  /** Origins besides the server's own that may change things with a session cookie. */
  trustedOrigins?: readonly string[];
  now?: () => number;
}

let emailCounter = 0;

/** `name=value` pairs of every Set-Cookie header, ready for a Cookie header. */
export function cookieFrom(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

export function startTestApp(database: AppDatabase, options: TestAppOptions = {}): TestApp {
  const providers = options.providers ?? createProviderRegistry({});
  const logger = options.logger ?? silentLogger;
  const auth = createAuth({
    database,
    secret: TEST_AUTH_SECRET,
    allowSignup: options.allowSignup ?? true,
    logger,
    attemptsPerMinute: options.authAttemptsPerMinute ?? 100_000,
    ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
  });
  const images = createDatabaseImageStore(database, options.now, {
    ...(options.imageDirectory ? { bytes: createDirectoryImageBytes(options.imageDirectory) } : {}),
  });
  let registry = options.toolRegistry ?? defaultToolRegistry;
  if ((options.imageModels || options.extraTools) && !options.toolRegistry) {
    registry = createToolRegistry();
    for (const tool of defaultToolRegistry.list()) registry.register(tool);
    if (options.imageModels)
      registry.register(createGenerateImageTool({ models: options.imageModels, images }));
    for (const tool of options.extraTools ?? []) registry.register(tool);
  }
  const deps: AppDependencies = {
    database,
    auth,
    images,
    logger,
    tools: createToolCatalog([createBuiltinToolSource(registry), ...(options.toolSources ?? [])]),
    providers,
    models:
      options.models ??
      createModelCatalog({
        providers,
        ...(options.imageModels ? { additional: imageModelEntries(options.imageModels) } : {}),
        logger,
        ...(options.now ? { now: options.now } : {}),
      }),
    runningTurns:
      options.runningTurns ??
      createDatabaseRunningTurns(database, options.now ? { now: options.now } : {}),
    ...(options.protectedPaths ? { protectedPaths: options.protectedPaths } : {}),
    ...(options.turnLimits ? { turnLimits: options.turnLimits } : {}),
    ...(options.trustedOrigins ? { trustedOrigins: options.trustedOrigins } : {}),
    ...(options.turnTimeLimits ? { turnTimeLimits: options.turnTimeLimits } : {}),
    ...(options.mcp ? { mcp: options.mcp } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
  const services = createAppServices(deps);
  const app = createApp(deps, services);
  const server = startServer({
    app: options.webDirectory ? withWebUi(app, options.webDirectory) : app,
    // The test database belongs to the test; stopping the server leaves it open.
    database: { ...database, close: async () => {} },
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    ...(options.idleTimeoutSeconds ? { idleTimeoutSeconds: options.idleTimeoutSeconds } : {}),
  });
  const call: TestApp['fetch'] = (path, init = {}) => {
    const { user, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (user) headers.set('cookie', user.cookie);
    return fetch(`${server.url}${path}`, { ...rest, headers });
  };
  return {
    url: server.url,
    auth,
    services,
    server,
    fetch: call,
    async signUp(email) {
      emailCounter += 1;
      const address = email ?? `user-${process.pid}-${emailCounter}@example.test`;
      const response = await call('/api/auth/sign-up/email', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: address, password: TEST_PASSWORD, name: 'Test User' }),
      });
      if (response.status !== 200) {
        throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
      }
      const body = (await response.json()) as { user: { id: string } };
      return { id: body.user.id, email: address, cookie: cookieFrom(response) };
    },
    // Turns belong to the server, not to a request: they are ended before it stops.
    stop: async () => {
      await services.turns.shutdown();
      await services.mcpConnections.closeAll();
      await server.stop();
    },
  };
}
