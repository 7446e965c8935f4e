/**
 * A deterministic synthetic source tree shaped like a real monorepo, for the
 * filesystem tools' benchmark: packages of many small source files at varied
 * depth, a node_modules-like folder with nested packages, a few large bundles
 * and logs (one of 10 MiB for read_file), binaries, and one very deep chain.
 * The same seed always writes the same bytes, so runs are comparable.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface SyntheticTreeSummary {
  files: number;
  directories: number;
  bytes: number;
  /** A text file just under read_file's 10 MiB text cap, relative to the root. */
  largeTextFile: string;
  /** The rare identifier planted in about one line in 700 (a literal to grep for). */
  rareLiteral: string;
}

/** mulberry32: a tiny seeded generator, so the tree never depends on Math.random. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const VERBS = ['get', 'set', 'create', 'update', 'handle', 'use', 'compute', 'parse', 'render'];
const MORE_VERBS = ['load', 'fetch', 'build', 'resolve', 'format', 'validate', 'merge', 'emit'];
const NOUNS = ['User', 'Session', 'Token', 'Request', 'Response', 'Config', 'Item', 'List'];
const MORE_NOUNS = ['Table', 'Cache', 'Event', 'Route', 'Model', 'Query', 'Result', 'Value'];
const SUFFIXES = ['', '', '', '', 'Async', 'Handler', 'Impl', 'Factory', 'State', 'Options'];
const WORDS = ['the', 'value', 'is', 'cached', 'until', 'next', 'request', 'when', 'user'];
const MORE_WORDS = ['changes', 'note', 'this', 'runs', 'once', 'per', 'session', 'see', 'docs'];
const RARE_LITERAL = 'deprecatedHelper';

class TextSource {
  constructor(private readonly random: () => number) {}

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)] as T;
  }

  identifier(): string {
    const verbs = this.random() < 0.5 ? VERBS : MORE_VERBS;
    const nouns = this.random() < 0.5 ? NOUNS : MORE_NOUNS;
    return `${this.pick(verbs)}${this.pick(nouns)}${this.pick(SUFFIXES)}`;
  }

  variable(): string {
    const noun = this.pick(this.random() < 0.5 ? NOUNS : MORE_NOUNS);
    return `${noun.toLowerCase()}${this.random() < 0.3 ? this.pick(['Id', 'List', 'Map']) : ''}`;
  }

  comment(): string {
    const count = 3 + Math.floor(this.random() * 8);
    return Array.from({ length: count }, () =>
      this.pick(this.random() < 0.5 ? WORDS : MORE_WORDS),
    ).join(' ');
  }

  /** One line of TypeScript-looking code. */
  codeLine(): string {
    if (this.random() < 0.0014)
      return `  ${RARE_LITERAL}(${this.variable()}); // ${this.comment()}`;
    const roll = this.random();
    if (roll < 0.06) {
      return `import { ${this.identifier()}, ${this.identifier()} } from '../${this.variable()}/${this.variable()}';`;
    }
    if (roll < 0.14) {
      const exported = this.random() < 0.6 ? 'export ' : '';
      const asynchronous = this.random() < 0.25 ? 'async ' : '';
      return `${exported}${asynchronous}function ${this.identifier()}(${this.variable()}: ${this.pick(NOUNS)}): ${this.pick(MORE_NOUNS)} {`;
    }
    if (roll < 0.34) {
      return `  const ${this.variable()} = ${this.identifier()}(${this.variable()}, ${Math.floor(this.random() * 1000)});`;
    }
    if (roll < 0.44) return `  if (${this.variable()} === null) return ${this.identifier()}();`;
    if (roll < 0.56) return `  // ${this.comment()}`;
    if (roll < 0.66) return `  return ${this.variable()}.${this.identifier()}(${this.variable()});`;
    if (roll < 0.74) return '}';
    if (roll < 0.8) return '';
    if (roll < 0.86) {
      return `export const ${this.pick(NOUNS).toUpperCase()}_${this.pick(MORE_NOUNS).toUpperCase()} = ${Math.floor(this.random() * 100000)};`;
    }
    return `    ${this.variable()}.${this.identifier()} = ${this.variable()}?.${this.variable()} ?? '${this.comment()}';`;
  }

  /** About `bytes` bytes of code lines. */
  code(bytes: number): string {
    const lines: string[] = [];
    let size = 0;
    while (size < bytes) {
      const line = this.codeLine();
      lines.push(line);
      size += line.length + 1;
    }
    return `${lines.join('\n')}\n`;
  }

  /** Minified-looking code: few, very long lines. */
  minified(bytes: number): string {
    const lines: string[] = [];
    let size = 0;
    while (size < bytes) {
      const parts: string[] = [];
      const target = 2000 + Math.floor(this.random() * 8000);
      let length = 0;
      while (length < target) {
        const part = this.codeLine().trim();
        parts.push(part);
        length += part.length + 1;
      }
      const line = parts.join(';');
      lines.push(line);
      size += line.length + 1;
    }
    return `${lines.join('\n')}\n`;
  }

  logLines(bytes: number): string {
    const lines: string[] = [];
    let size = 0;
    let second = 0;
    while (size < bytes) {
      second += Math.floor(this.random() * 3);
      const level = this.pick(['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR']);
      const line = `2026-01-${String(1 + ((second / 86400) % 28)).padStart(2, '0')}T${String(Math.floor(second / 3600) % 24).padStart(2, '0')}:${String(Math.floor(second / 60) % 60).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}Z ${level} ${this.identifier()} ${this.comment()}`;
      lines.push(line);
      size += line.length + 1;
    }
    return `${lines.join('\n')}\n`;
  }

  binary(bytes: number): Uint8Array {
    const data = new Uint8Array(bytes);
    for (let index = 0; index < bytes; index++) data[index] = Math.floor(this.random() * 256);
    data.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 0);
    return data;
  }
}

