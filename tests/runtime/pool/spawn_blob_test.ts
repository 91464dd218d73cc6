// Spawn blobs: each field where its name says, read back by a worker whose
// views end before the blob.

import { assertEquals } from "@std/assert";
import {
  readSpawn,
  type Spawn,
  SpawnBlob,
  writeSpawn,
} from "../../../runtime/pool/_spawn_blob.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import {
  assertBeyondViews,
  grownHeap,
} from "../../scheduler/shared/_grown_heap.ts";

const spawn: Spawn = {
  block: 7,
  key: 12,
  group: 4096,
  index: 5,
  values: [[1, 8192], [0, 0], [3, 640]],
};

function written(heap: SharedHeap, s: Spawn): number {
  heap.lock();
  const blob = writeSpawn(heap, s);
  heap.unlock();
  return blob;
}

Deno.test("writeSpawn() puts each field at its SpawnBlob word, values as tag and reference pairs", () => {
  const heap = SharedHeap.create();
  const b = written(heap, spawn) >> 2;
  assertEquals(heap.i32[b + SpawnBlob.Block], 7);
  assertEquals(heap.i32[b + SpawnBlob.Key], 12);
  assertEquals(heap.i32[b + SpawnBlob.Group], 4096);
  assertEquals(heap.i32[b + SpawnBlob.Index], 5);
  assertEquals(heap.i32[b + SpawnBlob.Count], 3);
  const values = heap.i32.slice(b + SpawnBlob.Values, b + SpawnBlob.Values + 6);
  assertEquals([...values], [1, 8192, 0, 0, 3, 640]);
});

Deno.test("readSpawn() reads what writeSpawn() wrote, with or without values", () => {
  const heap = SharedHeap.create();
  assertEquals(readSpawn(heap, written(heap, spawn)), spawn);
  const bare = { block: 1, key: 2, group: 0, index: 0, values: [] };
  assertEquals(readSpawn(heap, written(heap, bare)), bare);
});

Deno.test("readSpawn() reads a blob beyond this worker's views", () => {
  const { heap, stale } = grownHeap();
  const blob = written(heap, spawn);
  assertBeyondViews(stale, blob);
  assertEquals(readSpawn(stale, blob), spawn);
});
