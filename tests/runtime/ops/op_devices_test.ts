import { assert, assertEquals } from "@std/assert";
import { create } from "@bufbuild/protobuf";
import { ProgramDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import {
  feedTargets,
  fillConstant,
  loadModel,
  Program,
  relu,
} from "../../../mod.ts";
import { decodeNpy } from "../../../kernels/npy.ts";
import { GPU_KERNELS } from "../../../kernels/webgpu/gpu_kernels.ts";
import type { KernelUse } from "../../../runtime/core/op_def.ts";
import { OPS } from "../../../runtime/ops/mod.ts";
import {
  cpuFallbacks,
  opDevices,
  programOps,
} from "../../../runtime/ops/op_devices.ts";
import {
  type KernelCalls,
  recordKernelCalls,
  undeclaredCalls,
} from "../../_helpers/kernel_recorder.ts";
import {
  IGNORE_PADDLE_MODELS,
  PADDLE_MODELS,
} from "../../_helpers/paddle_models.ts";

Deno.test("opDevices() places each op from its kernels and the WebGPU table", () => {
  const place = (type: string) => opDevices(OPS.get(type)!).place;
  assertEquals(place("conv2d"), "wgsl");
  assertEquals(place("conv2d_transpose"), "wgsl");
  assertEquals(place("rnn"), "wgsl");
  assertEquals(place("layer_norm"), "wgsl");
  assertEquals(place("fill_constant_batch_size_like"), "cpu");
  assertEquals(place("go"), "host");
  assertEquals(place("feed"), "host");
  assertEquals(opDevices(OPS.get("dropout")!), {
    place: "partly",
    cpuOnly: ["fill"],
  });
  // A view on the GPU, though no entry of the table.
  assertEquals(place("reshape2"), "wgsl");
});

Deno.test("opDevices() agrees with the WebGPU table for every op: wgsl ops name only kernels with entries", () => {
  for (const def of OPS.values()) {
    const { place, cpuOnly } = opDevices(def);
    const uses = def.kernels === undefined || def.kernels === "own"
      ? []
      : def.kernels;
    const names = uses.map((u: KernelUse) =>
      typeof u === "string" ? u : u.kernel
    );
    if (place === "wgsl") {
      for (const name of names) {
        assert(
          name in GPU_KERNELS || name === "reshape",
          `${def.type}: ${name}`,
        );
      }
      assertEquals(cpuOnly, []);
    }
    if (place === "host") assertEquals(names, [], def.type);
  }
});

Deno.test("programOps() counts each op type in every block, sorted, unknown ones without devices", () => {
  const ops = ["yolo_box", "relu", "yolo_box"].map((type) => ({ type }));
  const desc = create(ProgramDescSchema, {
    blocks: [
      { idx: 0, parentIdx: -1, ops },
      { idx: 1, parentIdx: 0, ops: [{ type: "relu" }] },
    ],
  });
  const found = programOps(desc);
  assertEquals(found.map((o) => [o.type, o.count]), [["relu", 2], [
    "yolo_box",
    2,
  ]]);
  assertEquals(found[0].devices?.place, "wgsl");
  assertEquals(found[1].devices, undefined);
});

Deno.test("cpuFallbacks() lists the ops that run on the CPU alone, or none", () => {
  const p = new Program();
  p.guard(() => relu(fillConstant({ shape: [2] })));
  assertEquals(cpuFallbacks(p.desc), "fill_constant ×1");
  const empty = new Program();
  assertEquals(cpuFallbacks(empty.desc), "none");
});

// The declarations against what the ops call: every shared model is run
// on the recording device (the op cases are, group by group, in
// tests/_helpers/op_cases.ts).
Deno.test({
  name: "paddle models: every kernel an op calls is among its declared kernels",
  ignore: IGNORE_PADDLE_MODELS,
  async fn() {
    const calls: KernelCalls = new Map();
    for (const entry of Deno.readDirSync(PADDLE_MODELS)) {
      if (!entry.isDirectory) continue;
      const dir = `${PADDLE_MODELS}/${entry.name}`;
      const model = await loadModel(dir);
      const inputs = [...Deno.readDirSync(dir)].map((e) => e.name).filter((
        n,
      ) => n.endsWith(".npy") && !n.endsWith(".expected.npy"));
      const feeds = Object.fromEntries(
        await Promise.all(
          feedTargets(model.desc).map(async ({ name }) => {
            const file = inputs.includes(`${name}.npy`)
              ? `${name}.npy`
              : inputs[0];
            return [name, decodeNpy(await Deno.readFile(`${dir}/${file}`))];
          }),
        ),
      );
      const error = await recordKernelCalls(model.desc, calls, {
        parameters: model.parameters,
        feeds,
      });
      assertEquals(error, undefined, entry.name);
    }
    assert(calls.get("conv2d")?.has("conv2d"), "the recorder saw conv2d");
    assertEquals(undeclaredCalls(calls), []);
  },
});
