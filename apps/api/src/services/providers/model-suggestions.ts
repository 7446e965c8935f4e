/** "Did you mean" for a model name that is not offered: the closest offered names, closest first. */
import type { ModelEntry } from '@mango/shared';
import { editDistance } from '../../edit-distance';

export const MAX_MODEL_SUGGESTIONS = 3;

function rank(wanted: string, candidate: string): number {
  const a = wanted.toLowerCase();
  const b = candidate.toLowerCase();
  // A name that contains the other ("gpt-5" in "gpt-5-mini") is closer than its edit count says.
  const containment = a.length >= 3 && (b.includes(a) || a.includes(b)) ? -0.5 : 0;
  return editDistance(a, b) + containment;
}

/**
 * The offered names closest to `modelId`: among the same provider's models
 * when it offers any, else among every provider's.
 */
export function closestModels(
  offered: readonly ModelEntry[],
  provider: string,
  modelId: string,
): string[] {
  const sameProvider = offered.filter((entry) => entry.provider === provider);
  const pool = sameProvider.length > 0 ? sameProvider : offered;
  return pool
    .map((entry) => ({ id: entry.id, score: rank(modelId, entry.modelId) }))
    .sort((left, right) => left.score - right.score || left.id.localeCompare(right.id))
    .slice(0, MAX_MODEL_SUGGESTIONS)
    .map((entry) => entry.id);
}
