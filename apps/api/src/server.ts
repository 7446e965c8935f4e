/**
 * Runs an app on Bun's HTTP server: an access log line per request, and a
 * graceful stop (stop accepting, let requests in flight finish within a grace
 * period, then close the database).
 */
import type { AppDatabase } from './db/database';
import type { Logger } from './logger';
import { raceTimeout } from './race-timeout';
import { getRequestContext, setPeerAddressLookup } from './request-context';

export interface RequestHandlerApp {
  handle(request: Request): Promise<Response>;
}

export interface StartServerOptions {
  app: RequestHandlerApp;
  database: AppDatabase;
  logger: Logger;
  host: string;
  port: number;
  /** How long in-flight requests may take to finish after a stop; then they are cut. */
  shutdownGraceMs?: number;
  /** Seconds an ordinary request's connection may stay silent before Bun closes it (at most 255). */
  idleTimeoutSeconds?: number;
}

/**
 * Bun closes a connection after 10 s of silence unless told otherwise. An
 * ordinary request gets 60 s. An event stream (a chat turn) is exempt: it is
 * silent while a tool runs and may last as long as the turn, so Bun must never
 * take its silence for a dead client; the stream's own keep-alive comments
 * (`TURN_STREAM_HEARTBEAT_MS`) keep proxies on the way from closing it, and a
 * client that is really gone is noticed on the next write.
 */
export const SERVER_IDLE_TIMEOUT_SECONDS = 60;

const eventStreams = new WeakSet<Response>();

/**
 * Marks a response as an event stream, which the server then exempts from the
 * idle timeout. Every route answering `text/event-stream` must mark its
 * response (reading each response's headers instead costs every request).
 */
export function markEventStream(response: Response): Response {
  eventStreams.add(response);
  return response;
}

export interface RunningServer {
  url: string;
  hostname: string;
  port: number;
  /** Stops accepting, waits for in-flight requests (up to the grace period), closes the database. */
  stop(): Promise<void>;
}

export function startServer(options: StartServerOptions): RunningServer {
  const { app, database, logger } = options;
  const graceMs = options.shutdownGraceMs ?? 10_000;
  const server = Bun.serve({
    hostname: options.host,
    port: options.port,
    idleTimeout: options.idleTimeoutSeconds ?? SERVER_IDLE_TIMEOUT_SECONDS,
    async fetch(request, bunServer) {
      const startedAt = performance.now();
      const context = getRequestContext(request);
      setPeerAddressLookup(request, () => bunServer.requestIP(request)?.address);
      const response = await app.handle(request);
      if (eventStreams.has(response)) bunServer.timeout(request, 0);
      // Set here rather than through the framework's per-request headers,
      // which would make it rebuild (and re-stream) every response body.
      if (!response.headers.has('x-request-id')) {
        try {
          response.headers.set('x-request-id', context.requestId);
        } catch {
          // A response with immutable headers goes out without the id.
        }
      }
      logger.info('request', {
        requestId: context.requestId,
        method: request.method,
        path: context.path,
        status: response.status,
        durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
        ...(context.user ? { userId: context.user.id } : {}),
      });
      return response;
    },
  });
  const hostname = server.hostname ?? options.host;
  const port = server.port ?? options.port;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`,
    hostname,
    port,
    stop() {
      stopping ??= (async () => {
        const outcome = await raceTimeout(
          server.stop().then(() => 'drained' as const),
          graceMs,
          'timeout' as const,
        );
        if (outcome === 'timeout') {
          logger.warn('requests still running after the shutdown grace period; closing them', {
            pendingRequests: server.pendingRequests,
          });
          await server.stop(true);
        }
        await database.close();
      })();
      return stopping;
    },
  };
}
