import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';

/** One line of a registry file, without its line ending, numbered from 1 like an editor does. */
export interface FileLine {
  number: number;
  text: string;
}

const LF = 0x0a;
const CR = 0x0d;
const REPLACEMENT = Buffer.from([0xef, 0xbf, 0xbd]);

/**
 * Text of one line: UTF-8 when it is valid UTF-8, Latin-1 otherwise (older CRA exports). Decided
 * per line, so a file that mixes both still reads right.
 */
function decodeLine(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.includes('\uFFFD') && !bytes.includes(REPLACEMENT) ? bytes.toString('latin1') : text;
}

/**
 * Reads a file as lines, a chunk at a time: memory stays the size of one chunk however large
 * the file. Yields the complete lines of each chunk; `onBytes` reports progress. LF and CRLF
 * line endings alike; a last line without an ending is still a line.
 */
export async function* readLines(path: string, onBytes?: (bytes: number) => void): AsyncGenerator<FileLine[]> {
  let carry: Buffer | null = null;
  let number = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    onBytes?.(chunk.length);
    const data: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    const end = data.lastIndexOf(LF);
    if (end < 0) {
      carry = data;
      continue;
    }
    const lines: FileLine[] = [];
    const complete = data.subarray(0, end);
    if (isUtf8(complete)) {
      // The common case: decode the chunk once and split the text.
      for (const raw of complete.toString('utf8').split('\n')) {
        lines.push({ number: ++number, text: raw.endsWith('\r') ? raw.slice(0, -1) : raw });
      }
    } else {
      let start = 0;
      while (start <= end) {
        let stop = data.indexOf(LF, start);
        if (stop < 0 || stop > end) stop = end;
        const last = stop > start && data[stop - 1] === CR ? stop - 1 : stop;
        lines.push({ number: ++number, text: decodeLine(data.subarray(start, last)) });
        start = stop + 1;
      }
    }
    carry = end + 1 < data.length ? Buffer.from(data.subarray(end + 1)) : null;
    yield lines;
  }
  if (carry && carry.length) {
    const last = carry[carry.length - 1] === CR ? carry.subarray(0, -1) : carry;
    yield [{ number: ++number, text: decodeLine(last) }];
  }
}

/** The first line of a file, read without reading the file. */
export async function headerLine(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('latin1');
    const end = text.indexOf('\n');
    return (end < 0 ? text : text.slice(0, end)).replace(/\r$/, '');
  } finally {
    await handle.close();
  }
}
