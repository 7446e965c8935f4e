/**
 * Splits markdown at blank lines that are outside fenced code, so that each block can be rendered
 * (and cached) alone. Blocks that belong together — a list whose items are separated by blank
 * lines, a paragraph's reference definitions — still render correctly one by one in the common
 * cases (a list keeps its numbering through `start`).
 */
export function splitMarkdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = line.match(/^\s{0,3}(`{3,}|~{3,})/)?.[1];
    if (marker) {
      if (!fence) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    }
    if (!fence && line.trim() === '' && current.length > 0) {
      blocks.push(current.join('\n'));
      current = [];
      continue;
    }
    current.push(line);
  }
  if (current.length > 0) blocks.push(current.join('\n'));
  // Blank lines before the first block leave an empty one behind.
  return blocks.filter((block) => block.trim() !== '');
}
