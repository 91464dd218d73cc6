/**
 * Rill runs Fluid-style concurrent programs on Deno. A program is a
 * `ProgramDesc` protobuf that reads like the abstract syntax tree of a Go
 * program: blocks of variables and operators, with `while`, `if`,
 * goroutines, channels and `select` as operators. Build one in TypeScript,
 * save it as a `.pb` file, print it, and run it with Go's semantics.
 *
 * @example Build, save and run a program
 * ```ts
 * import { Executor, fillConstant, mul, print, Program } from "@rill/rill";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * program.guard(() => {
 *   const x = fillConstant({ shape: [1, 2], value: 2 });
 *   const w = fillConstant({ shape: [2, 1], value: 3 });
 *   print(mul(x, w), { message: "Y" });
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(program);
 * assertEquals(lines, ["Y [[12]]"]);
 * ```
 *
 * Run a saved program from the command line:
 * `deno run -A mod.ts program.pb [--seed N] [--feed x=x.npy] [--fetch y]`.
 * Split one into a master and a worker program with {@linkcode transpile}
 * (or `deno run -A mod.ts transpile program.pb --out-dir DIR`), serve the
 * worker with `deno run -A mod.ts worker DIR/worker.pb --listen HOST:PORT`
 * and run the master with `deno run -A mod.ts DIR/master.pb --worker-addrs
 * HOST:PORT,...`.
 *
 * @module
 */
