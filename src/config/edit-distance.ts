/**
 * Edits (insert, delete, replace, or swap two neighbours) that turn `a` into `b`: the optimal string alignment
 * distance, so a swapped pair of letters (PROT for PORT) counts as one slip. Written here rather than taken from
 * a library because it is a dozen lines over a few dozen short names, run once at start-up.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j]!;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The candidate `word` was most likely meant as, if one is close enough to be a slip rather than another word:
 * within a third of the word's length (at least one edit). Ties go to the earlier candidate.
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const allowed = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const distance = editDistance(word, c);
    if (distance <= allowed && distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  return best;
}
