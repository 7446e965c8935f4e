/**
 * The matching behind edit_file (docs/tools/filesystem.md#edit_file): exact, code-unit-for-code-unit
 * occurrences of a string (no Unicode normalisation, no whitespace folding),
 * and the hints a failed match gives the model.
 */
import { toCrlf } from './text-encoding';

/** Start offsets of the non-overlapping occurrences of `needle`, left to right. */
export function findOccurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  if (needle === '') return found;
  let index = haystack.indexOf(needle);
  while (index !== -1) {
    found.push(index);
    index = haystack.indexOf(needle, index + needle.length);
  }
  return found;
}

/** 1-based line number of a code-unit offset. */
export function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  let index = text.indexOf('\n');
  while (index !== -1 && index < offset) {
    line += 1;
    index = text.indexOf('\n', index + 1);
  }
  return line;
}

export interface PlannedReplacement {
  oldString: string;
  newString: string;
  offsets: number[];
  /** The strings were converted to CRLF to match a file read_file showed without its CRs. */
  convertedToCrlf: boolean;
}

/**
 * Finds `oldString`. read_file shows CRLF files without their CRs, so when
 * the exact string is absent, contains a lone LF and the file has CRLF breaks,
 * the search is repeated with both strings converted to CRLF.
 */
export function planReplacement(
  text: string,
  oldString: string,
  newString: string,
): PlannedReplacement {
  const offsets = findOccurrences(text, oldString);
  if (offsets.length > 0 || !/(^|[^\r])\n/.test(oldString) || !text.includes('\r\n')) {
    return { oldString, newString, offsets, convertedToCrlf: false };
  }
  const crlfOld = toCrlf(oldString);
  const crlfOffsets = findOccurrences(text, crlfOld);
  if (crlfOffsets.length === 0) return { oldString, newString, offsets, convertedToCrlf: false };
  return {
    oldString: crlfOld,
    newString: toCrlf(newString),
    offsets: crlfOffsets,
    convertedToCrlf: true,
  };
}

/** Applies a plan: every occurrence, or only the first. */
export function applyReplacement(text: string, plan: PlannedReplacement, all: boolean): string {
  if (all) return text.split(plan.oldString).join(plan.newString);
  const first = plan.offsets[0] as number;
  return text.slice(0, first) + plan.newString + text.slice(first + plan.oldString.length);
}

const LINE_NUMBER_PREFIX = /^ *\d+\t/m;

function foldWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Why `oldString` may have missed, in words the model can act on. */
export function explainMiss(text: string, oldString: string): string[] {
  const hints: string[] = [];
  if (LINE_NUMBER_PREFIX.test(oldString)) {
    hints.push(
      'It seems to include the line-number prefixes read_file adds (spaces, a number, a tab); copy only the text after the tab.',
    );
  }
  const folded = foldWhitespace(oldString);
  if (folded !== '' && foldWhitespace(text).includes(folded)) {
    hints.push(
      'The text exists if whitespace is ignored: check indentation (tabs or spaces), trailing spaces and blank lines.',
    );
  } else if (oldString.trim() !== '' && text.toLowerCase().includes(oldString.toLowerCase())) {
    hints.push('The text exists with different letter case; matching is case-sensitive.');
  }
  if (
    oldString.normalize('NFC') !== oldString.normalize('NFD') &&
    text.normalize('NFC').includes(oldString.normalize('NFC'))
  ) {
    hints.push(
      'The text exists with a different Unicode normalisation (composed vs decomposed accents); copy it from the file exactly.',
    );
  }
  return hints;
}
