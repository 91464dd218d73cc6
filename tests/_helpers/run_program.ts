/**
 * Runs a program built by a callback and collects what it printed and the
 * values of the variables the callback returned, through the public
 * `Executor` API: `new Executor({ print }).run(program, { fetch })`.
 *
 * @module
 */
import { assertInstanceOf } from "@std/assert";
import {
  Executor,
  type Program as ProgramType,
  type ProgramDesc,
  Tensor,
  type Value,
  type Variable,
} from "../../mod.ts";
import { Program } from "../../mod.ts";
import { TEST_DEVICE } from "./test_device.ts";
import { TEST_WORKERS } from "./test_workers.ts";

/** What a builder callback may return: the variables to fetch. */
export type Fetches = Variable | readonly Variable[] | void;

/** Options of `runProgram`. */
export interface RunProgramOptions {
  /** The executor's seed. @default {1} */
  seed?: number;
  /** Tensors fed to block-0 variables. */
  feeds?: Readonly<Record<string, Tensor>>;
  /** More block-0 variables to fetch, by name. */
  fetch?: readonly string[];
}

/** What `runProgram` returns. */
export interface ProgramRun {
  /** The program that ran. */
  program: ProgramType;
  /** Every line `print` wrote, in order. */
  lines: string[];
  /** The fetched values, in the order the callback returned them. */
  values: Value[];
  /** Every fetched value by name. */
  fetched: Record<string, Value>;
}

/**
 * Builds a program with `build` as the default program's builder.
 *
 * @param build Appends ops; may return variables.
 * @returns The program and what `build` returned.
 */
export function buildProgram<T>(build: () => T): [ProgramType, T] {
  const program = new Program();
  const result = program.guard(build);
  return [program, result];
}

/**
 * Builds and runs a program; returns its printed lines and the values of
 * the variables `build` returned.
 *
 * @param build Appends ops; returns the variables to fetch.
 * @param options Seed, feeds, more fetches.
 * @returns The run's output.
 */
export async function runProgram(
  build: (() => Fetches) | ProgramType | ProgramDesc,
  options: RunProgramOptions = {},
): Promise<ProgramRun> {
  let program: ProgramType;
  let wanted: Variable[] = [];
  if (typeof build === "function") {
    const [p, result] = buildProgram(build);
    program = p;
    wanted = result === undefined
      ? []
      : Array.isArray(result)
      ? [...result]
      : [result as Variable];
  } else {
    program = "desc" in build ? build : new Program(build);
  }
  const lines: string[] = [];
  const names = [...wanted.map((v) => v.name), ...(options.fetch ?? [])];
  const { fetched } = await new Executor({
    workers: TEST_WORKERS,
    device: TEST_DEVICE,
    seed: options.seed,
    print: (l) => lines.push(l),
  }).run(program, { feeds: options.feeds, fetch: names });
  return {
    program,
    lines,
    values: wanted.map((v) => fetched[v.name]),
    fetched,
  };
}

/**
 * Runs `build` and returns the one tensor it returned.
 *
 * @param build Appends ops; returns one variable.
 * @param options Seed, feeds.
 * @returns The variable's tensor after the run.
 */
export async function runForTensor(
  build: () => Variable,
  options: RunProgramOptions = {},
): Promise<Tensor> {
  const { values } = await runProgram(build, options);
  return tensorOf(values[0]);
}

/** What `runForTensors` returns. */
export interface TensorsRun extends ProgramRun {
  /** The tensors of the variables the callback returned, in order. */
  tensors: Tensor[];
}

/**
 * Runs `build` and returns, besides the run's output, the tensors of the
 * variables it returned.
 *
 * @param build Appends ops; returns the variables to fetch.
 * @param options Seed, feeds, more fetches.
 * @returns The run's output and the tensors.
 */
export async function runForTensors(
  build: () => Fetches,
  options: RunProgramOptions = {},
): Promise<TensorsRun> {
  const run = await runProgram(build, options);
  return { ...run, tensors: run.values.map(tensorOf) };
}

/**
 * Runs `build`, or a program already built, and returns the lines it
 * printed.
 *
 * @param build Appends ops; or the program to run.
 * @param options Seed, feeds.
 * @returns The printed lines.
 */
export async function printedBy(
  build: (() => Fetches) | ProgramType | ProgramDesc,
  options: RunProgramOptions = {},
): Promise<string[]> {
  return (await runProgram(build, options)).lines;
}

/**
 * Asserts that a value is a tensor.
 *
 * @param v The value.
 * @returns The tensor.
 */
export function tensorOf(v: Value): Tensor {
  assertInstanceOf(v, Tensor);
  return v as Tensor;
}
