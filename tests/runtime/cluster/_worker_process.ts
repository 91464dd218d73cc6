/**
 * Starts `_test_worker.ts` as a separate `deno run` process and reads the
 * address it prints.
 *
 * @module
 */

import { fromFileUrl } from "@std/path";

/** A running worker process. */
export interface WorkerProcess {
  /** The address it printed. */
  addr: string;
  /** Kills it (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
  /** Same as `kill`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const SCRIPT = fromFileUrl(new URL("./_test_worker.ts", import.meta.url));

/** How long a worker may take to start: Deno's start and a type check. */
const START_MS = 60_000;

/**
 * Starts a worker process.
 *
 * @param env Its extra environment (`RILL_TOKEN`).
 * @returns The process, once it has printed its address.
 * @throws {Error} If it exits or prints something else first, or has not
 * printed within a minute.
 */
export async function startWorkerProcess(
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", SCRIPT],
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  async function kill(): Promise<void> {
    if (!exited) child.kill("SIGKILL");
    await status;
  }
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const timer = setTimeout(() => kill(), START_MS);
  try {
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`worker process exited: ${await status}`);
      text += value;
    }
    const match = /^listening on (\S+)\n/.exec(text);
    if (match === null) throw new Error(`worker process printed ${text}`);
    return { addr: match[1], kill, [Symbol.asyncDispose]: kill };
  } catch (error) {
    await kill();
    throw error;
  } finally {
    clearTimeout(timer);
    await lines.cancel();
  }
}
