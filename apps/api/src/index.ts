/** Starts the API server with the production dependencies. */
import { createApp } from './app';
import { ConfigError, loadServerConfig } from './config';
import './services/tools';

function main(): void {
  let config: ReturnType<typeof loadServerConfig>;
  try {
    config = loadServerConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const app = createApp({ databaseKind: 'none' }).listen({
    port: config.port,
    hostname: config.host,
  });
  console.log(`MangoStudio API listening on http://${app.server?.hostname}:${app.server?.port}`);

  const shutdown = async (signal: string) => {
    console.log(`Received ${signal}; finishing in-flight requests and stopping.`);
    await app.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main();
