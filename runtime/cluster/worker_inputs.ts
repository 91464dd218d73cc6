/**
 * What a worker's endpoints take: for each endpoint, the tensors a call
 * must send, each with the declaration of the variable it binds. A worker
 * checks every incoming tensor against them as `--feed` checks a feed (its
 * dtype, and its rank and dims where the declaration gives them, -1
 * matching any size), when the tensor's header arrives and before any of
 * its bytes is buffered.
 *
 * @module
 */

import type { ProgramDesc, VarDesc } from "../../gen/rill/v1/framework_pb.ts";
import type { DType } from "../../kernels/dtype.ts";
import { printable } from "../core/errors.ts";
import { describeDeclaration } from "../core/declared_fit.ts";
import { varInfoOf } from "../core/var_info.ts";

/** A tensor as its header describes it, before its bytes arrive. */
export interface IncomingTensor {
  /** Its name in the call. */
  readonly name: string;
  /** Its element type. */
  readonly dtype: DType;
  /** Its dims, outermost first. */
  readonly shape: readonly number[];
}

/** The variable an endpoint binds a tensor to. */
export interface DeclaredInput {
  /** The tensor's name in a call. */
  readonly tensor: string;
  /** The variable's declaration. */
  readonly variable: VarDesc;
}

/** Why a call's tensors were refused: see {@linkcode WorkerInputError}. */
export type WorkerInputProblem =
  | "no_endpoint"
  | "unknown_tensor"
  | "wrong_tensor"
  | "missing_tensor";

/**
 * A call that does not fit the worker's endpoints: an endpoint it does not
 * serve, a tensor name the endpoint does not take, a tensor whose dtype or
 * shape its variable's declaration refuses, or a tensor not sent.
 *
 * @example Usage
 * ```ts
 * import { WorkerInputError } from "./worker_inputs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new WorkerInputError("unknown_tensor", "listen_and_do", "x", 'endpoint "listen_and_do" takes only "input"');
 * assertEquals(e.message, 'tensor "x": endpoint "listen_and_do" takes only "input"');
 * ```
 */
export class WorkerInputError extends Error {
  /** What is wrong. */
  readonly problem: WorkerInputProblem;
  /** The endpoint called. */
  readonly endpoint: string;
  /** The tensor involved, if one is. */
  readonly tensor: string | undefined;

  /**
   * Makes the error `tensor "name": detail`, or `detail` without a tensor.
   *
   * @param problem What is wrong.
   * @param endpoint The endpoint called.
   * @param tensor The tensor involved.
   * @param detail The specifics.
   */
  constructor(
    problem: WorkerInputProblem,
    endpoint: string,
    tensor: string | undefined,
    detail: string,
  ) {
    super(
      printable(
        tensor === undefined ? detail : `tensor "${tensor}": ${detail}`,
      ),
    );
    this.name = "WorkerInputError";
    this.problem = problem;
    this.endpoint = endpoint;
    this.tensor = tensor;
  }
}

/**
 * The endpoints a worker serves and the tensors each takes.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { VarDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { WorkerInputError, WorkerInputs } from "./worker_inputs.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const img = create(VarDescSchema, {
 *   name: "img",
 *   type: { type: 7, lodTensor: { tensor: { dataType: 5, dims: [-1n, 784n] } } },
 * });
 * const inputs = new WorkerInputs([["listen_and_do", [{ tensor: "input", variable: img }]]]);
 * inputs.checkTensor("listen_and_do", { name: "input", dtype: "float32", shape: [3, 784] });
 * const e = assertThrows(
 *   () => inputs.checkTensor("listen_and_do", { name: "input", dtype: "int64", shape: [3, 784] }),
 *   WorkerInputError,
 * );
 * assertEquals(e.problem, "wrong_tensor");
 * assertEquals(
 *   e.message,
 *   'tensor "input": variable "img" is declared float32 [-1, 784], the call sends int64 [3, 784]',
 * );
 * ```
 */
export class WorkerInputs {
  #endpoints: ReadonlyMap<string, ReadonlyMap<string, DeclaredInput[]>>;

  /**
   * Makes the table. A tensor named more than once for an endpoint (a
   * program with several servers) fits when it fits any one declaration.
   *
   * @param endpoints Each endpoint with the tensors it takes.
   */
  constructor(
    endpoints: Iterable<readonly [string, readonly DeclaredInput[]]>,
  ) {
    const table = new Map<string, Map<string, DeclaredInput[]>>();
    for (const [endpoint, inputs] of endpoints) {
      let tensors = table.get(endpoint);
      if (tensors === undefined) table.set(endpoint, tensors = new Map());
      for (const input of inputs) {
        const same = tensors.get(input.tensor);
        if (same === undefined) tensors.set(input.tensor, [input]);
        else same.push(input);
      }
    }
    this.#endpoints = table;
  }

