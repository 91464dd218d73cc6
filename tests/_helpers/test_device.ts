/**
 * The device the program tests run on: `RILL_TEST_DEVICE` (`cpu`, `webgpu`
 * or `auto`), else `cpu`. `deno task test` runs the program suites a third
 * time with `webgpu`, so that each program prints the same on both devices
 * (small tensors stay on the CPU there, large float tensors go to the GPU).
 * Without a WebGPU adapter that pass runs on the CPU, unless
 * `RILL_REQUIRE_WEBGPU=1` (CI), when the runs fail.
 *
 * @module
 */
import { GpuDevice } from "../../kernels/webgpu/gpu_device.ts";
import type { DeviceName } from "../../runtime/run/device_choice.ts";

const wanted = (Deno.env.get("RILL_TEST_DEVICE") ?? "cpu") as DeviceName;
const required = Deno.env.get("RILL_REQUIRE_WEBGPU") === "1";

/** The `device` option of the executors the program tests make. */
export const TEST_DEVICE: DeviceName = wanted === "webgpu" && !required &&
    !((await GpuDevice.request()) instanceof GpuDevice)
  ? "cpu"
  : wanted;
