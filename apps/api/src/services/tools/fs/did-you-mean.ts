/**
 * "Did you mean" for a missing file (docs/tools/filesystem.md#read_file): up to three names in the same
 * directory that look like the one asked for. Names the path policy would
 * refuse are never suggested.
 */
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { editDistance } from '../../../edit-distance';

const MAX_SUGGESTIONS = 3;
/** A huge directory is not worth listing whole for a hint. */
const MAX_NAMES_SCANNED = 5000;

function stem(name: string): string {
  const extension = path.extname(name);
  return (extension ? name.slice(0, -extension.length) : name).toLowerCase();
}

/** How alike two names are; lower is closer, undefined when they are not alike at all. */
function score(wanted: string, candidate: string): number | undefined {
  if (candidate.toLowerCase() === wanted.toLowerCase()) return 0;
  if (stem(candidate) === stem(wanted) && stem(wanted) !== '') return 1;
  const edits = editDistance(wanted, candidate);
  const budget = Math.max(2, Math.floor(wanted.length / 3));
  if (edits <= budget) return 1 + edits;
  const lowerWanted = wanted.toLowerCase();
  const lowerCandidate = candidate.toLowerCase();
  const candidateStem = stem(candidate);
  if (
    lowerWanted.length >= 3 &&
    (lowerCandidate.includes(lowerWanted) ||
      (candidateStem.length >= 3 && lowerWanted.includes(candidateStem)))
  ) {
    return 10 + Math.abs(candidate.length - wanted.length);
  }
  return undefined;
}

/**
 * Absolute paths of up to three existing entries of `directory` similar to
 * `wanted`, closest first, each accepted by `isAllowed` (given the real path).
 */
export async function suggestSimilarPaths(
  directory: string,
  wanted: string,
  isAllowed: (realPath: string) => boolean,
): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(directory)).slice(0, MAX_NAMES_SCANNED);
  } catch {
    return [];
  }
  const ranked = names
    .map((name) => ({ name, rank: score(wanted, name) }))
    .filter((item): item is { name: string; rank: number } => item.rank !== undefined)
    .sort((left, right) => left.rank - right.rank || left.name.localeCompare(right.name));
  const suggestions: string[] = [];
  for (const { name } of ranked) {
    const candidate = path.join(directory, name);
    // A link is judged by where it points, like any path the policy checks.
    const real = await realpath(candidate).catch(() => candidate);
    if (!isAllowed(real)) continue;
    suggestions.push(candidate);
    if (suggestions.length === MAX_SUGGESTIONS) break;
  }
  return suggestions;
}
