/** Edit distance (Levenshtein) between two short strings such as names, case-insensitive. */
export function editDistance(left: string, right: string): number {
  const a = left.toLowerCase();
  const b = right.toLowerCase();
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(
        Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
