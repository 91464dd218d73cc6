import { assertEquals, assertThrows } from "@std/assert";
import {
  groupNormGroups,
  instanceNormPlanes,
  layerNormRows,
} from "../../kernels/norm_geometry.ts";

Deno.test("layerNormRows() splits the shape at begin_norm_axis and refuses an axis outside it", () => {
  assertEquals(layerNormRows([2, 3, 4], 2), { left: 6, right: 4 });
  assertEquals(layerNormRows([5], 0), { left: 1, right: 5 });
  assertThrows(
    () => layerNormRows([2, 3], 2),
    RangeError,
    "layer_norm: begin_norm_axis 2 is outside [0, 2) for input [2, 3]",
  );
});

Deno.test("instanceNormPlanes() gives images, channels and planes, rank 2 and up", () => {
  assertEquals(instanceNormPlanes([2, 3]), { n: 2, c: 3, plane: 1 });
  assertThrows(
    () => instanceNormPlanes([4]),
    RangeError,
    "instance_norm: input [4] has rank below 2",
  );
});

Deno.test("groupNormGroups() reads C by layout and refuses groups that do not divide it", () => {
  assertEquals(groupNormGroups([2, 5, 6], 3, true), {
    n: 2,
    c: 6,
    width: 2,
    positions: 5,
  });
  assertEquals(groupNormGroups([0, 4, 3], 2, false).positions, 0);
  assertThrows(
    () => groupNormGroups([1, 6, 2], 4, false),
    RangeError,
    "group_norm: input [1, 6, 2] does not split into 4 groups of channels",
  );
});
