// Values crossing to another worker: each kind comes back as it went, and a
// channel or array reference holds its record until it is read.

import { assert, assertEquals } from "@std/assert";
import { LARGE_ELEMENTS } from "../../../kernels/allocate.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { SharedChannel } from "../../../scheduler/shared/shared_channel.ts";
import { C_REFS } from "../../../scheduler/shared/_records.ts";
import {
  readCrossing,
  writeCrossing,
} from "../../../runtime/pool/crossing_value.ts";
import { SharedStorage } from "../../../runtime/pool/shared_storage.ts";
import { SharedTensorArray } from "../../../runtime/pool/shared_tensor_array.ts";
import { tensorCodec } from "../../../runtime/pool/tensor_codec.ts";
import type { PoolMember } from "../../../scheduler/shared/pool_member.ts";
import type { Value } from "../../../runtime/core/value.ts";
import { withMember, withStorage } from "./_member.ts";
import {
  channelRecord,
  createSharedChannel,
} from "../../../scheduler/shared/_channel_handle.ts";

function cross(member: PoolMember, v: Value): Value {
  member.lock();
  const [tag, ref] = writeCrossing(member, v);
  member.unlock();
  return readCrossing(member, tag, ref);
}

Deno.test("crossing values: unset, nil, tensors and raw lists come back as they went", async () => {
  await withMember((member) => {
    assertEquals(cross(member, undefined), undefined);
    assertEquals(cross(member, null), null);
    assertEquals(cross(member, ["a", "ü"]), ["a", "ü"]);
    const t = cross(
      member,
      Tensor.fromArray([[1, 2], [3, 4]], "int64"),
    ) as Tensor;
    assert(t instanceof Tensor, "not a tensor");
    assertEquals(t.toNested(), [[1n, 2n], [3n, 4n]]);
  });
});

Deno.test("crossing values: a large shared tensor crosses by reference", async () => {
  await withStorage((member) => {
    const t = new Tensor(
      "float32",
      [LARGE_ELEMENTS],
      new Float32Array(LARGE_ELEMENTS).fill(2),
    );
    const shared = cross(member, cross(member, t)) as Tensor;
    const memory = member.heap.memory;
    assert(SharedStorage.blockOf(memory, shared.data) !== undefined);
    assertEquals(shared.item(LARGE_ELEMENTS - 1), 2);
  });
});

Deno.test("crossing values: a channel or array reference holds its record until read", async () => {
  await withMember((member) => {
    const i32 = member.heap.i32;
    const ch = createSharedChannel(
      member,
      1,
      tensorCodec,
      Tensor.scalar(0, "float32"),
    );
    member.lock();
    const [tag, ref] = writeCrossing(member, ch);
    member.unlock();
    assertEquals(i32[(channelRecord(ch) >> 2) + C_REFS], 2); // the handle and the reference
    const other = readCrossing(member, tag, ref) as SharedChannel<Tensor>;
    assert(other instanceof SharedChannel, "not a channel handle");
    assertEquals(channelRecord(other), channelRecord(ch));
    assertEquals(i32[(channelRecord(ch) >> 2) + C_REFS], 2); // two handles
    const array = SharedTensorArray.create(member);
    array.write(0, Tensor.scalar(5, "float32"));
    const copy = cross(member, array) as SharedTensorArray;
    assert(copy instanceof SharedTensorArray, "not an array handle");
    assertEquals(copy.read(0).item(), 5);
  });
});
