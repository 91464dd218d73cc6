import { assertEquals } from "@std/assert";
import {
  copyRange,
  rowOffsets,
  stridedCopy,
} from "../../../kernels/cpu/_copy.ts";

Deno.test("rowOffsets() walks rows of a contiguous shape", () => {
  assertEquals([...rowOffsets([2, 3, 4], [12, 4, 1])], [0, 4, 8, 12, 16, 20]);
  assertEquals([...rowOffsets([5], [1], 7)], [7]);
});

Deno.test("rowOffsets() repeats rows along 0 strides", () => {
  assertEquals([...rowOffsets([3, 2], [0, 1])], [0, 0, 0]);
  assertEquals([...rowOffsets([2, 2, 1], [1, 0, 0])], [0, 0, 1, 1]);
});

Deno.test("rowOffsets() gives no rows for an empty shape", () => {
  assertEquals(rowOffsets([2, 0], [0, 1]).length, 0);
  assertEquals(rowOffsets([0, 2], [2, 1]).length, 0);
});

Deno.test("stridedCopy() copies a transposed view", () => {
  const src = new Float32Array([1, 2, 3, 4, 5, 6]);
  const out = new Float32Array(6);
  stridedCopy(src, { offset: 0, strides: [1, 3] }, [3, 2], out);
  assertEquals([...out], [1, 4, 2, 5, 3, 6]);
});

Deno.test("stridedCopy() copies an offset box and rank 0", () => {
  const src = new BigInt64Array([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);
  const out = new BigInt64Array(4);
  stridedCopy(src, { offset: 4, strides: [3, 1] }, [2, 2], out);
  assertEquals([...out], [4n, 5n, 7n, 8n]);
  const one = new BigInt64Array(1);
  stridedCopy(src, { offset: 8, strides: [] }, [], one);
  assertEquals(one[0], 8n);
});

Deno.test("copyRange() copies short and long runs", () => {
  const src = new Int16Array(200).map((_, i) => i);
  const dst = new Int16Array(200);
  copyRange(src, 10, dst, 0, 3);
  assertEquals([...dst.subarray(0, 4)], [10, 11, 12, 0]);
  copyRange(src, 100, dst, 50, 100);
  assertEquals([dst[49], dst[50], dst[149], dst[150]], [0, 100, 199, 0]);
  const big = new BigInt64Array(100);
  copyRange(new BigInt64Array(100).fill(2n ** 62n), 0, big, 0, 100);
  assertEquals(big[99], 2n ** 62n);
});
