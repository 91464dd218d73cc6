// The worker's limits: each flag's values parse in its unit or give one
// error naming the flag and the value; formatLimit writes each default as
// its flag takes it.

import { assertEquals, assertThrows } from "@std/assert";
import {
  DEFAULT_WORKER_LIMITS,
  formatLimit,
  parseWorkerLimits,
  WORKER_LIMIT_FLAGS,
  WorkerLimitError,
} from "../../../runtime/cluster/worker_limits.ts";

Deno.test("parseWorkerLimits() gives the defaults for no flags, and reads each unit", () => {
  assertEquals(parseWorkerLimits({}), DEFAULT_WORKER_LIMITS);
  assertEquals(
    parseWorkerLimits({
      "max-calls": "8",
      "max-call-bytes": "512KiB",
      "max-conns": "1000",
      "max-conns-per-client": "1",
      "read-timeout": "250ms",
      "idle-timeout": "1.5m",
      "call-timeout": "2h",
      "other": "ignored",
    }),
    {
      maxCalls: 8,
      maxCallBytes: 512 << 10,
      maxConns: 1000,
      maxConnsPerClient: 1,
      readTimeoutMs: 250,
      idleTimeoutMs: 90_000,
      callTimeoutMs: 7_200_000,
    },
  );
  assertEquals(
    parseWorkerLimits({ "max-call-bytes": "4096" }).maxCallBytes,
    4096,
  );
  assertEquals(
    parseWorkerLimits({ "max-call-bytes": "2GiB" }).maxCallBytes,
    2 ** 31,
  );
  assertEquals(
    parseWorkerLimits({ "read-timeout": "596h" }).readTimeoutMs,
    2_145_600_000,
  );
});

Deno.test("parseWorkerLimits() refuses a value out of its unit or range, naming flag and value", () => {
  const cases: [string, string, string][] = [
    ["max-calls", "0", "is not a whole number from 1"],
    ["max-calls", "-1", "is not a whole number from 1"],
    ["max-calls", "2.0", "is not a whole number from 1"],
    ["max-conns", "", "is not a whole number from 1"],
    ["max-conns", "1e3", "is not a whole number from 1"],
    ["max-conns", "99999999999999999999", "is not a whole number from 1"],
    ["call-timeout", "10", "is not a duration (500ms, 30s, 1.5m, 2h)"],
    ["call-timeout", "1d", "is not a duration (500ms, 30s, 1.5m, 2h)"],
    ["idle-timeout", " 1s", "is not a duration (500ms, 30s, 1.5m, 2h)"],
    ["idle-timeout", "0.1ms", "is shorter than 1ms"],
    ["read-timeout", "597h", "is longer than 596h"],
    ["max-call-bytes", "1.5MiB", "is not a size (4096, 512KiB, 128MiB, 1GiB)"],
    ["max-call-bytes", "1MB", "is not a size (4096, 512KiB, 128MiB, 1GiB)"],
    ["max-call-bytes", "0", "is not above 0"],
    ["max-call-bytes", "2000000GiB", "is more than 1048576GiB"],
  ];
  for (const [flag, value, reason] of cases) {
    const e = assertThrows(
      () => parseWorkerLimits({ [flag]: value }),
      WorkerLimitError,
    );
    assertEquals([e.flag, e.value, e.message], [
      flag,
      value,
      `--${flag}: "${value}" ${reason}`,
    ]);
  }
});

Deno.test("formatLimit() writes each default as its flag reads it back", () => {
  for (const { flag, field, unit } of WORKER_LIMIT_FLAGS) {
    const text = formatLimit(unit, DEFAULT_WORKER_LIMITS[field]);
    assertEquals(
      parseWorkerLimits({ [flag]: text })[field],
      DEFAULT_WORKER_LIMITS[field],
      flag,
    );
  }
  assertEquals(formatLimit("duration", 90_000), "90s");
  assertEquals(formatLimit("bytes", 1536), "1536");
});
