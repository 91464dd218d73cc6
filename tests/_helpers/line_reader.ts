/**
 * Reading a child process's output line by line, each read within a time
 * limit, for tests that wait for what a process prints.
 *
 * @module
 */
import { within } from "./within.ts";

/** Lines of a stream, read on demand. */
export interface LineReader {
  /** The next line without its newline; undefined at the end. */
  next(ms?: number): Promise<string | undefined>;
  /** Everything left, once the stream ends. */
  rest(ms?: number): Promise<string>;
}

/**
 * Reads `stream` as text, line by line.
 *
 * @param stream A process's stdout or stderr.
 * @returns The reader; each wait is bounded (30 s unless given).
 */
export function lineReader(stream: ReadableStream<Uint8Array>): LineReader {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  return {
    async next(ms = 30_000): Promise<string | undefined> {
      while (!text.includes("\n")) {
        const { value, done } = await within(ms, reader.read());
        if (done) return text === "" ? undefined : text;
        text += value;
      }
      const end = text.indexOf("\n");
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      return line;
    },
    async rest(ms = 30_000): Promise<string> {
      for (;;) {
        const { value, done } = await within(ms, reader.read());
        if (done) return text;
        text += value;
      }
    },
  };
}
