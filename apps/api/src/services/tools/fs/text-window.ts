/**
 * The numbered text window of read_file (docs/tools/filesystem.md#read_file): line arithmetic on the
 * file's text, the `cat -n` rendering, the per-line cut and the per-window
 * byte limit. UTF-8 files are scanned as bytes and only the shown window is
 * decoded; UTF-16 files arrive already decoded.
 */
import type { LineEndings } from './text-encoding';

/** Lines longer than this many characters (UTF-16 code units) are cut and marked. */
export const MAX_LINE_CHARACTERS = 2000;
/** The numbered content of one window is at most this many UTF-8 bytes. */
export const MAX_WINDOW_BYTES = 100 * 1024;

export interface WindowRequest {
  startLine: number;
  maxLines: number;
}

export interface TextWindow {
  content: string;
  totalLines: number;
  startLine: number;
  endLine: number;
  /** Some line of the window was cut at MAX_LINE_CHARACTERS. */
  linesCut: boolean;
  /** The window stopped early because of MAX_WINDOW_BYTES. */
  byteLimited: boolean;
  /** Whether the file's last line ends with a line break. */
  endsWithNewline: boolean;
  /** The whole file's line endings. */
  eol: LineEndings;
}

/** Where the lines of a window sit in a text, and how many lines the text has. */
interface LineSpan {
  totalLines: number;
  /** The whole text's line endings, found in the same pass. */
  eol: LineEndings;
  /** The window's text, from the start of startLine to the end of endLine (its final line break excluded). */
  text: string;
  endLine: number;
  endsWithNewline: boolean;
}

/** What the span scan needs from a text, whether raw UTF-8 bytes or a decoded string. */
interface Scannable {
  length: number;
  /** Offset of the next LF at or after `from`, or -1. */
  nextNewline(from: number): number;
  isCarriageReturn(offset: number): boolean;
  slice(start: number, end: number): string;
}

/**
 * One pass over the text: counts lines (a trailing newline adds no empty
 * line, like `wc -l` plus a final unterminated line), finds the window's span
 * and tallies the line endings.
 */
function scanSpan(source: Scannable, startLine: number, lastWanted: number): LineSpan {
  let newlines = 0;
  let crlf = 0;
  let spanStart = startLine === 1 ? 0 : -1;
  let spanEnd = -1;
  let index = source.nextNewline(0);
  while (index !== -1) {
    newlines += 1;
    if (index > 0 && source.isCarriageReturn(index - 1)) crlf += 1;
    if (newlines === startLine - 1) spanStart = index + 1;
    if (newlines === lastWanted) spanEnd = index;
    index = source.nextNewline(index + 1);
  }
  const endsWithNewline =
    source.length > 0 && newlines > 0 && source.nextNewline(source.length - 1) !== -1;
  const totalLines = newlines + (source.length > 0 && !endsWithNewline ? 1 : 0);
  const endLine = Math.min(totalLines, lastWanted);
  const eol = lineEndingsOf(crlf, newlines);
  if (spanStart === -1 || endLine < startLine) {
    return { totalLines, eol, text: '', endLine: startLine - 1, endsWithNewline };
  }
  if (spanEnd === -1) spanEnd = endsWithNewline ? source.length - 1 : source.length;
  return { totalLines, eol, text: source.slice(spanStart, spanEnd), endLine, endsWithNewline };
}

function bytesSource(bytes: Uint8Array): Scannable {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  return {
    length: bytes.length,
    nextNewline: (from) => bytes.indexOf(10, from),
    isCarriageReturn: (offset) => bytes[offset] === 13,
    slice: (start, end) => decoder.decode(bytes.subarray(start, end)),
  };
}

function textSource(text: string): Scannable {
  return {
    length: text.length,
    nextNewline: (from) => text.indexOf('\n', from),
    isCarriageReturn: (offset) => text.charCodeAt(offset) === 13,
    slice: (start, end) => text.slice(start, end),
  };
}

function lineEndingsOf(crlf: number, breaks: number): LineEndings {
  if (crlf === 0) return 'lf';
  return crlf === breaks ? 'crlf' : 'mixed';
}

/** Cuts a line at MAX_LINE_CHARACTERS, never between the halves of a surrogate pair. */
export function cutLine(line: string): { text: string; cut: boolean } {
  if (line.length <= MAX_LINE_CHARACTERS) return { text: line, cut: false };
  let end = MAX_LINE_CHARACTERS;
  const last = line.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return {
    text: `${line.slice(0, end)}… [line truncated: ${end} of ${line.length} characters shown]`,
    cut: true,
  };
}

/** `cat -n` numbering: the number right-aligned in six columns, a tab, the text. */
export function numberLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6, ' ')}\t${text}`;
}

function render(span: LineSpan, request: WindowRequest): TextWindow {
  const lines = span.endLine >= request.startLine ? span.text.split('\n') : [];
  const parts: string[] = [];
  let bytes = 0;
  let linesCut = false;
  let byteLimited = false;
  let endLine = request.startLine - 1;
  for (let offset = 0; offset < lines.length; offset += 1) {
    const raw = lines[offset] as string;
    // The CR of a CRLF break belongs to the break, not the text (the file's `eol` reports it).
    const { text, cut } = cutLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    const lineNumber = request.startLine + offset;
    const isFileEnd = lineNumber === span.totalLines && !span.endsWithNewline;
    const rendered = `${numberLine(lineNumber, text)}${isFileEnd ? '' : '\n'}`;
    const size = Buffer.byteLength(rendered, 'utf8');
    if (parts.length > 0 && bytes + size > MAX_WINDOW_BYTES) {
      byteLimited = true;
      break;
    }
    parts.push(rendered);
    bytes += size;
    linesCut ||= cut;
    endLine = lineNumber;
  }
  return {
    content: parts.join(''),
    totalLines: span.totalLines,
    startLine: request.startLine,
    endLine,
    linesCut,
    byteLimited,
    endsWithNewline: span.endsWithNewline,
    eol: span.eol,
  };
}

/** The window of UTF-8 bytes (BOM already removed): only the shown lines are decoded. */
export function windowOfUtf8(bytes: Uint8Array, request: WindowRequest): TextWindow {
  return render(
    scanSpan(bytesSource(bytes), request.startLine, request.startLine + request.maxLines - 1),
    request,
  );
}

/** The window of an already decoded text. */
export function windowOfText(text: string, request: WindowRequest): TextWindow {
  return render(
    scanSpan(textSource(text), request.startLine, request.startLine + request.maxLines - 1),
    request,
  );
}

/** Lines in a text, as read_file counts them: a final line break adds no empty line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  let index = text.indexOf('\n');
  while (index !== -1) {
    count += 1;
    index = text.indexOf('\n', index + 1);
  }
  return text.endsWith('\n') ? count : count + 1;
}
