import { create } from "@bufbuild/protobuf";
import { assertEquals } from "@std/assert";
import {
  AttrType,
  ProgramDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import { channelFlow } from "../../../runtime/check/channel_flow.ts";
import { channel, op, tensor } from "../../_helpers/desc_init.ts";

const subBlock = (b: number) => [
  { name: "sub_block", type: AttrType.BLOCK, blockIdx: b },
];

Deno.test("channelFlow() binds a go block's own Args variable to the spawner's channel", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [
      {
        idx: 0,
        parentIdx: -1,
        vars: [channel("ch"), tensor("v")],
        ops: [
          op("channel_create", {}, { Out: ["ch"] }),
          op("go", { Args: ["ch"] }, {}, subBlock(1)),
          op("channel_recv", { Channel: ["ch"] }, { Out: ["v"] }),
        ],
      },
      {
        idx: 1,
        parentIdx: 0,
        vars: [channel("ch"), tensor("x", [1])],
        ops: [op("channel_send", { Channel: ["ch"], X: ["x"] })],
      },
    ],
  });
  const flow = channelFlow(desc);
  assertEquals(
    flow.channels.map((c) => [c.variable.block, c.variable.desc.name]),
    [[0, "ch"], [1, "ch"]],
  );
  assertEquals(flow.bindings.map((b) => [b.from, b.to, b.site.type]), [
    [0, 1, "go"],
  ]);
  assertEquals(flow.group, [0, 0]);
  assertEquals(flow.channels[0].other, []); // Args passes it on
  assertEquals(flow.channels[1].sends.map((s) => s.block), [1]);
  assertEquals(flow.channels[0].recvs.map((s) => s.op), [2]);
});

Deno.test("channelFlow() keeps a channel use it cannot place as other", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [channel("ch")],
      ops: [
        op("channel_create", {}, { Out: ["ch"] }),
        op("print", { In: ["ch"] }),
      ],
    }],
  });
  const [ch] = channelFlow(desc).channels;
  assertEquals(ch.other.map((s) => s.type), ["print"]);
});
