// Shared tensor arrays: large tensors are kept by reference to shared
// storage, copied there first when they come from private memory, and a
// slot that holds a copy reads back without taking the heap's lock twice.

import { assert, assertEquals } from "@std/assert";
import { LARGE_ELEMENTS } from "../../../kernels/allocate.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { Global } from "../../../scheduler/shared/heap.ts";
import { SharedStorage } from "../../../runtime/pool/shared_storage.ts";
import { SharedTensorArray } from "../../../runtime/pool/shared_tensor_array.ts";
import { collectGarbageUntil } from "../../_helpers/collect_garbage.ts";
import { withMember, withStorage } from "./_member.ts";

/** A large float32 tensor in private memory: 0, 1, 2, … */
function privateLarge(): Tensor {
  const data = new Float32Array(LARGE_ELEMENTS);
  for (let i = 0; i < data.length; i++) data[i] = i;
  return new Tensor("float32", [LARGE_ELEMENTS / 16, 16], data);
}

Deno.test("SharedTensorArray stores a large private tensor by reference to shared storage", async () => {
  await withStorage((member) => {
    const array = SharedTensorArray.create(member);
    const t = privateLarge();
    array.write(0, t);
    const [a, b] = [array.read(0), array.snapshot()[0]!];
    const memory = member.heap.memory;
    const block = SharedStorage.blockOf(memory, a.data);
    assert(block !== undefined, "the slot's tensor is not in the heap");
    assertEquals(SharedStorage.blockOf(memory, b.data), block);
    assertEquals(a.shape, t.shape);
    assertEquals(a.item(LARGE_ELEMENTS - 1), LARGE_ELEMENTS - 1);
  });
});

Deno.test("SharedTensorArray reads a slot holding a copy of a large tensor, with shared storage installed", async () => {
  await withMember((member) => {
    // Written before there is shared storage: the slot holds the elements.
    const array = SharedTensorArray.create(member);
    array.write(0, privateLarge());
    const storage = SharedStorage.install(member);
    try {
      // Reading copies them out while the array holds the heap's lock; a
      // copy from the heap's storage would take that lock again.
      const t = array.read(0);
      const [s] = array.snapshot();
      assertEquals(
        SharedStorage.blockOf(member.heap.memory, t.data),
        undefined,
      );
      assertEquals([t.item(7), s!.item(LARGE_ELEMENTS - 1)], [
        7,
        LARGE_ELEMENTS - 1,
      ]);
    } finally {
      storage.uninstall();
    }
  });
});

Deno.test("SharedTensorArray: an array no handle holds frees its record and its tensors at the next lock", async () => {
  await withStorage(async (member) => {
    const heap = member.heap;
    let off = 0;
    (() => {
      const array = SharedTensorArray.create(member);
      array.write(0, privateLarge()); // copied into shared storage
      array.write(1, Tensor.scalar(1, "float32"));
      off = array.off;
    })();
    assert(Atomics.load(heap.i32, Global.StorageBytes) > 0);
    // Each collection's finalizers leave the teardown to the next lock.
    const freed = await collectGarbageUntil(() => {
      member.lock();
      member.unlock();
      return Atomics.load(heap.i32, Global.StorageBytes) === 0;
    });
    assert(freed, "the array's tensors were never freed");
    assertEquals(SharedTensorArray.create(member).off, off);
  });
});

Deno.test("SharedTensorArray.retain() keeps an array no handle holds until release()", async () => {
  await withMember(async (member) => {
    let off = 0;
    (() => {
      const array = SharedTensorArray.create(member);
      array.write(0, Tensor.scalar(7, "float32"));
      off = array.off;
    })();
    SharedTensorArray.retain(member, off); // as a spawned goroutine's blob does
    const refs = () => member.heap.i32[(off >> 2) + 3]; // the record's holds
    assert(await collectGarbageUntil(() => refs() === 1), "never collected");
    member.lock(); // a teardown due would run here
    member.unlock();
    assert(SharedTensorArray.create(member).off !== off, "freed while held");
    SharedTensorArray.release(member, off);
    assertEquals(SharedTensorArray.create(member).off, off);
  });
});
