/**
 * Which npm packages this process has loaded, read from the module registry
 * (Bun lists ES modules there too). For the tests of what a server loads only
 * when it is used (docs/chat-turns.md#what-a-full-collection-costs).
 */
import { renameSync, writeFileSync } from 'node:fs';

export function loadedPackages(): Set<string> {
  const packages = new Set<string>();
  for (const path of Object.keys(require.cache)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    if (match?.[1]) packages.add(match[1]);
  }
  return packages;
}

/**
 * Preloaded into a server process (`bun --preload`): on SIGUSR2 it writes the
 * packages loaded so far, as a JSON array, to LOADED_PACKAGES_FILE (written
 * beside it, then renamed, so a reader never sees half of it).
 */
const file = process.env.LOADED_PACKAGES_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    writeFileSync(`${file}.partial`, JSON.stringify([...loadedPackages()].sort()));
    renameSync(`${file}.partial`, file);
  });
}
