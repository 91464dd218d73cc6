// The record file: what encodeSchedule writes decodeSchedule reads back,
// and what is not a record is refused naming why.

import { assertEquals, assertThrows } from "@std/assert";
import {
  decodeSchedule,
  encodePackedSchedule,
  encodeSchedule,
  SCHEDULE_VERSION,
  type ScheduleRecord,
} from "../../../runtime/core/schedule_file.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";

const record: ScheduleRecord = {
  fingerprint: new Uint8Array(32).map((_, i) => i * 7),
  seed: 2 ** 40 + 3,
  threads: [0, 0xffffffff, 77],
  channels: [
    { creator: 0, ordinal: 0, events: Int32Array.of(1, 0, 1, 2, 0, 1, 0, 5) },
    { creator: 2, ordinal: 1, events: new Int32Array() },
  ],
  choices: [[], [4, -1, 0, -2], []],
};

Deno.test("encodeSchedule() round-trips through decodeSchedule()", () => {
  assertEquals(decodeSchedule(encodeSchedule(record), "r"), record);
});

Deno.test("encodePackedSchedule() writes what encodeSchedule() writes for its record", () => {
  // A one-worker recording: (channel, thread's key, site) triples over a
  // site table, in two chunks, the attempts of select cases not taken
  // complemented; threads numbered as met (creators first).
  const packed = encodePackedSchedule({
    fingerprint: record.fingerprint,
    seed: record.seed,
    made: [0, 0, 77, 1],
    sites: [0, 1, 2, 3, 1, 2, 0, 1, 0, 1, 0, 5],
    attempts: [
      Int32Array.of(0, -1, 0, 1, 77, ~1),
      Int32Array.of(0, 77, ~1, 0, 0, 3),
    ],
    choices: [[-1, [4, -1, 0, -2]]],
  });
  const expected: ScheduleRecord = {
    fingerprint: record.fingerprint,
    seed: record.seed,
    threads: [0, 77, 0xffffffff],
    channels: [
      { creator: 0, ordinal: 0, events: Int32Array.of(2, 0, 1, 2, 0, 1, 0, 5) },
      { creator: 1, ordinal: 1, events: new Int32Array() },
    ],
    choices: [[], [], [4, -1, 0, -2]],
  };
  assertEquals(packed, encodeSchedule(expected));
});

Deno.test("decodeSchedule() refuses another version", () => {
  const bytes = encodeSchedule(record);
  bytes[8] = SCHEDULE_VERSION + 1;
  const e = assertThrows(() => decodeSchedule(bytes, "r"), ProgramError);
  assertEquals(
    e.message,
    `--replay: "r": record version ${
      SCHEDULE_VERSION + 1
    }, this Rill reads ${SCHEDULE_VERSION}`,
  );
});

Deno.test("decodeSchedule() refuses a file cut short or with bytes left", () => {
  const bytes = encodeSchedule(record);
  assertThrows(
    () => decodeSchedule(bytes.subarray(0, bytes.length - 3), "r"),
    ProgramError,
    "not a Rill record (cut short)",
  );
  const longer = new Uint8Array([...bytes, 0]);
  assertThrows(
    () => decodeSchedule(longer, "r"),
    ProgramError,
    "not a Rill record (1 bytes left over)",
  );
});

Deno.test("decodeSchedule() refuses an event naming no recorded thread", () => {
  const bad = { ...record, threads: [0] };
  assertThrows(
    () => decodeSchedule(encodeSchedule(bad), "r"),
    ProgramError,
    "out of range",
  );
});
