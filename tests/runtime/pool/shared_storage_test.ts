// Large tensors of a pooled run live in the shared heap: they cross workers
// by reference, are counted by their holders, and are freed by the last.

import { collectGarbage } from "../../_helpers/collect_garbage.ts";
import { assert, assertEquals, assertNotStrictEquals } from "@std/assert";
import { allocate, LARGE_ELEMENTS } from "../../../kernels/allocate.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { Global, type SharedHeap } from "../../../scheduler/shared/heap.ts";
import { SharedStorage } from "../../../runtime/pool/shared_storage.ts";
import { tensorCodec } from "../../../runtime/pool/tensor_codec.ts";
import { withStorage } from "./_member.ts";
import {
  Executor,
  go,
  makeChannel,
  Program,
  recv,
  send,
  uniformRandom,
} from "../../../mod.ts";

const refsOf = (heap: SharedHeap, block: number) => heap.i32[block >> 2];

Deno.test("SharedStorage gives large arrays heap storage and small ones private buffers", async () => {
  await withStorage((member) => {
    const large = allocate("float64", LARGE_ELEMENTS);
    const small = allocate("float64", LARGE_ELEMENTS - 1);
    assert(large.buffer instanceof SharedArrayBuffer);
    assert(small.buffer instanceof ArrayBuffer);
    const block = SharedStorage.blockOf(member.heap.memory, large)!;
    assertEquals(refsOf(member.heap, block), 1);
    assertEquals(
      Atomics.load(member.heap.i32, Global.StorageBytes),
      LARGE_ELEMENTS * 8,
    );
  });
  // Uninstalled: private again.
  assert(allocate("float64", LARGE_ELEMENTS).buffer instanceof ArrayBuffer);
});

Deno.test("SharedStorage frees a block with its last holder and zero-fills it on reuse", async () => {
  await withStorage((member, storage) => {
    const heap = member.heap;
    const data = storage.allocate("float32", LARGE_ELEMENTS) as Float32Array;
    data.fill(7);
    const block = SharedStorage.blockOf(heap.memory, data)!;
    storage.retain(block); // a blob
    storage.release(block); // the blob is freed
    storage.release(block); // the array is collected
    assertEquals(Atomics.load(heap.i32, Global.StorageBytes), 0);
    member.lock(); // deferred frees happen here
    member.unlock();
    const again = storage.allocate("float32", LARGE_ELEMENTS)!;
    assertEquals(SharedStorage.blockOf(heap.memory, again), block);
    assertEquals(again.every((v) => v === 0), true);
  });
});

Deno.test("SharedStorage: the storage of arrays that die is freed when they are collected, and reused", async () => {
  // 400 MiB of arrays that die young, about three times the budget, with a
  // collection after every 16 MiB: each collection's finalizers give the
  // dead arrays' storage back, so every array finds room in the heap. When
  // V8 collects on its own is its business (the ballast makes it count
  // shared arrays; bench/parallel_for_process.ts shows the effect): this
  // asserts only what the storage guarantees once it does.
  await withStorage(async () => {
    let privateArrays = 0;
    for (let i = 0; i < 400; i++) {
      const data = allocate("float32", 1 << 18);
      if (!(data.buffer instanceof SharedArrayBuffer)) privateArrays++;
      if (i % 16 === 15) await collectGarbage();
    }
    assertEquals(privateArrays, 0, `${privateArrays} of 400 private`);
  });
});

Deno.test("tensorCodec carries a heap tensor by reference, holding its storage", async () => {
  await withStorage((member) => {
    const heap = member.heap;
    const t = new Tensor(
      "float32",
      [LARGE_ELEMENTS],
      allocate("float32", LARGE_ELEMENTS),
    );
    (t.data as Float32Array)[5] = 2.5;
    const block = SharedStorage.blockOf(heap.memory, t.data)!;
    member.lock();
    const blob = heap.allocData(tensorCodec.byteLength(heap, t));
    tensorCodec.write(heap, blob, t);
    member.unlock();
    assert(
      tensorCodec.byteLength(heap, t) < 64,
      "a reference, not the elements",
    );
    assertEquals(refsOf(heap, block), 2);
    const read = tensorCodec.read(heap, blob);
    assertEquals(refsOf(heap, block), 3);
    assertNotStrictEquals(read.data, t.data);
    assertEquals(read.data.byteOffset, t.data.byteOffset);
    assertEquals(read.item(5), 2.5);
    tensorCodec.discard(heap, blob);
    assertEquals(refsOf(heap, block), 2);
  });
});

Deno.test("tensorCodec copies a tensor whose storage is private", async () => {
  await withStorage((member) => {
    const heap = member.heap;
    const t = Tensor.fromArray([1, 2, 3], "int32");
    member.lock();
    const blob = heap.allocData(tensorCodec.byteLength(heap, t));
    tensorCodec.write(heap, blob, t);
    member.unlock();
    const read = tensorCodec.read(heap, blob);
    assert(read.data.buffer instanceof ArrayBuffer);
    assertEquals(read.toNested(), [1, 2, 3]);
  });
});

Deno.test("Executor with workers sends a large tensor to another worker and back without copying it", async () => {
  const program = new Program();
  const [x, y] = program.guard(() => {
    const x = uniformRandom({ shape: [256, 256], seed: 5 });
    const there = makeChannel({ dtype: "float32" });
    const back = makeChannel({ dtype: "float32" });
    go(() => send(back, recv(there)));
    send(there, x);
    return [x, recv(back)];
  });
  const { fetched } = await new Executor({ workers: 2, print: () => {} }).run(
    program,
    { fetch: [x.name, y.name] },
  );
  const [sent, received] = [fetched[x.name], fetched[y.name]] as Tensor[];
  assert(received.data.buffer instanceof SharedArrayBuffer);
  // The same elements, not a copy of them.
  assertEquals(received.data.byteOffset, sent.data.byteOffset);
  assertEquals(received.data, sent.data);
});
