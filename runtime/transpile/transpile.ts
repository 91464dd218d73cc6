/**
 * The transpiler (the design doc's "Concurrent Version"): one program that
 * computes outputs from one data input becomes a master program and a
 * worker program.
 *
 * The master reads the input, asks for the workers
 * (`kube_get_workers_addrs`), cuts the input's rows into one piece per
 * worker (`split_to_array`), and in a `parallel_for` over the pieces sends
 * piece i to worker i and receives its result (`send`, `recv`,
 * `write_to_array`); it joins the results (`array_to_tensor`) under the
 * original output's name and prints or fetches it as the original did.
 *
 * The worker computes the parameters once and serves the computation
 * (`listen_and_do`): each call binds the input's name to a piece and
 * replies with the output's value, computed by the original ops.
 *
 * A piece is then a function of its rows alone. When every op it runs is
 * pure (pure_piece.ts), the master's `send` says so (`retry`): a piece
 * whose worker is lost is sent again, to another worker.
 *
 * What can be split is in partition.ts and row_separable.ts.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type BlockDesc,
  BlockDescSchema,
  type OpDesc,
  type ProgramDesc,
  ProgramDescSchema,
  type VarDesc,
} from "../../gen/rill/v1/framework_pb.ts";
import { opVariables } from "../check/op_variables.ts";
import { type AttrValue, makeOp, makeVar } from "./_desc_parts.ts";
import { type Partition, partitionProgram } from "./partition.ts";
import { impurityOf } from "./pure_piece.ts";

/** Options of {@linkcode transpile}. */
export interface TranspileOptions {
  /**
   * The label selector that picks the worker pods (`kube_get_workers_addrs`).
   *
   * @default {""} (`--worker-addrs` or `RILL_WORKERS` outside Kubernetes)
   */
  labelSelector?: string;
  /**
   * The port workers listen on and the master dials.
   *
   * @default {0} (the worker picks one; in a pod, its port named `rill`)
   */
  port?: number;
}

/** The two programs a split makes. */
export interface TranspiledPrograms {
  /** Reads the input, sends the pieces, joins and shows the result. */
  readonly master: ProgramDesc;
  /** Computes the parameters and serves the computation. */
  readonly worker: ProgramDesc;
}

/**
 * Splits `desc` into a master program and a worker program.
 *
 * @param desc A program computing its outputs from one data input.
 * @param options Where the master finds the workers.
 * @returns The master and the worker.
 * @throws {ProgramError} If the program cannot be split, naming the op and
 * the variable that prevent it.
 *
 * @example Usage
 * ```ts
 * import { assignValue, mul, print, Program, read, transpile } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const [x] = read("x.npy");
 *   print(mul(x, assignValue([1, 2, 3, 4], { shape: [2, 2] })), { message: "Y" });
 * });
 * const { master, worker } = transpile(p.desc);
 * assertEquals(master.blocks[1].ops.map((op) => op.type), [
 *   "read_from_array", "send", "recv", "write_to_array",
 * ]);
 * assertEquals(worker.blocks[0].ops.map((op) => op.type), ["assign_value", "listen_and_do"]);
 * assertEquals(worker.blocks[1].ops.map((op) => op.type), ["mul"]);
 * ```
 */
export function transpile(
  desc: ProgramDesc,
  options: TranspileOptions = {},
): TranspiledPrograms {
  const parts = partitionProgram(desc);
  return {
    master: masterProgram(desc, parts, options),
    worker: workerProgram(desc, parts, options),
  };
}

function masterProgram(
  desc: ProgramDesc,
  parts: Partition,
  options: TranspileOptions,
): ProgramDesc {
  const original = desc.blocks[0];
  const inputOps = parts.input.op === undefined
    ? []
    : [original.ops[parts.input.op]];
  const names = masterNames(original.vars);
  const ops = masterOps(original.vars, parts, inputOps, names, options);
  const vars = masterVars(original.vars, parts, inputOps, names);
  return create(ProgramDescSchema, {
    version: desc.version,
    blocks: [
      mainBlock(vars, ops),
      masterLoopBlock(names, impurityOf(parts.computeOps, 1) === undefined),
    ],
  });
}

// A program's block 0.
function mainBlock(vars: VarDesc[], ops: OpDesc[]): BlockDesc {
  return create(BlockDescSchema, {
    idx: 0,
    parentIdx: -1,
    vars,
    ops,
    forwardBlockIdx: -1,
  });
}

// The variables the master adds to the original's (see masterNames).
interface MasterNames {
  readonly workers: string;
  readonly count: string;
  readonly pieces: string;
  readonly results: string;
  readonly index: string;
  readonly piece: string;
  readonly result: string;
}

// The master's own variable names, each given a numeric suffix if the
// original already declares it, so the two never collide.
function masterNames(vars: readonly VarDesc[]): MasterNames {
  const taken = new Set(vars.map((v) => v.name));
  const fresh = (name: string) => {
    let unique = name;
    for (let n = 1; taken.has(unique); n++) unique = `${name}_${n}`;
    taken.add(unique);
    return unique;
  };
  return {
    workers: fresh("workers"),
    count: fresh("worker_count"),
    pieces: fresh("pieces"),
    results: fresh("results"),
    index: fresh("index"),
    piece: fresh("piece"),
    result: fresh("result"),
  };
}