const SOURCE_KINDS: Array<[string, number]> = [
  ['.ts', 0.3],
  ['.tsx', 0.15],
  ['.test.ts', 0.06],
  ['.js', 0.2],
  ['.json', 0.08],
  ['.md', 0.08],
  ['.css', 0.13],
];

/** Writes the tree below `root` (which must exist and be empty). */
export function buildSyntheticTree(root: string, seed = 20260101): SyntheticTreeSummary {
  const random = createRandom(seed);
  const text = new TextSource(random);
  const summary: SyntheticTreeSummary = {
    files: 0,
    directories: 0,
    bytes: 0,
    largeTextFile: 'logs/server-10mib.log',
    rareLiteral: RARE_LITERAL,
  };
  const made = new Set<string>();
  const write = (relativePath: string, content: string | Uint8Array) => {
    const target = path.join(root, relativePath);
    const directory = path.dirname(target);
    if (!made.has(directory)) {
      mkdirSync(directory, { recursive: true });
      made.add(directory);
    }
    writeFileSync(target, content);
    summary.files++;
    summary.bytes += typeof content === 'string' ? Buffer.byteLength(content) : content.length;
  };
  const sourceKind = (): string => {
    let roll = random();
    for (const [extension, weight] of SOURCE_KINDS) {
      roll -= weight;
      if (roll <= 0) return extension;
    }
    return '.ts';
  };
  const smallSize = () => 600 + Math.floor(random() ** 2 * 9000);

  // Workspace packages: many small files, nested 1–6 levels, a few deeper chains.
  for (let pkg = 0; pkg < 64; pkg++) {
    const base = `packages/pkg-${String(pkg).padStart(2, '0')}`;
    write(`${base}/package.json`, `{ "name": "@mono/pkg-${pkg}", "version": "1.${pkg}.0" }\n`);
    write(`${base}/README.md`, `# pkg-${pkg}\n\n${text.comment()}\n`);
    write(`${base}/.eslintrc.json`, '{ "root": false }\n');
    // About 30 directories per package, each below a random earlier one (depth 1–7).
    const directories = ['src'];
    for (let index = 1; index < 30; index++) {
      const parent = text.pick(directories);
      if (parent.split('/').length < 7) directories.push(`${parent}/${text.variable()}${index}`);
    }
    for (let file = 0; file < 182; file++) {
      const directory = text.pick(directories);
      write(
        `${base}/${directory}/${text.identifier()}${file}${sourceKind()}`,
        text.code(smallSize()),
      );
    }
  }
  // node_modules: small packages, some with their own nested node_modules.
  for (let dependency = 0; dependency < 120; dependency++) {
    const base = `node_modules/dep-${dependency}`;
    write(`${base}/package.json`, `{ "name": "dep-${dependency}", "main": "index.js" }\n`);
    for (let file = 0; file < 22; file++) {
      const folder = text.pick(['lib', 'dist', 'esm', 'lib/internal', 'dist/types']);
      const extension = folder === 'dist/types' ? '.d.ts' : '.js';
      write(
        `${base}/${folder}/${text.variable()}${file}${extension}`,
        text.code(400 + Math.floor(random() * 3000)),
      );
    }
    if (dependency % 10 === 0) {
      write(`${base}/node_modules/inner-${dependency}/index.js`, text.code(2000));
    }
  }
  // Large generated files: minified bundles and source maps.
  for (let bundle = 0; bundle < 8; bundle++) {
    write(
      `dist/bundle-${bundle}.min.js`,
      text.minified(500_000 + Math.floor(random() * 1_000_000)),
    );
  }
  // Logs: one just under read_file's 10 MiB text cap.
  write(
    'logs/server-10mib.log',
    text.logLines(10 * 1024 * 1024 - 64 * 1024).slice(0, 10 * 1024 * 1024 - 4096),
  );
  write('logs/worker.log', text.logLines(800_000));
  // Binaries.
  for (let asset = 0; asset < 12; asset++) {
    const extension = text.pick(['.png', '.wasm', '.woff2', '.jpg']);
    write(
      `assets/asset-${asset}${extension}`,
      text.binary(50_000 + Math.floor(random() * 550_000)),
    );
  }
  // Documentation and one very deep chain.
  for (let page = 0; page < 200; page++)
    write(`docs/guide-${page}.md`, `# ${text.comment()}\n\n${text.code(1500)}`);
  let deep = 'deep';
  for (let level = 0; level < 40; level++) {
    deep = `${deep}/level-${level}`;
    write(`${deep}/file-${level}.ts`, text.code(800));
  }
  summary.directories = made.size;
  return summary;
}
