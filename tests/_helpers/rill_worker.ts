/**
 * Worker processes for tests and benches that run the transpiled programs
 * across real processes: `deno run -A mod.ts worker <worker.pb> --listen
 * 127.0.0.1:0`, its one `listening on HOST:PORT` line read within a time
 * limit, and every process killed at the end.
 *
 * @module
 */
import { ROOT } from "./rill_process.ts";
import { within } from "./within.ts";

/** A worker process and the address it printed. */
export interface RillWorker {
  /** The process. */
  readonly child: Deno.ChildProcess;
  /** Where it listens: `127.0.0.1:PORT`. */
  readonly addr: string;
}

/**
 * Starts a worker serving `workerPb` on a free port of 127.0.0.1.
 *
 * @param workerPb The worker program.
 * @param listenTimeoutMs How long it may take to print its address.
 * @param stderr Where its standard error goes.
 * @param flags More flags for the worker command (`--max-calls 2`).
 * @param env More environment; without a RILL_TOKEN in it the worker runs
 * with `--insecure` (it listens on 127.0.0.1 only).
 * @returns The process and its address; the process is killed if no
 * address comes.
 */
export async function startRillWorker(
  workerPb: string,
  listenTimeoutMs = 30_000,
  stderr: "null" | "inherit" = "null",
  flags: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): Promise<RillWorker> {
  const insecure = env.RILL_TOKEN === undefined ? ["--insecure"] : [];
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      `${ROOT}mod.ts`,
      "worker",
      workerPb,
      "--listen",
      "127.0.0.1:0",
      ...insecure,
      ...flags,
    ],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr,
    env: { NO_COLOR: "1", ...env },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let text = "";
    // Bounded: a line arrives, the stream ends, or the time limit passes.
    while (!text.includes("\n")) {
      const { value, done } = await within(listenTimeoutMs, reader.read());
      if (done) break;
      text += value;
    }
    const line = /^listening on (\S+)\n/.exec(text);
    if (line === null) {
      throw new Error(`worker printed ${JSON.stringify(text)}`);
    }
    return { child, addr: line[1] };
  } catch (error) {
    child.kill();
    await child.status;
    throw error;
  } finally {
    reader.releaseLock();
    // Nothing more is read; let the pipe go.
    child.stdout.cancel().catch(() => {});
  }
}

/**
 * Kills workers and waits for them to exit.
 *
 * @param workers The workers; ones already gone are skipped.
 */
export async function stopRillWorkers(
  workers: readonly RillWorker[],
): Promise<void> {
  for (const w of workers) {
    try {
      w.child.kill();
    } catch {
      // already gone
    }
    await w.child.status;
  }
}
