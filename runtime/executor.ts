/**
 * The executor: validates a program, prepares its blocks, and runs block 0
 * on the main green thread of a fresh scheduler. The run ends when block 0
 * ends, whatever other green threads are doing (Go's rule).
 *
 * @module
 */
import type { ProgramDesc } from "../gen/rill/v1/framework_pb.ts";
import { cpuDevice } from "../kernels/cpu/device.ts";
import type { Device } from "../kernels/device.ts";
import type { Tensor } from "../kernels/tensor.ts";
import { Scheduler } from "../scheduler/scheduler.ts";
import { runBlock } from "./block_runner.ts";
import { ProgramError } from "./errors.ts";
import { PreparedProgram } from "./prepare.ts";
import { Scope } from "./scope.ts";
import type { RunServices } from "./thread_context.ts";
import { validateProgram } from "./validate.ts";
import type { Value } from "./value.ts";

/** Options of `Executor.run`. */
export interface RunOptions {
  /** Tensors to bind to block-0 variables before running. */
  feeds?: Readonly<Record<string, Tensor>>;
  /** Block-0 variables whose final values to return. */
  fetch?: readonly string[];
  /** A scope from an earlier run of the same program, to run in again. */
  scope?: Scope;
  /** The file the program came from, named in errors. */
  file?: string;
  /**
   * Ends the run when aborted: the run rejects with the signal's reason,
   * and its green threads and timers stop (a loop within one time slice).
   */
  signal?: AbortSignal;
}

/** What a run returns. */
export interface RunResult {
  /** The fetched values by name. */
  fetched: Record<string, Value>;
  /** Block 0's scope after the run. */
  scope: Scope;
}

/** Options of `new Executor`. */
export interface ExecutorOptions {
  /** The device tensor kernels run on. @default {cpuDevice} */
  device?: Device;
  /** Seeds `select`'s choices and random ops. @default {1} */
  seed?: number;
  /** Where `print` writes a line. @default {a line to stdout} */
  print?: (line: string) => void;
}

const encoder = new TextEncoder();

function printToStdout(line: string): void {
  const bytes = encoder.encode(line + "\n");
  let written = 0;
  while (written < bytes.length) {
    written += Deno.stdout.writeSync(bytes.subarray(written));
  }
}

/**
 * Runs programs.
 *
 * @example Usage
 * ```ts
 * import { Executor, Program, fillConstant, print } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * program.guard(() => print(fillConstant({ shape: [1], dtype: "float32", value: 0.1 })));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(program);
 * assertEquals(lines, ["0.1"]);
 * ```
 */
export class Executor {
  readonly #device: Device;
  readonly #seed: number;
  readonly #print: (line: string) => void;

  /**
   * Makes an executor.
   *
   * @param options Device, seed, output.
   */
  constructor(options: ExecutorOptions = {}) {
    this.#device = options.device ?? cpuDevice;
    this.#seed = options.seed ?? 1;
    this.#print = options.print ?? printToStdout;
  }

  /**
   * Validates and runs block 0 of `program`. Rejects with a `ProgramError`
   * for an invalid program (nothing runs), or with a `Panic` or `Deadlock`
   * raised while running.
   *
   * @param program The program, or a builder `Program`.
   * @param options Feeds, fetches, scope.
   * @returns The fetched values and block 0's scope.
   */
  async run(
    program: ProgramDesc | { readonly desc: ProgramDesc },
    options: RunOptions = {},
  ): Promise<RunResult> {
    const desc = "desc" in program ? program.desc : program;
    validateProgram(desc, { file: options.file });
    const prepared = new PreparedProgram(desc);
    const main = prepared.block(0);
    const scope = options.scope ?? new Scope(main.layout);
    if (scope.layout.names.join("\0") !== main.layout.names.join("\0")) {
      throw new ProgramError("run: the scope was made for another program");
    }
    for (const [name, value] of Object.entries(options.feeds ?? {})) {
      if (main.layout.slotOf(name) === undefined) {
        throw new ProgramError(
          `feed: variable "${name}" is not declared in block 0`,
        );
      }
      scope.set(name, value);
    }
    for (const name of options.fetch ?? []) {
      if (main.layout.slotOf(name) === undefined) {
        throw new ProgramError(
          `fetch: variable "${name}" is not declared in block 0`,
        );
      }
    }
    // No async context per green thread: every op names its thread from its
    // ThreadContext, and a million parked threads fit in 1 GiB.
    const scheduler = new Scheduler({ seed: this.#seed, threadContext: false });
    const services: RunServices = {
      scheduler,
      device: this.#device,
      seed: this.#seed,
      print: this.#print,
    };
    await scheduler.run(
      (thread) => runBlock(main, scope, { run: services, thread }),
      { signal: options.signal },
    );
    const fetched: Record<string, Value> = {};
    for (const name of options.fetch ?? []) fetched[name] = scope.get(name);
    return { fetched, scope };
  }
}
