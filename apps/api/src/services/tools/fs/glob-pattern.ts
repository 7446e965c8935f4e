/**
 * Glob patterns for the walking tools (glob's `pattern`, grep's `glob`
 * filter): matching with `Bun.Glob`, plus what a streaming walk needs to stay
 * small — the literal directory prefix to start from, the deepest level a
 * match can lie at, and which dot-named entries the pattern names explicitly.
 */
import { ToolArgumentError } from '../errors';

/** Characters that make a pattern segment a wildcard rather than a literal name. */
const WILDCARD_CHARACTERS = /[*?[\]{}!\\]/;

export interface CompiledGlob {
  /** The pattern as matched (after a leading "./" is dropped). */
  source: string;
  /** A leading `!`: the pattern selects every path it does not match. */
  negated: boolean;
  /** Matches a "/"-separated path relative to the walk's base directory. */
  matches(relativePath: string): boolean;
  /** Literal leading directories: the walk can start there instead of at the base. */
  literalPrefix: string[];
  /** How many segments a matching path can have at most; undefined when `**` makes it unbounded. */
  maxDepth: number | undefined;
  /** Whether a dot-named entry is named by the pattern itself (e.g. ".github" in ".github/**"). */
  namesDotEntry(name: string): boolean;
}

function refuse(argument: string, message: string): never {
  throw new ToolArgumentError(message, { details: { argument } });
}

/** Splits on "/" outside braces and brackets, so `{a/b,c}` stays one segment. */
function splitSegments(pattern: string): string[] {
  const segments: string[] = [];
  let depth = 0;
  let inClass = false;
  let current = '';
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index] as string;
    if (character === '\\' && index + 1 < pattern.length) {
      current += character + pattern[index + 1];
      index++;
      continue;
    }
    if (inClass) {
      if (character === ']') inClass = false;
    } else if (character === '[') {
      inClass = true;
    } else if (character === '{') {
      depth++;
    } else if (character === '}' && depth > 0) {
      depth--;
    } else if (character === '/' && depth === 0) {
      segments.push(current);
      current = '';
      continue;
    }
    current += character;
  }
  segments.push(current);
  return segments;
}

/**
 * Compiles a glob. The pattern is relative to the walk's base directory: an
 * absolute pattern, a `~` pattern or a `..` segment would leave it, and is
 * refused with a message that points to the argument that moves the base.
 */
export function compileGlob(
  pattern: string,
  options: { argument: string; baseArgument: string },
): CompiledGlob {
  const { argument, baseArgument } = options;
  if (pattern.trim() === '') refuse(argument, `Argument "${argument}" must not be blank.`);
  if (pattern.includes('\0')) {
    refuse(argument, `Argument "${argument}" contains a NUL byte; send the pattern without it.`);
  }
  const negated = pattern.startsWith('!');
  let body = negated ? pattern.slice(1) : pattern;
  while (body.startsWith('./')) body = body.slice(2);
  if (body === '' || body === '.') {
    refuse(argument, `Argument "${argument}" ("${pattern}") matches nothing; use e.g. "**/*".`);
  }
  if (body.startsWith('/') || body.startsWith('~')) {
    refuse(
      argument,
      `Argument "${argument}" ("${pattern}") is absolute; patterns are relative to "${baseArgument}". Put the directory in "${baseArgument}" and keep a relative pattern such as "**/*.ts".`,
    );
  }
  const segments = splitSegments(body);
  if (segments.some((segment) => segment === '..')) {
    refuse(
      argument,
      `Argument "${argument}" ("${pattern}") contains "..": patterns cannot leave "${baseArgument}". Point "${baseArgument}" at the directory to search instead.`,
    );
  }
  const source = negated ? `!${body}` : body;
  const glob = new Bun.Glob(source);

  const literalPrefix: string[] = [];
  if (!negated) {
    for (const segment of segments.slice(0, -1)) {
      if (segment === '' || segment === '.' || WILDCARD_CHARACTERS.test(segment)) break;
      literalPrefix.push(segment);
    }
  }
  const unbounded = negated || body.includes('**') || segments.some((s) => s.includes('/'));
  const dotSegments = segments
    .filter((segment) => segment.startsWith('.') || /[{,]\./.test(segment))
    .map((segment) => new Bun.Glob(segment));

  return {
    source,
    negated,
    matches: (relativePath) => glob.match(relativePath),
    literalPrefix,
    maxDepth: unbounded ? undefined : segments.length,
    namesDotEntry: (name) => dotSegments.some((segment) => segment.match(name)),
  };
}

/**
 * grep's `glob` filter: a pattern without "/" matches a file's name at any
 * depth (`*.ts` finds src/a/b.ts, as in ripgrep and .gitignore); a pattern with
 * "/" matches the path relative to the search root.
 */
export function compileFileFilter(pattern: string, argument: string): CompiledGlob {
  const negated = pattern.startsWith('!');
  const body = negated ? pattern.slice(1) : pattern;
  const anchored = splitSegments(body).length > 1;
  const effective = anchored ? pattern : `${negated ? '!' : ''}**/${body}`;
  return compileGlob(effective, { argument, baseArgument: 'path' });
}