// Block 0's ops: read the input, find the workers, cut the input into one
// piece per worker, run the loop over them, join the results under the
// original output's name, then show it as the original did.
function masterOps(
  vars: readonly VarDesc[],
  parts: Partition,
  inputOps: readonly OpDesc[],
  names: MasterNames,
  options: TranspileOptions,
): OpDesc[] {
  const { workers, count, pieces, results, index } = names;
  return [
    ...inputOps,
    makeOp(
      "kube_get_workers_addrs",
      { outputs: { Out: [workers] } },
      discoveryAttrs(options),
    ),
    makeOp("array_length", {
      inputs: { X: [workers] },
      outputs: { Out: [count] },
    }),
    makeOp("split_to_array", {
      inputs: { X: [parts.input.name], Num: [count] },
      outputs: { Out: [pieces] },
    }),
    makeOp(
      "create_array",
      { outputs: { Out: [results] } },
      outputDtypeAttrs(vars, parts.output),
    ),
    makeOp("parallel_for", {
      inputs: { X: [pieces, workers, results], Num: [count] },
    }, { sub_block: { block: 1 }, index_var: { string: index } }),
    makeOp("array_to_tensor", {
      inputs: { X: [results] },
      outputs: { Out: [parts.output] },
    }),
    ...parts.outputOps,
  ];
}

// kube_get_workers_addrs's attributes: only the options that are set, so
// the op's own defaults apply to the rest.
function discoveryAttrs(options: TranspileOptions): Record<string, AttrValue> {
  const discovery: Record<string, AttrValue> = {};
  if (options.labelSelector) {
    discovery.label_selector = { string: options.labelSelector };
  }
  if (options.port) discovery.port = { int: options.port };
  return discovery;
}

// create_array's attributes: the joined results keep the original output's
// dtype when the original declares one.
function outputDtypeAttrs(
  vars: readonly VarDesc[],
  output: string,
): Record<string, AttrValue> {
  const outputDecl = vars.find((v) => v.name === output);
  const dtype = outputDecl?.type?.lodTensor?.tensor?.dataType;
  return dtype === undefined ? {} : { dtype: { int: dtype } };
}

// Block 0's declarations: the original's that the input and output ops use,
// the input itself, and the master's arrays.
function masterVars(
  vars: readonly VarDesc[],
  parts: Partition,
  inputOps: readonly OpDesc[],
  names: MasterNames,
): VarDesc[] {
  const kept = [...inputOps, ...parts.outputOps];
  return [
    ...declarationsOf(vars, kept, new Set([parts.input.name])),
    makeVar(names.workers, "raw"),
    makeVar(names.count, "int64"),
    makeVar(names.pieces, "array"),
    makeVar(names.results, "array"),
  ];
}

// Block 1, the parallel_for's body: iteration i sends piece i to worker i
// and stores its reply as result i. `retry`: the pieces are pure, so a
// piece whose worker is lost may go to another.
function masterLoopBlock(names: MasterNames, retry: boolean): BlockDesc {
  const { workers, pieces, results, index, piece, result } = names;
  return create(BlockDescSchema, {
    idx: 1,
    parentIdx: 0,
    vars: [
      makeVar(index, "int64"),
      makeVar(piece, "tensor"),
      makeVar(result, "tensor"),
    ],
    ops: [
      makeOp("read_from_array", {
        inputs: { X: [pieces], I: [index] },
        outputs: { Out: [piece] },
      }),
      makeOp("send", {
        inputs: { X: [piece], Endpoints: [workers], Index: [index] },
      }, retry ? { retry: { bool: true } } : {}),
      makeOp("recv", {
        inputs: { Endpoints: [workers], Index: [index] },
        outputs: { Out: [result] },
      }),
      makeOp("write_to_array", {
        inputs: { X: [result], I: [index] },
        outputs: { Out: [results] },
      }),
    ],
    forwardBlockIdx: -1,
  });
}

function workerProgram(
  desc: ProgramDesc,
  parts: Partition,
  options: TranspileOptions,
): ProgramDesc {
  const original = desc.blocks[0];
  const rows = parts.rowVariables;
  const outer = declarationsOf(
    original.vars,
    [...parts.parameterOps, ...parts.computeOps],
  ).filter((v) => !rows.has(v.name));
  const inner = declarationsOf(
    original.vars,
    parts.computeOps,
    new Set([parts.input.name]),
  ).filter((v) => rows.has(v.name));
  const serve = makeOp("listen_and_do", {}, {
    endpoint: { string: `127.0.0.1:${options.port ?? 0}` },
    sub_block: { block: 1 },
    input_var: { string: parts.input.name },
    output_var: { string: parts.output },
    max_requests: { int: 0 },
  });
  return create(ProgramDescSchema, {
    version: desc.version,
    blocks: [
      mainBlock(outer, [...parts.parameterOps, serve]),
      create(BlockDescSchema, {
        idx: 1,
        parentIdx: 0,
        vars: inner,
        ops: [...parts.computeOps],
        forwardBlockIdx: -1,
      }),
    ],
  });
}

// The declarations, in the original's order, of the variables `ops` use
// and of `also`.
function declarationsOf(
  vars: readonly VarDesc[],
  ops: readonly OpDesc[],
  also: ReadonlySet<string> = new Set(),
): VarDesc[] {
  const used = new Set(also);
  for (const op of ops) {
    const { reads, writes } = opVariables(op);
    for (const name of [...reads, ...writes]) used.add(name);
  }
  return vars.filter((v) => used.has(v.name));
}
