// The real models on the GPU keep their tensors there from feed to fetch:
// a run reads back once (the fetches), and a model run again uploads only
// its feeds (its parameters, and the views and statistics made from them,
// are on the GPU already); an op without a GPU kernel adds at most its own
// results. Counted by the WebGPU device's traffic counters.
import { assert, assertEquals } from "@std/assert";
import {
  decodeNpy,
  Executor,
  feedTargets,
  fetchTargets,
  loadModel,
  Tensor,
} from "../../../mod.ts";
import type { Device } from "../../../kernels/device.ts";
import { WebGpuDevice } from "../../../kernels/webgpu/webgpu_device.ts";
import { cpuFallbacks, programOps } from "../../../runtime/ops/op_devices.ts";
import {
  IGNORE_PADDLE_MODELS,
  PADDLE_MODELS,
} from "../../_helpers/paddle_models.ts";
import { ignoreGpu } from "../../kernels/webgpu/_gpu.ts";

const ignore = IGNORE_PADDLE_MODELS || ignoreGpu;

function modelNames(): string[] {
  if (IGNORE_PADDLE_MODELS) return [];
  return [...Deno.readDirSync(PADDLE_MODELS)]
    .filter((e) => e.isDirectory)
    .map((e) => e.name)
    .sort();
}

// The feeds of a folder: `NAME.npy` for feed NAME, else its one input.
async function feedsOf(
  dir: string,
  names: readonly string[],
): Promise<Record<string, Tensor>> {
  const inputs = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) =>
    n.endsWith(".npy") && !n.endsWith(".expected.npy")
  );
  const feeds: Record<string, Tensor> = {};
  for (const name of names) {
    const file = inputs.includes(`${name}.npy`) ? `${name}.npy` : inputs[0];
    feeds[name] = decodeNpy(await Deno.readFile(`${dir}/${file}`));
  }
  return feeds;
}

// A fresh copy of each feed: the device keeps an upload with a tensor's
// elements, so the same tensors would not go up again.
function copied(feeds: Record<string, Tensor>): Record<string, Tensor> {
  return Object.fromEntries(
    Object.entries(feeds).map((
      [name, t],
    ) => [name, new Tensor(t.dtype, t.shape, t.data.slice())]),
  );
}

function trafficOf(device: Device): { uploads: number; readBacks: number } {
  if (!(device instanceof WebGpuDevice)) {
    throw new Error(`the run used ${device.name}, not webgpu`);
  }
  return device.traffic();
}

for (const name of modelNames()) {
  Deno.test({
    name:
      `paddle model ${name} on webgpu reads back once, and run again uploads only its feeds`,
    ignore,
    async fn() {
      const dir = `${PADDLE_MODELS}/${name}`;
      const model = await loadModel(dir);
      const feedNames = feedTargets(model.desc).map((t) => t.name);
      const feeds = await feedsOf(dir, feedNames);
      const fetch = fetchTargets(model.desc);
      const executor = new Executor({ device: "webgpu" });
      const first = await executor.run(model, { feeds, fetch });
      const device = first.plan.device;
      const before = trafficOf(device);
      const again = await executor.run(model, { feeds: copied(feeds), fetch });
      const after = trafficOf(device);
      assertEquals(again.fetched, first.fetched);
      assert(
        after.readBacks - before.readBacks <= 1,
        `${after.readBacks - before.readBacks} read-backs`,
      );
      // Each op of the program that runs on the CPU alone may send its
      // results up once.
      const fallbacks = programOps(model.desc)
        .filter((o) => o.devices?.place === "cpu")
        .reduce((n, o) => n + o.count, 0);
      const uploads = after.uploads - before.uploads;
      assert(
        uploads <= feedNames.length + fallbacks,
        `${uploads} uploads, for ${feedNames.length} feeds and fallbacks ` +
          cpuFallbacks(model.desc),
      );
    },
  });
}

Deno.test({
  name:
    "MobileNetV3 on webgpu run again uploads its one feed and reads back its one fetch",
  ignore: ignore || !modelNames().includes("mbv3_small_3cls"),
  async fn() {
    const dir = `${PADDLE_MODELS}/mbv3_small_3cls`;
    const model = await loadModel(dir);
    assertEquals(cpuFallbacks(model.desc), "none");
    const feeds = await feedsOf(dir, ["x"]);
    const fetch = fetchTargets(model.desc);
    const executor = new Executor({ device: "webgpu" });
    const device = (await executor.run(model, { feeds, fetch })).plan.device;
    const before = trafficOf(device);
    await executor.run(model, { feeds: copied(feeds), fetch });
    const after = trafficOf(device);
    assertEquals(
      {
        uploads: after.uploads - before.uploads,
        readBacks: after.readBacks - before.readBacks,
      },
      { uploads: 1, readBacks: 1 },
    );
  },
});
