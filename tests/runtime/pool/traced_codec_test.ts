// The traced channel codec (runtime/pool/traced_codec.ts): a value written
// by one worker's tracer carries a flow id that the reading worker's
// tracer ends; a zero value written quietly carries none; and the tensor
// travels unchanged.

import { assert, assertEquals } from "@std/assert";
import { Tensor } from "../../../kernels/tensor.ts";
import { Scheduler } from "../../../scheduler/scheduler.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import { RunTracer } from "../../../runtime/core/run_tracer.ts";
import {
  channelCodec,
  quietly,
  traceChannelValues,
} from "../../../runtime/pool/traced_codec.ts";
import { tensorCodec } from "../../../runtime/pool/tensor_codec.ts";

Deno.test("the traced codec carries a flow id from writer to reader", async () => {
  const heap = SharedHeap.create();
  const writer = new RunTracer({ worker: 1 });
  const reader = new RunTracer({ worker: 0, origin: writer.origin });
  const s = new Scheduler({ seed: 1, threadContext: false });
  const t = Tensor.fromArray([1, 2, 3], "int32");
  let blob = 0;
  let read: Tensor | undefined;
  await s.run((main) => {
    writer.running(main);
    traceChannelValues(writer);
    try {
      const codec = channelCodec();
      assert(codec !== tensorCodec);
      blob = heap.allocData(codec.byteLength(heap, t));
      codec.write(heap, blob, t);
      traceChannelValues(reader);
      read = channelCodec().read(heap, blob);
      reader.flows.received(main, {}, read);
    } finally {
      traceChannelValues(undefined);
    }
  });
  assertEquals(read?.toNested(), [1, 2, 3]);
  const s0 = writer.finish().find((e) => e.ph === "s");
  const f0 = reader.finish().find((e) => e.ph === "f");
  assertEquals([s0?.pid, f0?.pid], [1, 0]);
  assertEquals(f0?.id, s0?.id);
  assert(s0!.id! >= 2 ** 32); // worker 1's ids
});

Deno.test("a value written quietly (a channel's zero value) starts no flow", () => {
  const heap = SharedHeap.create();
  const tracer = new RunTracer();
  traceChannelValues(tracer);
  try {
    const t = Tensor.zeros([1], "float32");
    const blob = heap.allocData(channelCodec().byteLength(heap, t));
    quietly(() => channelCodec().write(heap, blob, t));
    assertEquals(channelCodec().read(heap, blob).toNested(), [0]);
  } finally {
    traceChannelValues(undefined);
  }
  assertEquals(tracer.finish().filter((e) => e.ph === "s" || e.ph === "f"), []);
});
