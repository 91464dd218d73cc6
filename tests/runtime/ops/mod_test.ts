import { assert, assertEquals, assertThrows } from "@std/assert";
import { AttrError, readAttrs } from "../../../runtime/core/attr_read.ts";
import type { AttrKind, OpDef } from "../../../runtime/core/op_def.ts";
import { ACTIVATION_OPS } from "../../../runtime/ops/activation.ts";
import { ARRAY_OPS } from "../../../runtime/ops/array.ts";
import { CHANNEL_OPS } from "../../../runtime/ops/channel.ts";
import { CLUSTER_OPS } from "../../../runtime/ops/cluster.ts";
import { CONTROL_FLOW_OPS } from "../../../runtime/ops/control_flow.ts";
import { DATA_OPS } from "../../../runtime/ops/data.ts";
import { ELEMENTWISE_OPS } from "../../../runtime/ops/elementwise.ts";
import { FEED_FETCH_OPS } from "../../../runtime/ops/feed_fetch.ts";
import { GO_OPS } from "../../../runtime/ops/go.ts";
import { INDEX_OPS } from "../../../runtime/ops/indices.ts";
import { makeRegistry, OPS } from "../../../runtime/ops/mod.ts";
import { PADDLE_SHAPE_OPS } from "../../../runtime/ops/paddle_shape.ts";
import { PRINT_OPS } from "../../../runtime/ops/print.ts";
import { REDUCE_OPS } from "../../../runtime/ops/reduce.ts";
import { RPC_OPS } from "../../../runtime/ops/rpc.ts";
import { SELECT_OPS } from "../../../runtime/ops/select.ts";
import { SHAPE_OPS } from "../../../runtime/ops/shape.ts";
import { TIMER_OPS } from "../../../runtime/ops/timer.ts";
import { VALUE_OPS } from "../../../runtime/ops/values.ts";
import { CONV_OPS } from "../../../runtime/ops/conv.ts";
import { POOL_OPS } from "../../../runtime/ops/pool.ts";
import { NORM_OPS } from "../../../runtime/ops/norm.ts";
import { RNN_OPS } from "../../../runtime/ops/rnn.ts";
import { PADDLE_NN_OPS } from "../../../runtime/ops/paddle_nn.ts";
import { out1 } from "../../../runtime/layers/append_layer.ts";
import { Executor, fillConstant, Program } from "../../../mod.ts";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import type { Device } from "../../../kernels/device.ts";

// Each group has its own table-driven test file in this folder, which
// fails when an op of the group has no conformance case.
const GROUPS: Readonly<Record<string, readonly OpDef[]>> = {
  VALUE_OPS,
  ELEMENTWISE_OPS,
  REDUCE_OPS,
  SHAPE_OPS,
  ARRAY_OPS,
  CONTROL_FLOW_OPS,
  PRINT_OPS,
  CHANNEL_OPS,
  GO_OPS,
  SELECT_OPS,
  TIMER_OPS,
  DATA_OPS,
  FEED_FETCH_OPS,
  CLUSTER_OPS,
  RPC_OPS,
  CONV_OPS,
  POOL_OPS,
  NORM_OPS,
  ACTIVATION_OPS,
  PADDLE_SHAPE_OPS,
  INDEX_OPS,
  RNN_OPS,
  PADDLE_NN_OPS,
};

Deno.test("OPS holds the ops of every group, each once", () => {
  const listed = Object.values(GROUPS).flat();
  assertEquals([...OPS.keys()].sort(), listed.map((d) => d.type).sort());
  for (const def of listed) assert(OPS.get(def.type) === def, def.type);
});

Deno.test("OPS has every op of the contract's operator catalog outside the cluster ops", () => {
  const names = [
    "fill_constant assign_value assign fill_zeros_like cast increment",
    "uniform_random gaussian_random range shape",
    "elementwise_add elementwise_sub elementwise_mul elementwise_div",
    "elementwise_max elementwise_min elementwise_pow elementwise_mod",
    "elementwise_floordiv scale relu sigmoid tanh exp log sqrt abs square",
    "sin cos floor ceil round reciprocal softmax mul matmul reduce_sum",
    "reduce_mean reduce_max reduce_min reduce_prod mean sum less_than",
    "less_equal greater_than greater_equal equal not_equal logical_and",
    "logical_or logical_xor logical_not reshape transpose concat split",
    "slice gather create_array write_to_array read_from_array array_length",
    "split_to_array array_to_tensor while conditional_block channel_create",
    "channel_send channel_recv channel_close go select sleep channel_after",
    "print read save load",
  ].join(" ").split(" ");
  assertEquals(names.filter((n) => !OPS.has(n)), []);
});

Deno.test("makeRegistry() refuses an op type defined twice", () => {
  assertThrows(
    () => makeRegistry([...PRINT_OPS, ...PRINT_OPS]),
    TypeError,
    'register op: "print" is defined twice',
  );
});

const JS_TYPE_OF_KIND: Readonly<Record<AttrKind, (v: unknown) => boolean>> = {
  int: Number.isInteger,
  float: (v) => typeof v === "number",
  string: (v) => typeof v === "string",
  bool: (v) => typeof v === "boolean",
  long: (v) => typeof v === "bigint",
  block: Number.isInteger,
  ints: (v) => Array.isArray(v) && v.every(Number.isInteger),
  floats: (v) => Array.isArray(v) && v.every((x) => typeof x === "number"),
  strings: (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
  bools: (v) => Array.isArray(v) && v.every((x) => typeof x === "boolean"),
  longs: (v) => Array.isArray(v) && v.every((x) => typeof x === "bigint"),
  blocks: (v) => Array.isArray(v) && v.every(Number.isInteger),
};

Deno.test("every OpDef has a summary and defaults of its attributes' kinds", () => {
  for (const def of OPS.values()) {
    assert(def.summary.length > 0, def.type);
    for (const [name, spec] of Object.entries(def.attrs)) {
      if (spec.default === undefined) continue;
      assert(JS_TYPE_OF_KIND[spec.kind](spec.default), `${def.type}.${name}`);
    }
  }
});

Deno.test("every OpDef reads its defaults when no attribute is given", () => {
  for (const def of OPS.values()) {
    const required = Object.entries(def.attrs).filter(([, s]) => s.required);
    if (required.length === 0) {
      readAttrs(def.attrs, []);
    } else {
      const e = assertThrows(() => readAttrs(def.attrs, []), AttrError);
      assert(required.some(([name]) => name === e.attr), def.type);
    }
  }
});

Deno.test("every poolWorthy OpDef is a product of its productSlots run by a kernel that takes the pool's gemm", async () => {
  const worthy = [...OPS.values()].filter((def) => def.poolWorthy);
  assert(worthy.length > 0);
  const cpu = cpuDevice.kernels;
  for (const def of worthy) {
    // The executor estimates the work from the operands' declared shapes.
    const [left, right] = def.productSlots ?? ["X", "Y"];
    assert(left in def.inputs && right in def.inputs, def.type);
    const called: string[] = [];
    const spy: Device = {
      name: "spy",
      kernels: {
        ...cpu,
        mul2d: (...args) => (called.push("mul2d"), cpu.mul2d(...args)),
        matmul: (...args) => (called.push("matmul"), cpu.matmul(...args)),
      },
    };
    const p = new Program();
    const out = p.guard(() =>
      out1(def.type, {
        [left]: fillConstant({ shape: [4, 3] }),
        [right]: fillConstant({ shape: [3, 2] }),
      }, {})
    );
    await new Executor({ device: spy }).run(p, { fetch: [out.name] });
    assertEquals(called.length, 1, def.type);
  }
});