// First, so that it evaluates before the rest of Rill: a command-line run
// with --workers starts its pool's workers here, and they load while the
// rest evaluates and the program is read (runtime/cli/_early_workers.ts).
// Imported as a library, it starts nothing.
import "./runtime/cli/_early_workers.ts";
export * from "./runtime/build/program.ts";
export * from "./runtime/layers/mod.ts";
export { Executor } from "./runtime/run/executor.ts";
export type {
  ExecutorOptions,
  ProgramWithParameters,
  RunOptions,
  RunResult,
} from "./runtime/run/executor.ts";
export {
  findModelFiles,
  loadModel,
  persistableVariables,
} from "./runtime/format/model_dir.ts";
export type {
  LoadedModel,
  LoadModelOptions,
} from "./runtime/format/model_dir.ts";
export { traceHtml, traceJson } from "./runtime/run/trace_file.ts";
export type { RunTracer, RunTracerOptions } from "./runtime/core/run_tracer.ts";
export type { ChannelFlows } from "./runtime/core/channel_flows.ts";
export type { TraceCategory, TraceEvent } from "./runtime/core/trace_event.ts";
export type {
  ScheduleGate,
  ScheduleShared,
} from "./runtime/core/schedule_gate.ts";
export type { ScheduleRecorder } from "./runtime/core/schedule_recorder.ts";
export type { ScheduleReplayer } from "./runtime/core/schedule_replayer.ts";
export type {
  ScheduleChannel,
  ScheduleEvent,
  ScheduleRecord,
} from "./runtime/core/schedule_file.ts";
export { feedTargets, fetchTargets } from "./runtime/run/feed_binding.ts";
export type { FeedTarget } from "./runtime/run/feed_binding.ts";
export { BlockLayout, Scope } from "./runtime/core/scope.ts";
export { TensorArray } from "./runtime/core/value.ts";
export type { RawValue, TensorChannel, Value } from "./runtime/core/value.ts";
export {
  SharedChannel,
  type SharedOpOptions,
} from "./scheduler/shared/shared_channel.ts";
export { InternalError, ProgramError } from "./runtime/core/errors.ts";
export type { ProgramErrorWhere } from "./runtime/core/errors.ts";
export { validateProgram } from "./runtime/check/validate.ts";
export type { ValidateOptions } from "./runtime/check/validate.ts";
export { UnknownOpsError } from "./runtime/check/unknown_ops_error.ts";
export type { UnknownOp } from "./runtime/check/unknown_ops_error.ts";
export { dumpProgram } from "./runtime/build/dump.ts";
export type { DumpOptions } from "./runtime/build/dump.ts";
export { GRAPH_FORMATS, graphProgram } from "./runtime/build/graph.ts";
export type { GraphFormat, GraphOptions } from "./runtime/build/graph.ts";
export { vetProgram } from "./runtime/check/vet.ts";
export type { VetFinding, VetOptions, VetRule } from "./runtime/check/vet.ts";
export { transpile } from "./runtime/transpile/transpile.ts";
export type {
  TranspiledPrograms,
  TranspileOptions,
} from "./runtime/transpile/transpile.ts";
export { transpileFiles } from "./runtime/transpile/transpile_files.ts";
export type { TranspiledFiles } from "./runtime/transpile/transpile_files.ts";
export {
  decodeProgram,
  encodeProgram,
  readProgramFile,
  writeProgramFile,
} from "./runtime/format/program_file.ts";
export {
  decodePirProgram,
  PIR_VERSIONS,
} from "./runtime/format/pir_program.ts";
export type {
  PirAttr,
  PirBlock,
  PirOp,
  PirParameter,
  PirProgram,
  PirRegion,
  PirType,
  PirValue,
} from "./runtime/format/pir_program.ts";
export { pirToProgram } from "./runtime/format/pir_to_program.ts";
export type { PirToProgramOptions } from "./runtime/format/pir_to_program.ts";
export { PirUnsupportedError } from "./runtime/format/pir_unsupported_error.ts";
export type {
  PirGap,
  PirGapKind,
} from "./runtime/format/pir_unsupported_error.ts";
export { PIR_OP_NAMES, pirOpRule } from "./runtime/format/pir_op_table.ts";
export type {
  PirConstantKind,
  PirMappedOp,
  PirOperandRule,
  PirOpRule,
  PirSpecialOp,
} from "./runtime/format/pir_op_table.ts";
export { OPS } from "./runtime/ops/mod.ts";
export type {
  AttrKind,
  AttrSchema,
  AttrSpec,
  AttrValueOf,
  AttrValues,
  CheckContext,
  InferContext,
  InferredType,
  KernelUse,
  LeftOperandRows,
  NamedVariables,
  OpDef,
  OpKernels,
  RowRule,
  SlotSpec,
  VarInfo,
  VarKind,
} from "./runtime/core/op_def.ts";
export type {
  OpRun,
  PrepareContext,
  ResumableRun,
} from "./runtime/core/prepare_context.ts";
export { VarRef } from "./runtime/core/var_ref.ts";
export type {
  PreparedBlock,
  PreparedOp,
} from "./runtime/core/prepared_block.ts";
export type {
  ClusterSettings,
  DiscoveryOverrides,
  ParkOptions,
  ResumeOptions,
  RunServices,
  ThreadContext,
} from "./runtime/core/thread_context.ts";
export type { PoolHandle } from "./runtime/pool/worker_pool.ts";
export { StartedWorkers } from "./runtime/pool/worker_start.ts";
export type { StartedWorker } from "./runtime/pool/worker_start.ts";
export { explainPlan, planRun } from "./runtime/run/run_plan.ts";
export type {
  DeviceAndWorkers,
  RunPlan,
  RunRequest,
} from "./runtime/run/run_plan.ts";
export type {
  BlockPlacement,
  OpLocation,
  PinnedBy,
  ProgramPlacement,
} from "./runtime/check/placement.ts";
export { runCli } from "./runtime/cli/cli.ts";
export type { CliIO, CliResult } from "./runtime/cli/cli.ts";
export { Tensor } from "./kernels/tensor.ts";
export {
  type DeviceHome,
  DeviceTensor,
  ElementsOnDevice,
  readBack,
} from "./kernels/device_tensor.ts";
export type { DeviceChoice, DeviceName } from "./runtime/run/device_choice.ts";
export type { NestedArray, NestedValue } from "./kernels/tensor.ts";
export type { DType, Scalar, TypedArray } from "./kernels/dtype.ts";
export type { Device, Kernels } from "./kernels/device.ts";
export type {
  ActivationKind,
  BinaryKind,
  CompareKind,
  LogicalKind,
  PoolKind,
  ReduceKind,
  UnaryKind,
} from "./kernels/kernel_kinds.ts";
export type {
  BatchNormKernelOptions,
  Conv2dKernelOptions,
  Conv2dTransposeKernelOptions,
  Float32Gemm,
  GroupNormKernelOptions,
  LayerNormKernelOptions,
  MatmulKernelOptions,
  Mul2dKernelOptions,
  NormKernelOptions,
  Pool2dKernelOptions,
  ReduceKernelOptions,
  RnnKernelOptions,
  RnnMode,
  SplitKernelOptions,
  WindowOptions,
} from "./kernels/kernel_options.ts";
export type { CounterKey } from "./kernels/counter_random.ts";
export { decodeNpy, encodeNpy } from "./kernels/npy.ts";
export {
  readPaddleTensor,
  readPaddleTensors,
  writePaddleTensor,
  writePaddleTensors,
} from "./runtime/format/paddle_tensor.ts";
export type {
  LoD,
  PaddleTensor,
  PaddleTensorRead,
} from "./runtime/format/paddle_tensor.ts";
export {
  readTensorFile,
  sniffTensorFile,
} from "./runtime/format/tensor_file.ts";
export type {
  TensorFileContents,
  TensorFileFormat,
} from "./runtime/format/tensor_file.ts";
// The program format's messages and enums. Their schemas (what protobuf-es's
// create(), toBinary() and fromBinary() take) are the `./proto` entry point,
// the generated file itself: their type, protobuf-es's GenMessage, is built
// from types protobuf-es keeps private, so no entry point that exports them
// documents completely.
export type {
  BlockDesc,
  CompatibleInfo,
  Complex,
  OpCompatibleMap,
  OpCompatibleMap_OpCompatiblePair,
  OpDesc,
  OpDesc_Attr,
  OpDesc_Var,
  OpVersion,
  OpVersionMap,
  OpVersionMap_OpVersionPair,
  ProgramDesc,
  VarDesc,
  VarDesc_Attr,
  VarType,
  VarType_ChannelDesc,
  VarType_LoDTensorArrayDesc,
  VarType_LoDTensorDesc,
  VarType_ReaderDesc,
  VarType_TensorDesc,
  VarType_Tuple,
  Version,
} from "./gen/rill/v1/framework_pb.ts";
export {
  AttrType,
  CompatibleInfo_Type,
  Scalar_Type,
  VarType_Type,
} from "./gen/rill/v1/framework_pb.ts";
/** The program format's `Scalar` message (`Scalar` names the element type). */
export type { Scalar as ScalarMessage } from "./gen/rill/v1/framework_pb.ts";
// What every message is built on, from protobuf-es.
export type { Message, UnknownField } from "@bufbuild/protobuf";
export type { WireType } from "@bufbuild/protobuf/wire";
/** The green-thread runtime as a TypeScript API: channels, `go`, `select`, timers. */
export * as csp from "./scheduler/mod.ts";

if (import.meta.main) {
  const { runCli } = await import("./runtime/cli/cli.ts");
  const encoder = new TextEncoder();
  const write = (stream: typeof Deno.stdout) => (text: string) => {
    const bytes = encoder.encode(text);
    for (let n = 0; n < bytes.length;) n += stream.writeSync(bytes.subarray(n));
  };
  const toStdout = write(Deno.stdout);
  const { code } = await runCli(Deno.args, {
    stdout(text) {
      try {
        toStdout(text);
      } catch (e) {
        // The reader left (`| head`): end quietly, as SIGPIPE ends a Go
        // program, with the shell's code for that (128 + 13).
        if (e instanceof Deno.errors.BrokenPipe) Deno.exit(141);
        throw e;
      }
    },
    stderr: write(Deno.stderr),
  });
  // One turn of the event loop before exiting: Deno stores the V8 code
  // cache of the modules it compiled only when its event loop runs, and a
  // command that ends without waiting on anything (`--version`, `help`, a
  // usage error) would otherwise exit first, leaving every later run to
  // compile Rill's modules again (bench/README.md, "Where start-up goes").
  await new Promise((resolve) => setTimeout(resolve, 0));
  Deno.exit(code);
}