  /**
   * Checks that the worker serves `endpoint`.
   *
   * @param endpoint The endpoint a call names.
   * @throws {WorkerInputError} `no_endpoint`, if it does not.
   */
  checkEndpoint(endpoint: string): void {
    if (this.#endpoints.has(endpoint)) return;
    const served = [...this.#endpoints.keys()].map((e) => `"${e}"`);
    throw new WorkerInputError(
      "no_endpoint",
      endpoint,
      undefined,
      `endpoint "${endpoint}": the worker serves ${
        served.length === 0 ? "none" : `only ${served.join(", ")}`
      }`,
    );
  }

  /**
   * Checks one tensor's header against the endpoint's declarations.
   *
   * Precondition: `checkEndpoint(endpoint)` passed.
   *
   * @param endpoint The endpoint called.
   * @param tensor The tensor's name, dtype and shape.
   * @throws {WorkerInputError} `unknown_tensor` or `wrong_tensor`.
   */
  checkTensor(endpoint: string, tensor: IncomingTensor): void {
    const tensors = this.#endpoints.get(endpoint)!;
    const declared = tensors.get(tensor.name);
    if (declared === undefined) {
      const names = [...tensors.keys()].map((n) => `"${n}"`);
      throw new WorkerInputError(
        "unknown_tensor",
        endpoint,
        tensor.name,
        `endpoint "${endpoint}" takes ${
          names.length === 0 ? "no tensor" : `only ${names.join(", ")}`
        }`,
      );
    }
    if (declared.some((d) => fits(d.variable, tensor))) return;
    const variables = declared.map((d) =>
      `variable "${d.variable.name}" is declared ${
        describeDeclaration(d.variable)
      }`
    );
    throw new WorkerInputError(
      "wrong_tensor",
      endpoint,
      tensor.name,
      `${variables.join(" or ")}, the call sends ${tensor.dtype} [${
        tensor.shape.join(", ")
      }]`,
    );
  }

  /**
   * Checks that a call sent every tensor its endpoint takes.
   *
   * Precondition: `checkEndpoint(endpoint)` passed.
   *
   * @param endpoint The endpoint called.
   * @param sent The names of the tensors the call sent.
   * @throws {WorkerInputError} `missing_tensor`, naming the first missing.
   */
  checkComplete(endpoint: string, sent: ReadonlySet<string>): void {
    for (const [name, declared] of this.#endpoints.get(endpoint)!) {
      if (sent.has(name)) continue;
      const variable = declared[0].variable;
      throw new WorkerInputError(
        "missing_tensor",
        endpoint,
        name,
        `the call does not send it (variable "${variable.name}", ${
          describeDeclaration(variable)
        })`,
      );
    }
  }
}

/**
 * Whether a tensor of this dtype and shape may bind the variable: the rule
 * of `fitsDeclaration` (runtime/core/declared_fit.ts), applied to a header.
 */
function fits(variable: VarDesc, tensor: IncomingTensor): boolean {
  const info = varInfoOf(variable);
  if (info.kind !== "tensor") return false;
  if (info.dtype !== undefined && info.dtype !== tensor.dtype) return false;
  const shape = info.shape;
  if (shape === undefined) return true;
  return shape.length === tensor.shape.length &&
    shape.every((d, i) => d < 0 || d === tensor.shape[i]);
}

/**
 * The declaration of `name` in block `index` of `desc` or in its nearest
 * ancestor: the variable an op of that block reads or writes under the
 * name.
 *
 * @param desc The program.
 * @param index The block's index.
 * @param name The variable's name.
 * @returns Its declaration, or undefined when no block on the way declares
 * it (or the index names no block).
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { declarationIn } from "./worker_inputs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const desc = create(ProgramDescSchema, {
 *   blocks: [
 *     { idx: 0, parentIdx: -1, vars: [{ name: "img" }] },
 *     { idx: 1, parentIdx: 0 },
 *   ],
 * });
 * assertEquals(declarationIn(desc, 1, "img")?.name, "img");
 * assertEquals(declarationIn(desc, 1, "other"), undefined);
 * ```
 */
export function declarationIn(
  desc: ProgramDesc,
  index: number,
  name: string,
): VarDesc | undefined {
  // Bounded by the number of blocks: a validated program's parents form a
  // tree, but a cycle must not hang a check.
  for (let i = 0; i <= desc.blocks.length && index >= 0; i++) {
    const block = desc.blocks[index];
    const found = block?.vars.find((v) => v.name === name);
    if (found !== undefined) return found;
    index = block?.parentIdx ?? -1;
  }
  return undefined;
}
