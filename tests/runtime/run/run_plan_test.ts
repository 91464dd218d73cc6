// Planning a run: the device, the workers and why, from what was asked and
// the program. The GPU cases run where an adapter is (CI has llvmpipe).

import { assertEquals, assertMatch } from "@std/assert";
import {
  fc,
  fillConstant,
  go,
  makeChannel,
  matmul,
  Program,
  recv,
  send,
} from "../../../mod.ts";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import { chooseDevice } from "../../../runtime/run/device_choice.ts";
import {
  explainPlan,
  planRun,
  settleWorkers,
} from "../../../runtime/run/run_plan.ts";
import { gpuTest } from "../../kernels/webgpu/_gpu.ts";

/** A program whose goroutine may run on another worker. */
function goroutineProgram(): Program {
  const p = new Program();
  p.guard(() => {
    const ch = makeChannel({ dtype: "float32" });
    go(() => send(ch, fillConstant({ shape: [1], value: 1 })));
    recv(ch);
  });
  return p;
}

/** A program with one product of `n`×`n` matrices. */
function productProgram(n: number): Program {
  const p = new Program();
  p.guard(() => {
    const x = fillConstant({ shape: [n, n], value: 1 });
    matmul(x, x);
  });
  return p;
}

Deno.test("planRun() keeps a run that asks for one worker on it", async () => {
  const plan = await planRun(goroutineProgram().desc, {
    device: "cpu",
    workers: 1,
  });
  assertEquals([plan.device, plan.workers], [cpuDevice, 1]);
  assertEquals(plan.workersReason, "1 (one asked for)");
  assertEquals(plan.deviceReason, "cpu (--device cpu)");
});

Deno.test("planRun() spreads a program whose goroutine may move over the workers asked for", async () => {
  const p = goroutineProgram();
  const plan = await planRun(p.desc, { device: "cpu", workers: 3 });
  assertEquals(plan.workers, 3);
  assertEquals(plan.workersReason, "3 (block 1 may run on another worker)");
  assertEquals(plan.placement.blocks.get(1)?.movable, true);
});

Deno.test("planRun() starts no pool for a program with nothing to spread", async () => {
  const plan = await planRun(productProgram(8).desc, {
    device: "cpu",
    workers: 2,
  });
  assertEquals(plan.workers, 1);
  assertEquals(
    plan.workersReason,
    "1 of 2: nothing to spread (no goroutine may move, no large product to split)",
  );
});

Deno.test("planRun() pools a product large enough to split", async () => {
  // 512³ multiply-adds: the least a split is worth.
  const plan = await planRun(productProgram(512).desc, {
    device: "cpu",
    workers: 2,
  });
  assertEquals(plan.workers, 2);
  assertEquals(plan.workersReason, "2 (block 0 op 1 (matmul) may be split)");
});

Deno.test("planRun() estimates an fc's work from Input and W", async () => {
  const plan = (n: number) => {
    const p = new Program();
    p.guard(() => {
      const x = fillConstant({ shape: [n, n], value: 1 });
      fc(x, x);
    });
    return planRun(p.desc, { device: "cpu", workers: 2 });
  };
  assertEquals((await plan(8)).workers, 1);
  const large = await plan(512);
  assertEquals(large.workersReason, "2 (block 0 op 1 (fc) may be split)");
});

Deno.test('planRun() with workers "auto" asks for every core', async () => {
  const cores = Math.min(navigator.hardwareConcurrency, 256);
  const plan = await planRun(goroutineProgram().desc, {
    device: "cpu",
    workers: "auto",
  });
  assertEquals(plan.workers, cores);
  const none = await planRun(new Program().desc, {
    device: "cpu",
    workers: "auto",
  });
  assertEquals(
    none.workersReason,
    cores === 1
      ? "1 (one core)"
      : `1 of ${cores}: nothing to spread (no goroutine may move, no large product to split)`,
  );
});

Deno.test("explainPlan() prints the device and the workers, each with its reason", async () => {
  const plan = await planRun(goroutineProgram().desc, {
    device: "cpu",
    workers: 2,
  });
  assertEquals(
    explainPlan(plan),
    "device: cpu (--device cpu)\nworkers: 2 (block 1 may run on another worker)\n",
  );
});

Deno.test("settleWorkers(): a run on the CPU uses its workers", async () => {
  for (const wanted of ["auto", "cpu"] as const) {
    const chosen = await chooseDevice(wanted, new Program().desc, NaN);
    const plan = settleWorkers(wanted, chosen, 2, "a reason");
    assertEquals([plan.device, plan.workers], [chosen.device, 2]);
    assertEquals(plan.deviceReason, chosen.reason);
  }
});

Deno.test({
  name:
    "settleWorkers(): a GPU that auto found keeps the run on one worker; one named gives way to the workers",
  ...gpuTest,
  async fn() {
    const gpu = await chooseDevice("webgpu", new Program().desc, NaN);
    // As `auto` would choose on a hardware adapter.
    const found = settleWorkers("auto", gpu, 2, "a reason");
    assertEquals([found.workers, found.device], [1, gpu.device]);
    assertEquals(
      found.deviceReason,
      `${gpu.reason}; on one worker, as a run with workers keeps its tensors on the CPU`,
    );
    assertEquals(
      found.workersReason,
      "1 of 2: the GPU keeps the run on one worker",
    );
    for (const named of ["webgpu", gpu.device] as const) {
      const given = settleWorkers(named, gpu, 2, "a reason");
      assertEquals([given.workers, given.device.name], [2, "cpu"]);
      assertEquals(
        given.deviceReason,
        `cpu (${gpu.reason}, but a run with workers uses the CPU)`,
      );
    }
  },
});

Deno.test({
  name: 'planRun() with webgpu named and workers "auto" keeps to one worker',
  ...gpuTest,
  async fn() {
    const plan = await planRun(goroutineProgram().desc, {
      device: "webgpu",
      workers: "auto",
    });
    assertEquals([plan.device.name, plan.workers], ["webgpu", 1]);
    assertMatch(plan.workersReason, /^1 \(webgpu named: /);
  },
});
